/**
 * Python is checked before it is deployed: every `.py` the repository deploys (UDF files and the
 * helper modules their `headers:` list) is parsed by Python's own parser, in one interpreter
 * process for the whole repository, two for more than a thousand files on two cores or more
 * (`python/svc_check_python.py`, fed one JSON line per file on stdin). It reports syntax errors at
 * `file:line:column` and a UDF whose code defines no entrypoint. Nothing is run. Empty UDF files
 * are reported here without Python.
 *
 * The interpreter is `SVC_PYTHON`, else `python3`; `SVC_PYTHON=` (set and empty) skips the check.
 * Where no interpreter can be started the check is skipped with one warning. Files that passed
 * before, unchanged, are not parsed again (`python-check-cache.ts`; given the project's folder).
 */
import { packageFile } from "../../package-files";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";
import {
  knownPython,
  learnPython,
  pythonEnvironment,
  resolvePython,
  type ResolvedPython,
} from "../../python-interpreter";
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

/** A source as the checker gets it, one JSON line each. */
interface CheckerItem {
  file: string;
  code: string;
  entrypoint?: string;
}

/**
 * The Python check of one load, fed as the loader reads the files ({@link PythonCheck.push}), so
 * Python parses while the rest is read. No file waits for the interpreter to be looked up (a shim
 * such as pyenv's takes a tenth of a second and a dozen processes to answer): the checker starts at
 * the first file the cache does not know (never, when every file passed before), as the
 * interpreter itself when it is plainly a compiled program, else through the command (the shim),
 * which starts the same one and says which it is. The cache's passes count at once when the
 * interpreter they were made with is still on disk unchanged; the command is then asked which
 * interpreter it names while the files are read, and a file they skipped is checked at the end if
 * it names another. {@link PythonCheck.finish} ends the input and gives every problem. A file read
 * as a helper module and as a UDF's main file is sent as both (the second check adds the
 * entrypoint's); a problem found twice is reported once. With `root` (the project folder), passes
 * are kept in the cache folder (`python-check-cache.ts`) under the interpreter's identity.
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
  /** Why the check cannot run (no checker script), or undefined. */
  private readonly unavailable?: string;
  /** The interpreter as configured (`SVC_PYTHON`, else `python3`); undefined when the check is off. */
  private readonly python?: string;
  private readonly script?: string;
  /** The interpreter when `python` plainly is one (a compiled program): no process is asked. */
  private readonly known?: string;
  /** What `python` names, asked when the cache's passes need confirming (see the class). */
  private readonly lookup?: Promise<ResolvedPython>;
  private readonly cache?: PythonCheckCache;
  /** The passes counted before the interpreter is confirmed (see the class). */
  private readonly early: ReadonlySet<string> = new Set();
  /** Sources those passes skipped, with their digests: checked at the end unless confirmed. */
  private readonly skippedEarly: { source: PythonSource; digest: string }[] = [];
  private checker?: CheckerPool;
  private abandoned = false;

  constructor(env: Record<string, string | undefined>, root?: string) {
    const python = pythonFor(env);
    if (!python) return;
    const script = checkerScript();
    if (!script) {
      this.unavailable =
        "The Python check was skipped: this build of svc-iac does not include python/svc_check_python.py.";
      return;
    }
    this.python = python;
    this.script = script;
    this.known = knownPython(python);
    this.cache = root !== undefined ? PythonCheckCache.open(env, root) : undefined;
    if (!this.cache) return;
    if (this.known) {
      const identity = checkerIdentity(this.known, script);
      if (identity !== undefined) this.early = this.cache.passesFor(identity);
    } else {
      this.early = this.cache.passesIfUnchanged(script);
      if (this.early.size) this.lookup = resolvePython(python);
    }
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
    // No checker will run (SVC_PYTHON=, no checker script, or a load abandoned): nothing to keep.
    if (!this.python || this.unavailable || this.abandoned) return;
    const known = this.byFile.get(s.file);
    // A UDF's main file checks everything its check as a helper would.
    const stricter = known?.unusedHelper && !s.unusedHelper;
    if (known && (known.entrypoint !== undefined || s.entrypoint === undefined) && !stricter) return;
    this.byFile.set(s.file, s);
    const digest = this.cache ? passDigest(s.code, s.entrypoint) : "";
    this.digests.push({ file: s.file, digest });
    if (this.early.has(digest)) this.skippedEarly.push({ source: s, digest });
    else this.send(s);
  }

  /** Stops the check of a load that failed half-way: its checker is stopped, and none starts later (its open input would keep the process alive). */
  abandon(): void {
    this.abandoned = true;
    this.checker?.stop();
  }

  /** Every problem of the files pushed, once the checker has read them all. */
  async finish(): Promise<PythonCheckResult> {
    if (this.unavailable) return { errors: this.errors, warning: this.unavailable };
    const { python, script } = this;
    // Nothing to check: no interpreter is needed.
    if (!python || !script || !this.digests.length) return { errors: this.errors };
    let executable = this.known;
    let identity: string | undefined;
    if (this.lookup !== undefined) {
      const found = await this.lookup;
      if (!found.ok) {
        this.checker?.stop();
        return { errors: this.errors, warning: notFound(python, found.error) };
      }
      executable = found.executable;
      // Passes another interpreter made: the files they skipped are checked now.
      identity = checkerIdentity(executable, script);
      const confirmed = identity !== undefined && this.cache ? this.cache.passesFor(identity) : new Set<string>();
      for (const { source, digest } of this.skippedEarly) if (!confirmed.has(digest)) this.send(source);
    }
    const ran: CheckerAnswer = this.checker ? await this.checker.finish() : { ok: true, problems: [] };
    if (!ran.ok) {
      if (ran.spawnError && /^(ENOENT|EACCES|ENOTDIR)$/.test(ran.spawnError.code ?? ""))
        return { errors: this.errors, warning: notFound(python, ran.spawnError) };
      return {
        errors: this.errors,
        warning: `The Python check could not run (${ran.why}): the .py files were not parsed before deploying.`,
      };
    }
    const problems = ran.problems;
    // Else the interpreter the checker ran in, as it said (the command was not asked: nothing needed
    // confirming); the next check of this process starts it directly.
    if (executable === undefined && ran.executable) learnPython(python, (executable = ran.executable));
    if (identity === undefined && executable !== undefined) identity = checkerIdentity(executable, script);
    if (this.cache && identity !== undefined) {
      const failed = new Set(problems.map((p) => p.file));
      this.cache.save(identity, new Set(this.digests.filter((d) => !failed.has(d.file)).map((d) => d.digest)));
    }
    const reported = new Set<string>();
    const warnings: string[] = [];
    for (const p of problems) {
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

  /** Sends `s` to the checker, started (as the known interpreter, else through the command) if it is not running yet. */
  private send(s: PythonSource): void {
    this.checker ??= new CheckerPool(this.known ?? this.python!, this.script!);
    this.checker.send({
      file: s.file,
      code: s.code,
      ...(s.entrypoint !== undefined ? { entrypoint: s.entrypoint } : {}),
    });
  }
}

/** The warning when `python` cannot be started. */
function notFound(python: string, error: NodeJS.ErrnoException): string {
  return `No Python interpreter found (${JSON.stringify(python)}: ${error.code ?? error.message}): the .py files were not parsed before deploying. Set SVC_PYTHON to an interpreter, or SVC_PYTHON= (empty) to skip this check without this warning.`;
}

interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
  entrypoint?: boolean;
}

