/**
 * `svc-iac projects [DIR] [--changed-since REF]`: the projects of a monorepo, or only those a
 * change since REF affects, as a list and as a GitHub Actions matrix.
 */
import { relative, resolve, sep } from "node:path";
import { SVC_FILE } from "../load/names";
import { terminalLine } from "../render/terminal-text";
import { YAML_LIMITS } from "../../repository/yaml-limits";
import { affectedProjects, matrixOf, type MatrixEntry, type RemovedProject } from "../projects/affected";
import type { ProjectEntry } from "../projects/find-projects";
import { changesSince, fileAt, filesMentioning, GitError, gitRoot, workTree } from "../projects/git-changes";

export interface ProjectsOptions {
  /** The folder to search (default: the current folder). */
  dir: string;
  /** List only the projects a change since this git reference affects. */
  changedSince?: string;
  /** Only these targets in the matrix (default: every target of each project). */
  targets?: string[];
}

export interface ProjectsResult {
  /** The repository root the folders are relative to: the git work tree, else `dir`. */
  root: string;
  /** With `changedSince`: the commit compared against (the merge base). */
  base?: string;
  /** Every project found (without `changedSince`), or the affected ones, each with why. */
  projects: (ProjectEntry & { because?: string })[];
  /** Projects that existed at the base and no longer do (their objects are not touched). */
  removed: RemovedProject[];
  /** What a `strategy.matrix` takes. */
  matrix: { include: MatrixEntry[] };
  /** Projects whose svc.yaml does not load, and folders that claim one project name, as `file:line:column: message`. */
  errors: string[];
}

