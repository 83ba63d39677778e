/**
 * What git says about a repository: its root, the files it tracks, and what changed since a
 * reference. Git is run as a process (`git` on PATH), with arguments passed as a list, never
 * through a shell, so a reference or a path cannot inject anything.
 */
import { execFileSync } from "node:child_process";

export class GitError extends Error {
  override readonly name = "GitError";
}

/** Largest output read from one git command (a tree of a million paths fits). */
const MAX_OUTPUT = 256 * 1024 * 1024;

function git(cwd: string, args: string[]): string {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: MAX_OUTPUT, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    const err = e as { code?: string; stderr?: string };
    if (err.code === "ENOENT") throw new GitError("git is not installed (or not on PATH); --changed-since needs it.");
    throw new GitError(`git ${args[0]} failed: ${String(err.stderr ?? (e as Error).message).trim().split("\n")[0]}`);
  }
}

const nulList = (text: string) => text.split("\0").filter(Boolean);

/** The work tree's root when `dir` is inside a git work tree, else undefined. */
export function gitRoot(dir: string): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface WorkTree {
  /** Every file git knows in the work tree: tracked, and untracked ones not ignored; from the root. */
  files: string[];
  /** The untracked ones (new files a change may add before it is committed). */
  untracked: string[];
}

/** The work tree's files, in one git process (`ls-files -t` tags each as tracked or not). */
export function workTree(root: string): WorkTree {
  const files: string[] = [];
  const untracked: string[] = [];
  for (const entry of nulList(git(root, ["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard"]))) {
    const path = entry.slice(2);
    files.push(path);
    if (entry.startsWith("?")) untracked.push(path);
  }
  return { files, untracked };
}

/** Tracked files whose text holds `word` (one `git grep` over the work tree), from the root. */
export function filesMentioning(root: string, word: string, pathspec: string): string[] {
  try {
    return nulList(execFileSync("git", ["grep", "-l", "-z", "-F", "--full-name", "-e", word, "--", pathspec], { cwd: root, encoding: "utf8", maxBuffer: MAX_OUTPUT, stdio: ["ignore", "pipe", "pipe"] }));
  } catch (e) {
    // Exit 1: no file matches.
    if ((e as { status?: number }).status === 1) return [];
    throw new GitError(`git grep failed: ${String((e as { stderr?: string }).stderr ?? (e as Error).message).trim().split("\n")[0]}`);
  }
}

export interface Changes {
  /** The commit compared against: the merge base of the reference and HEAD (as a pull request's diff). */
  base: string;
  /** Files that differ between `base` and the work tree, or are new and not ignored; from the root, sorted. */
  changed: string[];
  /** Files of `base` that are gone (deleted, or moved away): where removed projects are found. */
  deleted: string[];
}

/** What changed since `ref` (a branch, tag or commit), in two git processes. @throws GitError when `ref` is not a commit or git fails. */
export function changesSince(root: string, ref: string, untracked: readonly string[]): Changes {
  if (ref.startsWith("-")) throw new GitError(`"${ref}" is not a git reference (it starts with "-").`);
  let base: string;
  try {
    base = git(root, ["merge-base", "--end-of-options", ref, "HEAD"]).trim();
  } catch {
    // An unknown reference, or no common ancestor (a shallow clone, unrelated histories).
    try {
      base = git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]).trim();
    } catch {
      throw new GitError(`"${ref}" is not a commit of this repository (git rev-parse found none). Fetch it first (actions/checkout: fetch-depth: 0), or name a branch, tag or commit that exists.`);
    }
  }
  const changed = new Set(untracked);
  const deleted: string[] = [];
  const fields = nulList(git(root, ["diff", "--name-status", "-z", "--no-renames", base, "--"]));
  for (let i = 0; i + 1 < fields.length; i += 2) {
    changed.add(fields[i + 1]!);
    if (fields[i] === "D") deleted.push(fields[i + 1]!);
  }
  return { base, changed: [...changed].sort(), deleted: deleted.sort() };
}

/** A file's text at a commit, or undefined when it is not there. */
export function fileAt(root: string, commit: string, path: string): string | undefined {
  try {
    return git(root, ["show", `${commit}:${path}`]);
  } catch {
    return undefined;
  }
}