/** Files sent to one checker process before a second one starts (see {@link CheckerPool}). */
const SECOND_CHECKER_AFTER = 1000;

/**
 * The checker processes of one check: one, and a second once {@link SECOND_CHECKER_AFTER} files
 * were sent and the first has said which interpreter it runs in, on a machine with two cores or
 * more, so a large repository is parsed on two cores once the loader has read it (Python's parse
 * of 10,000 files takes half a second; the loader's checks after its last read, a tenth). Files are
 * dealt in turn from then; the problems come sorted by file and place, whichever process found them.
 */
class CheckerPool {
  private readonly processes: CheckerProcess[] = [];
  private sent = 0;
  private readonly most = Math.min(2, availableParallelism());

  constructor(
    private readonly executable: string,
    private readonly script: string,
  ) {}

  send(item: CheckerItem): void {
    const first = this.processes[0];
    if (!first) this.processes.push(new CheckerProcess(this.executable, this.script));
    // Once the first has said which interpreter it runs in, started as that one: a shim's start is paid once.
    else if (this.processes.length < this.most && this.sent >= SECOND_CHECKER_AFTER && first.executable !== undefined)
      this.processes.push(new CheckerProcess(first.executable || this.executable, this.script));
    this.processes[this.sent++ % this.processes.length]!.send(item);
  }

