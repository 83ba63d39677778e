/**
 * What git says about a repository: its root, the files it tracks, and what changed since a
 * reference. Git is run as a process (`git` on PATH), with arguments passed as a list, never
 * through a shell, so a reference or a path cannot inject anything. Each call is asynchronous, so
 * a caller can run the independent ones at once (see `../commands/projects.ts`).
 */
import { SvcError } from "../../errors";
import { execFile } from "node:child_process";

export class GitError extends SvcError {
  override readonly name = "GitError";
  constructor(message: string) {
    super("git_failed", message);
  }
}

/** Largest output read from one git command (a tree of a million paths fits). */
const MAX_OUTPUT = 256 * 1024 * 1024;

interface GitFailure {
  /** The exit status; undefined when git did not run (not installed) or was killed. */
  status?: number;
  message: string;
}

/** A git command that gives no answer within this is stopped (a work tree on a hung network drive). */
const GIT_TIMEOUT_MS = 120_000;
/** `headCommit`'s bound: it runs on every recorded deployment. */
const HEAD_TIMEOUT_MS = 10_000;

/** Runs git; resolves with its stdout, or with why it failed. */
function run(
  cwd: string,
  args: string[],
  maxBuffer = MAX_OUTPUT,
  timeoutMs = GIT_TIMEOUT_MS,
): Promise<{ ok: true; stdout: string } | ({ ok: false } & GitFailure)> {
  return new Promise((done) => {
    // GIT_OPTIONAL_LOCKS=0: `git status` never takes the index lock a user's own git command may need.
    const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" };
    execFile("git", args, { cwd, encoding: "utf8", maxBuffer, timeout: timeoutMs, env }, (error, stdout, stderr) => {
      if (!error) return done({ ok: true, stdout });
      const e = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
      if (e.killed) return done({ ok: false, message: `git ${args[0]} gave no answer within ${timeoutMs / 1000} s` });
      if (e.code === "ENOENT")
        return done({ ok: false, message: "git is not installed (or not on PATH); --changed-since needs it." });
      done({
        ok: false,
        status: typeof e.code === "number" ? e.code : undefined,
        message: `git ${args[0]} failed: ${
          String(stderr || e.message)
            .trim()
            .split("\n")[0]
        }`,
      });
    });
  });
}

/** git's stdout. @throws GitError when git is missing or fails. */
async function git(cwd: string, args: string[]): Promise<string> {
  const r = await run(cwd, args);
  if (!r.ok) throw new GitError(r.message);
  return r.stdout;
}

const nulList = (text: string) => text.split("\0").filter(Boolean);

/** The work tree's root when `dir` is inside a git work tree, else undefined. */
export async function gitRoot(dir: string): Promise<string | undefined> {
  const r = await run(dir, ["rev-parse", "--show-toplevel"]);
  return (r.ok && r.stdout.trim()) || undefined;
}

export interface WorkTree {
  /** Every file git knows in the work tree: tracked, and untracked ones not ignored; from the root. */
  files: string[];
  /** The untracked ones (new files a change may add before it is committed). */
  untracked: string[];
}

/** The work tree's files, in one git process (`ls-files -t` tags each as tracked or not); `cwd` is any folder in it. */
export async function workTree(cwd: string): Promise<WorkTree> {
  const files: string[] = [];
  const untracked: string[] = [];
  for (const entry of nulList(
    await git(cwd, ["ls-files", "-z", "-t", "--full-name", "--cached", "--others", "--exclude-standard", "--", ":/"]),
  )) {
    const path = entry.slice(2);
    files.push(path);
    if (entry.startsWith("?")) untracked.push(path);
  }
  return { files, untracked };
}

/** Tracked files whose text holds `word` (one `git grep` over the work tree), from the root; `cwd` is any folder in it, `glob` is from the root. */
export async function filesMentioning(cwd: string, word: string, glob: string): Promise<string[]> {
  const r = await run(cwd, ["grep", "-l", "-z", "-F", "--full-name", "-e", word, "--", `:(top,glob)${glob}`]);
  if (r.ok) return nulList(r.stdout);
  // Exit 1: no file matches.
  if (r.status === 1) return [];
  throw new GitError(r.message);
}

