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
import { packageFile } from "../../package-files";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
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
  /** A helper module: its module name. */
  module?: string;
  /** A helper module the UDF's code never names: a problem in it is a warning, not an error. */
  unusedHelper?: boolean;
}

export interface PythonCheckResult {
  errors: LoadError[];
  /** Why the check did not run (no interpreter); undefined when it ran or was turned off. */
  warning?: string;
  /** Problems of helper modules no UDF's code names: deployed as they are. */
  warnings?: string[];
}

/** The interpreter to use, or undefined when `SVC_PYTHON` is set and empty (the check is off). */
export function pythonFor(env: Record<string, string | undefined>): string | undefined {
  const chosen = env.SVC_PYTHON;
  if (chosen === undefined) return "python3";
  return chosen.trim() === "" ? undefined : chosen;
}

/** Where the checker script is: beside `dist/` or `src/` in the package, or beside a bundle (the command line's, the Action's). */
function checkerScript(): string | undefined {
  return packageFile(path.join("python", "svc_check_python.py"));
}

/** The most the checker may print (a problem per file of a very large repository fits many times over). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** A parse of a whole repository takes seconds at most; past this the check is abandoned with a warning. */
const TIMEOUT_MS = 120_000;

/** What the check runs with once the interpreter is known. */
interface CheckerSetup {
  executable: string;
  script: string;
  cache?: PythonCheckCache;
}

/** A source as the checker gets it, one JSON line each. */
interface CheckerItem {
  file: string;
  code: string;
  entrypoint?: string;
}

/**
 * The Python check of one load, fed as the loader reads the files ({@link PythonCheck.push}), so
 * Python parses while the rest is read: the interpreter is looked up at once, and the checker
 * process starts at the first file the cache does not know (never, when every file passed
 * before). {@link PythonCheck.finish} ends its input and gives every problem. A file read as a
 * helper module and as a UDF's main file is sent as both (the second check adds the entrypoint's);
 * a problem found twice is reported once. With `root` (the project folder), passes are kept in
 * the cache folder (`python-check-cache.ts`).
 * @example
 * const check = new PythonCheck(process.env, ".");
 * check.push({ file: "canvases/a/b.py", code, entrypoint: "udf" });
 * const { errors, warning } = await check.finish();
 */
export class PythonCheck {
  private readonly errors: LoadError[] = [];
  /** The source a file's messages name: a UDF's main file over the same file as a helper. */
  private readonly byFile = new Map<string, PythonSource>();
  /** Each taken source's cache digest, by file (a file taken twice has two). */
  private readonly digests: { file: string; digest: string }[] = [];
  /** Sources taken before the interpreter is known; undefined once it is. */
  private waiting: PythonSource[] | undefined = [];
  /** Resolves once the interpreter is known (to why the check cannot run, if it cannot). */
  private readonly ready: Promise<string | undefined>;
  private setup?: CheckerSetup;
  private checker?: CheckerProcess;
  private abandoned = false;

  constructor(env: Record<string, string | undefined>, root?: string) {
    const python = pythonFor(env);
    this.ready = python ? this.prepare(python, env, root) : Promise.resolve(undefined);
    if (!python) this.waiting = undefined;
  }

  /** Takes one file as read (its code is parsed, or found in the cache, while the loader goes on). */
  push(s: PythonSource): void {
    // Whitespace only (without the copy `trim()` makes of every file).
    if (s.entrypoint !== undefined && !/\S/.test(s.code)) {
      this.errors.push({
        file: s.file,
        line: 1,
        column: 1,
        path: "",
        message: `found an empty file, expected the UDF's Python code with a function ${JSON.stringify(s.entrypoint)} (its entrypoint)`,
      });
      return;
    }
    // No checker will run (SVC_PYTHON= or no interpreter): nothing to keep.
    if (!this.waiting && !this.setup) return;
    const known = this.byFile.get(s.file);
    // A UDF's main file checks everything its check as a helper would.
    const stricter = known?.unusedHelper && !s.unusedHelper;
    if (known && (known.entrypoint !== undefined || s.entrypoint === undefined) && !stricter) return;
    this.byFile.set(s.file, s);
    if (this.waiting) this.waiting.push(s);
    else if (this.setup && !this.abandoned) this.send(this.setup, s);
  }

  /** Stops the check of a load that failed half-way: its checker is stopped, and none starts later (its open input would keep the process alive). */
  abandon(): void {
    this.abandoned = true;
    this.waiting = undefined;
    this.checker?.stop();
  }

