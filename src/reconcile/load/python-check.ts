/**
 * Python is checked before it is deployed: every `.py` the repository deploys (UDF files and the
 * helper modules their `headers:` list) is parsed by Python's own parser, in ONE interpreter
 * process for the whole repository (`python/svc_check_python.py`, fed a JSON list on stdin). It
 * reports syntax errors at `file:line:column` and a UDF whose code defines no entrypoint. Nothing
 * is run. Empty UDF files are reported here without Python.
 *
 * The interpreter is `SVC_PYTHON`, else `python3`; `SVC_PYTHON=` (set and empty) skips the check.
 * Where no interpreter can be started the check is skipped with one warning. Files that passed
 * before, unchanged, are not parsed again (`python-check-cache.ts`; given the project's folder).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pythonEnvironment, resolvePython } from "../../python-interpreter";
import type { LoadError } from "../../model/desired";
import { checkerIdentity, passDigest, PythonCheckCache } from "./python-check-cache";

/** One Python file of the repository as the loader read it. */
export interface PythonSource {
  /** Relative to the project folder, `/` separators. */
  file: string;
  code: string;
  /** A UDF's main file: the function its code must define. Absent for helper modules. */
  entrypoint?: string;
  /** Where `entrypoint:` was set (`canvases/x/loader.yaml:3`), when not the default. */
  entrypointSetAt?: string;
}

export interface PythonCheckResult {
  errors: LoadError[];
  /** Why the check did not run (no interpreter); undefined when it ran or was turned off. */
  warning?: string;
}

/** The interpreter to use, or undefined when `SVC_PYTHON` is set and empty (the check is off). */
export function pythonFor(env: Record<string, string | undefined>): string | undefined {
  const chosen = env.SVC_PYTHON;
  if (chosen === undefined) return "python3";
  return chosen.trim() === "" ? undefined : chosen;
}

/** Starts looking up the interpreter `env` names (its answer is kept for {@link checkPython}); nothing when the check is off. */
export function warmPython(env: Record<string, string | undefined>): void {
  const python = pythonFor(env);
  if (python) void resolvePython(python);
}

/** Where the checker script is: beside `dist/` or `src/` in the package, or beside the Action's bundle. */
function checkerScript(): string | undefined {
  const name = path.join("python", "svc_check_python.py");
  return [path.join(__dirname, "..", "..", "..", name), path.join(__dirname, "..", name)].find((p) => existsSync(p));
}

/** The most the checker may print (a problem per file of a very large repository fits many times over). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** A parse of a whole repository takes seconds at most; past this the check is abandoned with a warning. */
const TIMEOUT_MS = 120_000;

/**
 * Checks `sources` (helper modules listed by several UDFs are checked once). With `root` (the
 * project folder), passes are kept in the cache folder and files that passed before are skipped.
 * @example
 * const r = await checkPython([{ file: "canvases/a/b.py", code, entrypoint: "udf" }], process.env, { root: "." });
 */
export async function checkPython(sources: readonly PythonSource[], env: Record<string, string | undefined>, opts: { root?: string } = {}): Promise<PythonCheckResult> {
  const errors: LoadError[] = [];
  const unique = new Map<string, PythonSource>();
  for (const s of sources) {
    if (s.entrypoint !== undefined && s.code.trim() === "") {
      errors.push({ file: s.file, line: 1, column: 1, path: "", message: `found an empty file, expected the UDF's Python code with a function ${JSON.stringify(s.entrypoint)} (its entrypoint)` });
    } else if (!unique.has(s.file) || s.entrypoint !== undefined) unique.set(s.file, s);
  }
  const python = pythonFor(env);
  if (!python || !unique.size) return { errors };
  const script = checkerScript();
  if (!script) return { errors, warning: "The Python check was skipped: this build of svc-iac does not include python/svc_check_python.py." };
  const resolved = await resolvePython(python);
  if (!resolved.ok) {
    return { errors, warning: `No Python interpreter found (${JSON.stringify(python)}: ${resolved.error.code ?? resolved.error.message}): the .py files were not parsed before deploying. Set SVC_PYTHON to an interpreter, or SVC_PYTHON= (empty) to skip this check without this warning.` };
  }
  const identity = opts.root !== undefined ? checkerIdentity(resolved.executable, script) : undefined;
  const cache = identity !== undefined ? PythonCheckCache.open(env, opts.root!, identity) : undefined;
  const digests = new Map<string, string>();
  const toParse: PythonSource[] = [];
  for (const s of unique.values()) {
    const digest = cache ? passDigest(s.code, s.entrypoint) : "";
    digests.set(s.file, digest);
    if (!cache?.passed.has(digest)) toParse.push(s);
  }
  const input = toParse.map((s) => ({ file: s.file, code: s.code, ...(s.entrypoint !== undefined ? { entrypoint: s.entrypoint } : {}) }));
  const ran = input.length ? await runChecker(resolved.executable, script, JSON.stringify(input)) : { ok: true as const, problems: [] };
  if (!ran.ok) return { errors, warning: `The Python check could not run (${ran.why}): the .py files were not parsed before deploying.` };
  if (cache) {
    const failed = new Set(ran.problems.map((p) => p.file));
    cache.save(new Set([...digests].filter(([file]) => !failed.has(file)).map(([, digest]) => digest)));
  }
  for (const p of ran.problems) {
    const source = unique.get(p.file);
    const where = source?.entrypointSetAt ? ` (entrypoint: ${source.entrypoint} is set at ${source.entrypointSetAt})` : p.entrypoint ? ` (the default entrypoint; name another with entrypoint: in the UDF's <slug>.yaml)` : "";
    errors.push({ file: p.file, line: p.line, column: p.column, path: "", message: `${p.message}${where}` });
  }
  return { errors };
}

interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
  entrypoint?: boolean;
}

function runChecker(executable: string, script: string, input: string): Promise<{ ok: true; problems: Problem[] } | { ok: false; why: string }> {
  return new Promise((resolve) => {
    // -I: isolated (no PYTHON* variables, no user site, no current folder on sys.path).
    const child = spawn(executable, ["-I", script], { env: pythonEnvironment(), stdio: ["pipe", "pipe", "pipe"], timeout: TIMEOUT_MS });
    const out: Buffer[] = [];
    let size = 0;
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_OUTPUT_BYTES) child.kill("SIGKILL");
      else out.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      if (err.length < 4096) err += c.toString("utf8");
    });
    child.on("error", (e) => resolve({ ok: false, why: e.message }));
    child.stdin.on("error", () => {}); // an early exit is reported by "close"
    child.on("close", (code, signal) => {
      if (code !== 0) return resolve({ ok: false, why: signal ? `stopped by ${signal}` : `exit ${code}: ${err.trim().split("\n").pop() ?? ""}` });
      try {
        resolve({ ok: true, problems: JSON.parse(Buffer.concat(out).toString("utf8")) as Problem[] });
      } catch (e) {
        resolve({ ok: false, why: `unreadable answer: ${(e as Error).message}` });
      }
    });
    child.stdin.end(input);
  });
}