  stop(): void {
    for (const p of this.processes) p.stop();
  }

  /** Every process's answer: the first failure, else all problems in order of file, line and column. */
  async finish(): Promise<CheckerAnswer> {
    const answers = await Promise.all(this.processes.map((p) => p.finish()));
    const failed = answers.find((a) => !a.ok);
    if (failed) return failed;
    const problems = answers.flatMap((a) => (a.ok ? a.problems : []));
    const executable = answers.map((a) => (a.ok ? a.executable : undefined)).find(Boolean);
    return {
      ok: true,
      ...(executable ? { executable } : {}),
      problems: problems.sort((a, b) =>
        a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column,
      ),
    };
  }
}

/** What the checker said (its problems, the interpreter it ran in), or why it could not run (`spawnError` when it did not start). */
type CheckerAnswer =
  | { ok: true; problems: Problem[]; executable?: string }
  | { ok: false; why: string; spawnError?: NodeJS.ErrnoException };

/** The executable the checker's first line names, once that line has come: "" when it names none; undefined before. */
function helloOf(out: readonly Buffer[]): string | undefined {
  const text = Buffer.concat(out).toString("utf8");
  const end = text.indexOf("\n");
  if (end < 0) return text.length > 4096 ? "" : undefined;
  try {
    const hello = JSON.parse(text.slice(0, end)) as { executable?: unknown };
    return typeof hello?.executable === "string" && hello.executable.startsWith("/") ? hello.executable : "";
  } catch {
    return "";
  }
}

/** `python/svc_check_python.py` in its own process, fed one JSON line per file. */
class CheckerProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  /** The interpreter the checker runs in, as its first line says (once it has said it; "" when it said nothing usable). */
  executable?: string;
  private readonly result: Promise<CheckerAnswer>;

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
        if (this.executable === undefined) this.executable = helloOf(out);
      });
      child.stderr.on("data", (c: Buffer) => {
        if (err.length < 4096) err += c.toString("utf8");
      });
      child.on("error", (e) => resolve({ ok: false, why: e.message, spawnError: e }));
      child.stdin.on("error", () => {}); // an early exit is reported by "close"
      child.on("close", (code, signal) => {
        if (code !== 0)
          return resolve({
            ok: false,
            why: signal ? `stopped by ${signal}` : `exit ${code}: ${err.trim().split("\n").pop() ?? ""}`,
          });
        try {
          const text = Buffer.concat(out).toString("utf8");
          const problems = JSON.parse(text.slice(text.indexOf("\n") + 1)) as unknown;
          if (!Array.isArray(problems)) return resolve({ ok: false, why: "unreadable answer: no list of problems" });
          resolve({
            ok: true,
            problems: problems as Problem[],
            ...(this.executable ? { executable: this.executable } : {}),
          });
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
  finish(): Promise<CheckerAnswer> {
    this.flush();
    this.child.stdin.end();
    return this.result;
  }
}