  /** Every problem of the files pushed, once the checker has read them all. */
  async finish(): Promise<PythonCheckResult> {
    const warning = await this.ready;
    if (warning) return { errors: this.errors, warning };
    const ran = this.checker ? await this.checker.finish() : { ok: true as const, problems: [] };
    if (!ran.ok)
      return {
        errors: this.errors,
        warning: `The Python check could not run (${ran.why}): the .py files were not parsed before deploying.`,
      };
    if (this.setup?.cache) {
      const failed = new Set(ran.problems.map((p) => p.file));
      this.setup.cache.save(new Set(this.digests.filter((d) => !failed.has(d.file)).map((d) => d.digest)));
    }
    const reported = new Set<string>();
    const warnings: string[] = [];
    for (const p of ran.problems) {
      const once = `${p.file}:${p.line}:${p.column}:${p.message}`;
      if (reported.has(once)) continue;
      reported.add(once);
      const source = this.byFile.get(p.file);
      if (source?.unusedHelper) {
        warnings.push(
          `${p.file}:${p.line}:${p.column}: ${p.message} (a helper module no UDF's code names, deployed as it is)`,
        );
        continue;
      }
      const where = source?.entrypointSetAt
        ? ` (entrypoint: ${source.entrypoint} is set at ${source.entrypointSetAt})`
        : p.entrypoint
          ? ` (the default entrypoint; name another with entrypoint: in the UDF's <slug>.yaml)`
          : "";
      this.errors.push({ file: p.file, line: p.line, column: p.column, path: "", message: `${p.message}${where}` });
    }
    return { errors: this.errors, ...(warnings.length ? { warnings } : {}) };
  }

  /** Looks the interpreter up, opens the cache, then sends what waited. */
  private async prepare(
    python: string,
    env: Record<string, string | undefined>,
    root: string | undefined,
  ): Promise<string | undefined> {
    const script = checkerScript();
    const stop = (warning: string) => ((this.waiting = undefined), warning);
    if (!script)
      return stop("The Python check was skipped: this build of svc-iac does not include python/svc_check_python.py.");
    const resolved = await resolvePython(python);
    if (!resolved.ok) {
      return stop(
        `No Python interpreter found (${JSON.stringify(python)}: ${resolved.error.code ?? resolved.error.message}): the .py files were not parsed before deploying. Set SVC_PYTHON to an interpreter, or SVC_PYTHON= (empty) to skip this check without this warning.`,
      );
    }
    const identity = root !== undefined ? checkerIdentity(resolved.executable, script) : undefined;
    const cache = identity !== undefined ? PythonCheckCache.open(env, root!, identity) : undefined;
    if (this.abandoned) return undefined;
    const setup: CheckerSetup = { executable: resolved.executable, script, ...(cache ? { cache } : {}) };
    this.setup = setup;
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const s of waiting) this.send(setup, s);
    return undefined;
  }

  /** Sends `s` to the checker unless the cache knows it passed. */
  private send(setup: CheckerSetup, s: PythonSource): void {
    const digest = setup.cache ? passDigest(s.code, s.entrypoint) : "";
    this.digests.push({ file: s.file, digest });
    if (setup.cache?.passed.has(digest)) return;
    this.checker ??= new CheckerProcess(setup.executable, setup.script);
    this.checker.send({
      file: s.file,
      code: s.code,
      ...(s.entrypoint !== undefined ? { entrypoint: s.entrypoint } : {}),
    });
  }
}

interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
  entrypoint?: boolean;
}

/** `python/svc_check_python.py` in its own process, fed one JSON line per file. */
class CheckerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly result: Promise<{ ok: true; problems: Problem[] } | { ok: false; why: string }>;

  constructor(executable: string, script: string) {
    // -I: isolated (no PYTHON* variables, no user site, no current folder on sys.path). -S: no
    // `site` either: the checker needs only the standard library, and site-packages' `.pth` hooks
    // (run at every start by `site`) cost most of Python's start-up, 45 of 58 ms on this machine.
    const child = spawn(executable, ["-I", "-S", script], {
      env: pythonEnvironment(),
      stdio: ["pipe", "pipe", "pipe"],
      timeout: TIMEOUT_MS,
    });
    this.child = child;
    this.result = new Promise((resolve) => {
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
        if (code !== 0)
          return resolve({
            ok: false,
            why: signal ? `stopped by ${signal}` : `exit ${code}: ${err.trim().split("\n").pop() ?? ""}`,
          });
        try {
          resolve({ ok: true, problems: JSON.parse(Buffer.concat(out).toString("utf8")) as Problem[] });
        } catch (e) {
          resolve({ ok: false, why: `unreadable answer: ${(e as Error).message}` });
        }
      });
    });
  }

  /** Lines not yet written: written together once the loader lets other work run (one pipe write per turn, not per file). */
  private pending: string[] = [];

  send(item: CheckerItem): void {
    if (!this.pending.length) setImmediate(() => this.flush());
    this.pending.push(`${JSON.stringify(item)}\n`);
  }

  private flush(): void {
    const lines = this.pending.join("");
    this.pending = [];
    if (lines && this.child.stdin.writable) this.child.stdin.write(lines);
  }

  stop(): void {
    this.child.kill("SIGKILL");
  }

  /** Ends the input; the problems once the checker has read it all. */
  finish(): Promise<{ ok: true; problems: Problem[] } | { ok: false; why: string }> {
    this.flush();
    this.child.stdin.end();
    return this.result;
  }
}
