/**
 * Where the rules come from: the repository's `policies.yaml` (beside svc.yaml), a file or folder
 * of rules outside it (`--policies PATH`), or `policies.yaml` at a git revision
 * (`--policies-ref REF`, so that a pull request is checked against its base branch's rules). The
 * only I/O of the policy module: files through the jail, bounded in size; git as a process with
 * its arguments as a list, bounded in time and output, with no hook, pager or filter of the
 * repository's configuration run.
 */
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import path from "node:path";
import type { LoadError } from "../model/desired";
import { RepositoryJail } from "../repository/jail";
import type { PolicySet } from "./model";
import { loadCel, readRules, type Cel } from "./rules";

/** The repository's rules file, beside svc.yaml. */
export const POLICIES_FILE = "policies.yaml";
/** Largest rules file read. */
export const MAX_POLICY_BYTES = 1024 * 1024;
/** How long `git cat-file` may take. */
const GIT_TIMEOUT_MS = 10_000;

export interface PolicySource {
  /** `--policies PATH`: a file, or a folder of `*.yaml` files, outside (or inside) the repository. */
  policies?: string;
  /** `--policies-ref REF`: `policies.yaml` at this git revision instead of the work tree's. */
  policiesRef?: string;
}

export interface PoliciesLoaded {
  /** Undefined when there are no rules (no policies.yaml). */
  set?: PolicySet;
  errors: LoadError[];
  /** Notes for the report: the work tree's rules differ from the revision's, rules missing at the revision. */
  notes: string[];
}

const atFile = (file: string, message: string): LoadError => ({ file, line: 1, column: 1, path: "", message });

function merged(sets: PolicySet[], origin: string): PolicySet {
  const digest = `sha256:${createHash("sha256")
    .update(sets.map((s) => s.digest).join("\n"))
    .digest("hex")}`;
  return { origin, digest: sets.length === 1 ? sets[0]!.digest : digest, rules: sets.flatMap((s) => s.rules) };
}

/** Reads and compiles the rules of `text`; its errors become load errors. */
function compiled(cel: Cel, file: string, text: string, origin: string, out: PoliciesLoaded): PolicySet | undefined {
  const r = readRules(cel, file, text, origin);
  if (!r.ok) {
    out.errors.push(...r.errors);
    return undefined;
  }
  return r.set;
}

/** A ref as git takes it, and nothing an option could be read from. */
const REF = /^(?!-)[A-Za-z0-9._/@{}~^:+-]{1,200}$/;

/** The repository is under review: no configuration of its own (a file-system monitor, hooks) may run a program here. */
const UNDER_REVIEW = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"];

/** `policies.yaml` at `ref` in the project folder `dir`: its text, undefined when the revision has none. */
export function gitShow(dir: string, ref: string, file = POLICIES_FILE): Promise<{ text?: string; error?: string }> {
  if (!REF.test(ref) || ref.includes(":"))
    return Promise.resolve({ error: `--policies-ref "${ref.slice(0, 80)}" is not a git revision name` });
  return new Promise((done) => {
    execFile(
      "git",
      [...UNDER_REVIEW, "--no-pager", "cat-file", "blob", `${ref}:./${file}`],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_POLICY_BYTES,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
      },
      (error, stdout, stderr) => {
        if (!error) return done({ text: stdout });
        const e = error as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === "ENOENT")
          return done({ error: "git is not installed (or not on PATH); --policies-ref needs it" });
        if (e.killed)
          return done({ error: `git took longer than ${GIT_TIMEOUT_MS / 1000} s reading ${file} at ${ref}` });
        if (/maxBuffer/i.test(e.message))
          return done({ error: `${file} at ${ref} is larger than ${MAX_POLICY_BYTES} bytes` });
        const why =
          String(stderr || e.message)
            .trim()
            .split("\n")[0] ?? "";
        if (/does not exist in|exists on disk, but not in|path .* does not exist/i.test(why)) return done({});
        done({ error: `cannot read ${file} at ${ref}: ${why.slice(0, 200)}` });
      },
    );
  });
}

/** Rule names of `a` and `b` that differ: added, removed, changed (for the note on a pull request's own rule changes). */
function ruleChanges(base: PolicySet, work: PolicySet): string[] {
  const key = (r: PolicySet["rules"][number]) =>
    JSON.stringify([r.severity, r.scope, r.match?.source, r.rule.source, r.message, r.exempt]);
  const before = new Map(base.rules.map((r) => [r.name, key(r)]));
  const after = new Map(work.rules.map((r) => [r.name, key(r)]));
  const out: string[] = [];
  for (const [n, k] of after)
    if (!before.has(n)) out.push(`added ${n}`);
    else if (before.get(n) !== k) out.push(`changed ${n}`);
  for (const n of before.keys()) if (!after.has(n)) out.push(`removed ${n}`);
  return out;
}