export interface Changes {
  /** The commit compared against: the merge base of the reference and HEAD (as a pull request's diff). */
  base: string;
  /** Files that differ between `base` and the work tree (tracked ones; add the untracked files of {@link workTree}); from the root, sorted. */
  changed: string[];
  /** Files of `base` that are gone (deleted, or moved away): where removed projects are found. */
  deleted: string[];
}

/** What tracked files changed since `ref` (a branch, tag or commit), in two git processes; `cwd` is any folder of the work tree. @throws GitError when `ref` is not a commit or git fails. */
export async function changesSince(cwd: string, ref: string): Promise<Changes> {
  if (ref.startsWith("-")) throw new GitError(`"${ref}" is not a git reference (it starts with "-").`);
  let base: string;
  const merge = await run(cwd, ["merge-base", "--end-of-options", ref, "HEAD"]);
  if (merge.ok) base = merge.stdout.trim();
  else {
    // An unknown reference, or no common ancestor (a shallow clone, unrelated histories).
    const commit = await run(cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
    if (!commit.ok) {
      throw new GitError(
        `"${ref}" is not a commit of this repository (git rev-parse found none). Fetch it first (actions/checkout: fetch-depth: 0), or name a branch, tag or commit that exists.`,
      );
    }
    base = commit.stdout.trim();
  }
  const changed = new Set<string>();
  const deleted: string[] = [];
  const fields = nulList(await git(cwd, ["diff", "--name-status", "-z", "--no-renames", base, "--"]));
  for (let i = 0; i + 1 < fields.length; i += 2) {
    changed.add(fields[i + 1]!);
    if (fields[i] === "D") deleted.push(fields[i + 1]!);
  }
  return { base, changed: [...changed].sort(), deleted: deleted.sort() };
}

/** A file's text at a commit, or undefined when it is not there or longer than `maxBytes`. */
export async function fileAt(
  root: string,
  commit: string,
  path: string,
  maxBytes: number,
): Promise<string | undefined> {
  const r = await run(root, ["show", `${commit}:${path}`], maxBytes);
  return r.ok ? r.stdout : undefined;
}

/**
 * The commit checked out in `dir`'s work tree and whether the tree under `dir` has changes not
 * committed, leaving out `ignore` (paths relative to `dir` that the command writes itself, such
 * as a bucket policy's output file); undefined outside git.
 */
export async function headCommit(
  dir: string,
  ignore: readonly string[] = [],
): Promise<{ commit: string; dirty: boolean } | undefined> {
  // Recorded with every deployment: bounded in time, a status that takes longer says "dirty".
  // One process for the folder's place in the work tree and the commit (a line each), and the
  // status only inside a work tree with a commit: outside git, one process is started, not three.
  const head = await run(
    dir,
    ["rev-parse", "--show-prefix", "--verify", "--quiet", "HEAD"],
    MAX_OUTPUT,
    HEAD_TIMEOUT_MS,
  );
  if (!head.ok) return undefined;
  const lines = head.stdout.replace(/\n$/, "");
  const cut = lines.lastIndexOf("\n");
  const commit = lines.slice(cut + 1);
  if (cut < 0 || !/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
  const prefix = lines.slice(0, cut);
  const status = await run(
    dir,
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "."],
    16 * 1024 * 1024,
    HEAD_TIMEOUT_MS,
  );
  if (!status.ok) return { commit, dirty: true };
  const skip = new Set(ignore.map((p) => `${prefix}${p}`));
  // Entries are "XY path", a rename's original path following as an entry of its own.
  const entries = nulList(status.stdout);
  const changed: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    changed.push(e.slice(3));
    if (e[0] === "R" || e[0] === "C") changed.push(entries[++i] ?? "");
  }
  return { commit, dirty: changed.some((p) => !skip.has(p)) };
}