export async function projectsCommand(opts: ProjectsOptions): Promise<ProjectsResult> {
  const dir = resolve(opts.dir);
  // Every git process starts at once, from `dir` (each answers with paths from the root): the
  // root, the file list, the settings files that mention headers, and what changed since the
  // reference. Outside a work tree they all fail, and only the root's answer counts.
  const pending = [
    gitRoot(dir),
    workTree(dir),
    filesMentioning(dir, "headers", "**/canvases/*/*.yaml"),
    opts.changedSince !== undefined ? changesSince(dir, opts.changedSince) : undefined,
  ];
  // Loaded while git works (the YAML parser and the loader's readers): a large monorepo answers in
  // about the time of its slowest git process.
  const [{ projectFolders, projectsReading, withNames }, { projectNameIn }, { sharedNameErrors }] = await Promise.all([
    import("../projects/find-projects.js"),
    import("../projects/svc-names.js"),
    import("../projects/project-claims.js"),
  ]);
  const answers = await Promise.allSettled(pending);
  const [rootAnswer, treeAnswer, mentioningAnswer, changesAnswer] = answers as [
    PromiseSettledResult<string | undefined>,
    PromiseSettledResult<Awaited<ReturnType<typeof workTree>>>,
    PromiseSettledResult<string[]>,
    PromiseSettledResult<Awaited<ReturnType<typeof changesSince>> | undefined>,
  ];
  const gitTop = rootAnswer.status === "fulfilled" ? rootAnswer.value : undefined;
  if (gitTop === undefined && opts.changedSince !== undefined)
    throw new GitError(`--changed-since needs a git repository; ${dir} is not in one.`);
  const root = gitTop ?? dir;
  const scope = relativeTo(root, dir);
  if (gitTop !== undefined) for (const a of answers) if (a.status === "rejected") throw a.reason;
  const tree = gitTop !== undefined && treeAnswer.status === "fulfilled" ? treeAnswer.value : undefined;
  const mentioning = mentioningAnswer.status === "fulfilled" ? mentioningAnswer.value : [];
  const changes = changesAnswer.status === "fulfilled" ? changesAnswer.value : undefined;

  // New settings files git does not track yet may mention headers too.
  const mayHaveHeaders = tree
    ? new Set([...mentioning, ...tree.untracked.filter((f) => f.endsWith(".yaml"))])
    : undefined;
  const folders = projectFolders(root, scope, tree?.files);
  const found = projectsReading(root, folders, mayHaveHeaders);
  // Every folder's name, in scope or not: a name two folders claim is refused wherever they stand,
  // and each of them is left out of the matrix (neither may plan or apply under that name).
  const everyFolder = scope === "." ? folders : projectFolders(root, ".", tree?.files);
  const names = new Map(
    (
      await withNames(
        root,
        everyFolder.map((dir): ProjectEntry => ({ dir, targets: [], reads: [] })),
      )
    ).map((e) => [e.dir, e]),
  );
  const refused = sharedNameErrors([...names.values()]);
  const claimErrors = [...refused.values()].sort();
  const named = found.map((entry) => {
    const n = names.get(entry.dir)!;
    const error = refused.get(entry.dir) ?? n.error;
    return {
      ...entry,
      targets: n.targets,
      ...(n.project !== undefined ? { project: n.project } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  });
  if (!changes || !tree) return result(root, named, [], opts.targets, claimErrors);

  // Only the folders gone since the base need their old name (one git process each): a removed
  // project, or a moved one whose name lives on elsewhere.
  const now = new Set(folders);
  const before = await Promise.all(
    projectFolders(root, scope, changes.deleted)
      .filter((d) => !now.has(d))
      .map(async (d) => ({
        dir: d,
        project: projectNameIn(
          await fileAt(root, changes.base, d === "." ? SVC_FILE : `${d}/${SVC_FILE}`, YAML_LIMITS.fileBytes),
        ),
      })),
  );
  const changed = [...new Set([...changes.changed, ...tree.untracked])].sort();
  const { affected, removed } = affectedProjects(named, changed, before);
  return { ...result(root, affected, removed, opts.targets, claimErrors), base: changes.base };
}

/** `abs` as a `/`-separated path relative to `root` ("." for root itself). */
function relativeTo(root: string, abs: string): string {
  const rel = relative(root, abs).split(sep).join("/");
  return rel === "" ? "." : rel;
}

function result(
  root: string,
  projects: (ProjectEntry & { because?: string })[],
  removed: RemovedProject[],
  targets: string[] | undefined,
  claimErrors: readonly string[],
): ProjectsResult {
  return {
    root,
    projects,
    removed,
    matrix: matrixOf(projects, targets),
    errors: [...new Set([...projects.flatMap((p) => (p.error ? [p.error] : [])), ...claimErrors])],
  };
}

/** The list for a terminal: one line per project (and why), then the removed ones. */
export function projectsText(r: ProjectsResult, changedSince?: string): string {
  const lines: string[] = [];
  const since =
    changedSince !== undefined
      ? ` affected by changes since ${changedSince}${r.base ? ` (merge base ${r.base.slice(0, 12)})` : ""}`
      : "";
  lines.push(
    r.projects.length
      ? `${r.projects.length} project${r.projects.length === 1 ? "" : "s"}${since}:`
      : `No project${since}.`,
  );
  // Folder and file names are the repository's: shown on one line each, control characters escaped.
  for (const p of r.projects) {
    const name = p.project ?? "(svc.yaml does not load)";
    const why = p.because
      ? `  (${p.because.startsWith(`${p.dir}/`) || p.dir === "." ? "changed" : "reads"} ${terminalLine(p.because)})`
      : "";
    lines.push(`  ${name}  ${terminalLine(p.dir)}  targets: ${p.targets.join(", ") || "-"}${why}`);
  }
  if (r.removed.length) {
    lines.push(
      `Removed since ${changedSince}: ${r.removed.length} project${r.removed.length === 1 ? "" : "s"} (its objects are not deleted by this command; destroy them from the old commit, or prune):`,
    );
    for (const p of r.removed) lines.push(`  ${terminalLine(p.project ?? "(unknown)")}  ${terminalLine(p.dir)}`);
  }
  for (const e of r.errors) lines.push(`error: ${terminalLine(e)}`);
  return `${lines.join("\n")}\n`;
}
