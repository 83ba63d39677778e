/**
 * The action's path inputs (`working-directory`, `report-path`, `plan-file`) resolved inside the
 * workspace. A pull request controls both the inputs' neighbourhood (it can commit symlinks) and,
 * through `pull_request_target` or a reused workflow, sometimes the inputs' values; neither may
 * make the action read or write outside `GITHUB_WORKSPACE`. Symlinks are followed for the part of
 * the path that exists; the rest is joined lexically (it is created by the action itself).
 */
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** The path inputs, by input name, as given. */
export type PathInputs = Record<string, string | undefined>;

/** Where each path input resolves, or the problems (one sentence each, naming the input). */
/** `workspace` is the workspace's own real path, which the resolved paths are under. */
export type ResolvedPaths =
  | { ok: true; workspace: string; paths: Record<string, string> }
  | { ok: false; problems: string[] };

/**
 * Resolves each given path input against the workspace, following symlinks, and refuses any that
 * ends outside it (an absolute path elsewhere, `..`, or a symlink leaving it).
 * @example
 * await resolveInWorkspace("/home/runner/work/repo/repo", { "working-directory": "infra" })
 * // → { ok: true, workspace: "/home/runner/work/repo/repo", paths: { "working-directory": "/home/runner/work/repo/repo/infra" } }
 */
export async function resolveInWorkspace(workspace: string, inputs: PathInputs): Promise<ResolvedPaths> {
  const root = await realpath(workspace).catch(() => resolve(workspace));
  const paths: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(inputs)) {
    if (value === undefined) continue;
    const target = await realTarget(resolve(root, value));
    const expected = `expected a path relative to the workspace ${root}, with no symlink leaving it.`;
    if ("dangling" in target)
      problems.push(
        `Input "${name}" is "${value}": ${target.dangling} is a symlink to nothing, which could lead outside the workspace; ${expected}`,
      );
    else if (!inside(root, target.path)) {
      const via = target.path !== resolve(root, value) ? ` (it leads to ${target.path})` : "";
      problems.push(`Input "${name}" is "${value}"${via}: it is outside the workspace; ${expected}`);
    } else paths[name] = target.path;
  }
  return problems.length ? { ok: false, problems } : { ok: true, workspace: root, paths };
}

/**
 * The path with its longest existing prefix replaced by its real path. A dangling symlink on the
 * way is refused: what it points at is unknown until something creates it.
 */
async function realTarget(path: string): Promise<{ path: string } | { dangling: string }> {
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    try {
      const real = await realpath(existing);
      return { path: missing.length ? join(real, ...missing.reverse()) : real };
    } catch {
      if ((await lstat(existing).catch(() => undefined))?.isSymbolicLink()) return { dangling: existing };
      const parent = dirname(existing);
      if (parent === existing) return { path };
      missing.push(basename(existing));
      existing = parent;
    }
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
