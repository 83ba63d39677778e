/**
 * `svc-iac projects [DIR] [--changed-since REF]`: the projects of a monorepo, or only those a
 * change since REF affects, as a list and as a GitHub Actions matrix.
 *
 * Folder `projects/`: monorepos: finding the projects of a repository, what git says changed, and
 * which projects a change affects (pure, `affected.ts`). May import `src/model` and `../load`
 * (svc.yaml); nothing of the later steps.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { SVC_FILE } from "../load/names";
import { affectedProjects, matrixOf, type MatrixEntry, type RemovedProject } from "./affected";
import { projectFolders, projectsReading, relativeTo, withNames, type ProjectEntry } from "./find-projects";
import { changesSince, fileAt, filesMentioning, GitError, gitRoot, workTree } from "./git-changes";

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
  /** Projects whose svc.yaml does not load, as `file:line:column: message`. */
  errors: string[];
}

export async function projectsCommand(opts: ProjectsOptions): Promise<ProjectsResult> {
  const dir = resolve(opts.dir);
  const root = (await gitRoot(dir)) ?? dir;
  const scope = relativeTo(root, dir);
  const inGit = root !== dir || existsSync(join(root, ".git"));
  if (opts.changedSince !== undefined && !inGit) throw new GitError(`--changed-since needs a git repository; ${dir} is not in one.`);
  // The git processes that do not depend on each other run at once: the file list, the settings
  // files that mention headers (git grep's), and what changed since the reference.
  const [tree, mentioning, changes] = inGit
    ? await Promise.all([workTree(root), filesMentioning(root, "headers", ":(glob)**/canvases/*/*.yaml"), opts.changedSince !== undefined ? changesSince(root, opts.changedSince) : undefined])
    : [undefined, undefined, undefined];
  // New settings files git does not track yet may mention headers too.
  const mayHaveHeaders = tree ? new Set([...(mentioning ?? []), ...tree.untracked.filter((f) => f.endsWith(".yaml"))]) : undefined;
  const folders = projectFolders(root, scope, tree?.files);
  const found = projectsReading(root, folders, mayHaveHeaders);
  if (!changes || !tree) return result(root, await withNames(root, found), [], opts.targets);

  // Only the folders gone since the base need their old name (one git process each): a removed
  // project, or a moved one whose name lives on elsewhere.
  const now = new Set(folders);
  const before = await Promise.all(
    projectFolders(root, scope, changes.deleted)
      .filter((d) => !now.has(d))
      .map(async (d) => ({ dir: d, project: projectNameIn(await fileAt(root, changes.base, d === "." ? SVC_FILE : `${d}/${SVC_FILE}`)) })),
  );
  // svc.yaml is read for the affected projects only, unless a folder is gone: a project that moved
  // is told from a removed one by its name.
  const named = before.length ? await withNames(root, found) : found;
  const changed = [...new Set([...changes.changed, ...tree.untracked])].sort();
  const { affected, removed } = affectedProjects(named, changed, before);
  const projects = before.length ? affected : await withNames(root, affected);
  return { ...result(root, projects, removed, opts.targets), base: changes.base };
}

function result(root: string, projects: (ProjectEntry & { because?: string })[], removed: RemovedProject[], targets: string[] | undefined): ProjectsResult {
  return { root, projects, removed, matrix: matrixOf(projects, targets), errors: projects.flatMap((p) => (p.error ? [p.error] : [])) };
}

/** The `project:` of an svc.yaml's text, when it says one. */
function projectNameIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const doc = parse(text, { maxAliasCount: 100 }) as { project?: unknown } | null;
    return typeof doc?.project === "string" ? doc.project : undefined;
  } catch {
    return undefined;
  }
}

/** The list for a terminal: one line per project (and why), then the removed ones. */
export function projectsText(r: ProjectsResult, changedSince?: string): string {
  const lines: string[] = [];
  const since = changedSince !== undefined ? ` affected by changes since ${changedSince}${r.base ? ` (merge base ${r.base.slice(0, 12)})` : ""}` : "";
  lines.push(r.projects.length ? `${r.projects.length} project${r.projects.length === 1 ? "" : "s"}${since}:` : `No project${since}.`);
  for (const p of r.projects) {
    const name = p.project ?? "(svc.yaml does not load)";
    const why = p.because ? `  (${p.because.startsWith(`${p.dir}/`) || p.dir === "." ? "changed" : "reads"} ${p.because})` : "";
    lines.push(`  ${name}  ${p.dir}  targets: ${p.targets.join(", ") || "-"}${why}`);
  }
  if (r.removed.length) {
    lines.push(`Removed since ${changedSince}: ${r.removed.length} project${r.removed.length === 1 ? "" : "s"} (its objects are not deleted by this command; destroy them from the old commit, or prune):`);
    for (const p of r.removed) lines.push(`  ${p.project ?? "(unknown)"}  ${p.dir}`);
  }
  for (const e of r.errors) lines.push(`error: ${e}`);
  return `${lines.join("\n")}\n`;
}