/** Reads the rules a command checks (see the module comment); `dir` is the project folder. */
export async function loadPolicies(dir: string, source: PolicySource = {}): Promise<PoliciesLoaded> {
  const out: PoliciesLoaded = { errors: [], notes: [] };
  const jail = RepositoryJail.forProject(dir);
  if (source.policies !== undefined) {
    const given = source.policies;
    const read = jail.readOperatorFile(given, { maxBytes: MAX_POLICY_BYTES });
    if (read.kind === "text") {
      out.set = compiled(await loadCel(), given, read.text, given, out);
      return out;
    }
    if (read.kind === "missing" && read.folder) {
      const folder = RepositoryJail.forProject(path.resolve(given));
      const listing = folder.listFolder(".");
      if (listing.kind !== "entries") {
        out.errors.push(atFile(given, `cannot read the rules folder: ${listing.message}`));
        return out;
      }
      const files = listing.entries
        .filter((e) => !e.isFolder && /\.ya?ml$/.test(e.name))
        .map((e) => e.name)
        .sort();
      if (!files.length) out.errors.push(atFile(given, "the rules folder holds no .yaml file"));
      const sets: PolicySet[] = [];
      for (const f of files) {
        const shown = path.join(given, f).split(path.sep).join("/");
        const r = folder.readText(f, { maxBytes: MAX_POLICY_BYTES });
        if (r.kind !== "text") {
          out.errors.push(atFile(shown, r.kind === "missing" ? "vanished while read" : r.message));
          continue;
        }
        const s = compiled(await loadCel(), shown, r.text, shown, out);
        if (s) sets.push(s);
      }
      if (!out.errors.length) {
        const set = merged(sets, given);
        const seen = new Set<string>();
        for (const r of set.rules) {
          if (seen.has(r.name))
            out.errors.push({
              ...r.source,
              message: `a second rule named "${r.name}" in the folder; names are unique`,
            });
          seen.add(r.name);
        }
        if (!out.errors.length) out.set = set;
      }
      return out;
    }
    out.errors.push(
      atFile(
        given,
        read.kind === "missing" ? "--policies names no file or folder" : `cannot read the rules: ${read.message}`,
      ),
    );
    return out;
  }
  const workText = jail.readText(POLICIES_FILE, { maxBytes: MAX_POLICY_BYTES });
  if (workText.kind === "refused") {
    out.errors.push({
      ...atFile(POLICIES_FILE, workText.message),
      line: workText.line ?? 1,
      column: workText.column ?? 1,
    });
    return out;
  }
  if (source.policiesRef !== undefined) {
    const given = source.policiesRef;
    // A commit id reads as git abbreviates it.
    const ref = /^[0-9a-f]{40}$/.test(given) ? given.slice(0, 12) : given;
    const origin = `${POLICIES_FILE} at ${ref}`;
    const shown = await gitShow(jail.base, given);
    if (shown.error) {
      out.errors.push(atFile(POLICIES_FILE, `--policies-ref: ${shown.error}`));
      return out;
    }
    if (shown.text === undefined) out.notes.push(`${ref} has no ${POLICIES_FILE}: no rules were checked.`);
    else out.set = compiled(await loadCel(), `${POLICIES_FILE} (at ${ref})`, shown.text, origin, out);
    // The pull request's own rule changes are shown for review, not applied.
    if (workText.kind === "text" && out.set) {
      const work = readRules(await loadCel(), POLICIES_FILE, workText.text);
      if (work.ok && work.set.digest !== out.set.digest) {
        const changes = ruleChanges(out.set, work.set);
        out.notes.push(
          `${POLICIES_FILE} differs from ${ref}'s (${changes.length ? changes.join(", ") : "no rule changes"}): the rules of ${ref} were checked; the change takes effect once merged.`,
        );
      } else if (!work.ok)
        out.notes.push(
          `${POLICIES_FILE} in the work tree does not compile (${work.errors.length} errors); the rules of ${ref} were checked.`,
        );
    } else if (workText.kind === "text" && !out.set && shown.text === undefined)
      out.notes.push(`${POLICIES_FILE} is new in the work tree: its rules take effect once merged.`);
    return out;
  }
  if (workText.kind === "text") out.set = compiled(await loadCel(), POLICIES_FILE, workText.text, POLICIES_FILE, out);
  return out;
}

/** True when git in `dir` has the commit `ref` (a pull request's base may be missing from a shallow checkout). */
export function gitHasCommit(dir: string, ref: string): Promise<boolean> {
  if (!REF.test(ref) || ref.includes(":")) return Promise.resolve(false);
  return new Promise((done) => {
    execFile(
      "git",
      [...UNDER_REVIEW, "cat-file", "-e", `${ref}^{commit}`],
      { cwd: dir, timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" } },
      (error) => done(!error),
    );
  });
}

/** How long fetching a pull request's base commit may take. */
const FETCH_TIMEOUT_MS = 60_000;

/**
 * Fetches the one commit `sha` from the remote `origin` into the repository at `dir` (a shallow
 * checkout, as CI makes one, lacks a pull request's base): its tree only, no tags, no submodules,
 * no hook or monitor of the repository's configuration run. Resolves to why it failed, or undefined.
 */
export function gitFetchCommit(dir: string, sha: string): Promise<string | undefined> {
  if (!/^[0-9a-f]{40}$/.test(sha)) return Promise.resolve(`"${sha.slice(0, 80)}" is not a commit id`);
  return new Promise((done) => {
    execFile(
      "git",
      [
        ...UNDER_REVIEW,
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-recurse-submodules",
        "--no-write-fetch-head",
        "--depth=1",
        "origin",
        sha,
      ],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: FETCH_TIMEOUT_MS,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
      },
      (error, _stdout, stderr) => {
        if (!error) return done(undefined);
        const e = error as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === "ENOENT") return done("git is not installed (or not on PATH)");
        if (e.killed) return done(`git fetch took longer than ${FETCH_TIMEOUT_MS / 1000} s`);
        done(
          (
            String(stderr || e.message)
              .trim()
              .split("\n")
              .pop() ?? ""
          ).slice(0, 200),
        );
      },
    );
  });
}
