/**
 * Runs UDF code for real in a `python3` subprocess (the emulator's real-time runs, the shared-UDF
 * host and batch jobs all go through here), or describes a UDF's entrypoint without running it.
 *
 * Each call spawns one process running `python/svc_udf_runner.py` of this package: the request goes
 * in on stdin, the answer comes back on file descriptor 3, and the UDF's own stdout and stderr are
 * captured as they are. On Linux the runner supervises the UDF from a subreaper process, so every
 * process a run starts (in its own session or double-forked too) ends with the run, whether it
 * finished, hit the time limit or was stopped. Nothing is spawned before the first call, so the emulator starts as fast
 * without Python as with it.
 */
import { packageFile } from "../../package-files";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pythonEnvironment, resolvePython } from "../../python-interpreter";
import type {
  UdfDescribeRequest,
  UdfDescribeResult,
  UdfDescription,
  UdfParameter,
  UdfRunFailure,
  UdfRunRequest,
  UdfRunResult,
} from "./types";

/** The runner script, found from `src/emulator/udf-runner` and `dist/emulator/udf-runner` alike. */
export const RUNNER_SCRIPT =
  packageFile(join("python", "svc_udf_runner.py")) ?? join(__dirname, "..", "..", "..", "python", "svc_udf_runner.py");

/** Whether the runner script is installed (a single-file bundle, such as the GitHub Action's, has none). */
let scriptPresent: boolean | undefined;
const runnerScriptPresent = () => (scriptPresent ??= existsSync(RUNNER_SCRIPT));

/** Default run time limit in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How long the runner's supervisor gets to end the run's processes before its whole group is killed. */
const STOP_GRACE_MS = 2_000;

/** Most bytes of stdout, and of stderr, kept per run (the rest is dropped, with a marker). */
const MAX_STREAM_BYTES = 1024 * 1024;

/** Output formats the runner can serialize, with the content type of each. */
export const UDF_OUTPUT_FORMATS = ["json", "csv"] as const;
export type UdfOutputFormat = (typeof UDF_OUTPUT_FORMATS)[number];

interface RawOutcome {
  answer: Record<string, unknown> | undefined;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Stopped through the caller's abort signal. */
  stopped: boolean;
  exitCode: number | null;
  spawnError?: NodeJS.ErrnoException;
}

/** Collects a stream up to `MAX_STREAM_BYTES`. */
function collector() {
  const parts: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    push(b: Buffer) {
      const room = MAX_STREAM_BYTES - size;
      if (room <= 0) return void (dropped += b.length);
      parts.push(room >= b.length ? b : b.subarray(0, room));
      size += Math.min(room, b.length);
      dropped += Math.max(0, b.length - room);
    },
    text: () => Buffer.concat(parts).toString("utf8") + (dropped ? `\n[... ${dropped} more bytes not kept]` : ""),
  };
}

interface ExecOptions {
  python: string;
  timeoutMs: number;
  cwd?: string;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

/** One runner process: request on stdin, answer on fd 3, killed (with its children) at the limit or on abort. */
async function execRunner(request: object, o: ExecOptions): Promise<RawOutcome> {
  const started = performance.now();
  const none = {
    answer: undefined,
    stdout: "",
    stderr: "",
    durationMs: 0,
    timedOut: false,
    stopped: false,
    exitCode: null,
  };
  if (o.signal?.aborted) return { ...none, stopped: true };
  if (!runnerScriptPresent())
    return { ...none, spawnError: Object.assign(new Error(`${RUNNER_SCRIPT} is missing`), { code: "ENOSCRIPT" }) };
  const resolved = await resolvePython(o.python);
  if (!resolved.ok) return { ...none, spawnError: resolved.error };
  return new Promise((resolve) => {
    const child = spawn(resolved.executable, ["-u", RUNNER_SCRIPT], {
      cwd: o.cwd,
      env: { ...pythonEnvironment(), ...o.env },
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      detached: true, // own process group: the time limit kills whatever the UDF started too
    });
    const out = collector();
    const err = collector();
    const answerParts: Buffer[] = [];
    let timedOut = false;
    let stopped = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    // SIGTERM asks the runner's supervisor (which runs no UDF code) to kill every process the run
    // started, those that left the group included; the group's SIGKILL after a grace period is the
    // fallback should it not manage (or where there is no supervisor: not Linux).
    let backstop: NodeJS.Timeout | undefined;
    const stop = () => {
      if (backstop) return;
      child.kill("SIGTERM");
      backstop = setTimeout(killGroup, STOP_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = () => {
      stopped = true;
      stop();
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout!.on("data", (b: Buffer) => out.push(b));
    child.stderr!.on("data", (b: Buffer) => err.push(b));
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (b: Buffer) => answerParts.push(b));
    child.stdin!.on("error", () => {}); // a UDF process that died early closes stdin; the exit says why
    child.on("error", (e) => (spawnError = e));
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      clearTimeout(backstop);
      o.signal?.removeEventListener("abort", onAbort);
      let answer: Record<string, unknown> | undefined;
      try {
        answer = JSON.parse(Buffer.concat(answerParts).toString("utf8"));
      } catch {
        answer = undefined;
      }
      const durationMs = Math.round(performance.now() - started);
      resolve({ answer, stdout: out.text(), stderr: err.text(), durationMs, timedOut, stopped, exitCode, spawnError });
    });
    child.stdin!.end(JSON.stringify(request));
  });
}

function failure(raw: RawOutcome, timeoutMs: number): UdfRunFailure {
  const base = { stdout: raw.stdout, stderr: raw.stderr, durationMs: raw.durationMs };
  if (raw.spawnError) {
    if (raw.spawnError.code === "ENOSCRIPT") {
      return {
        ok: false,
        kind: "no-python",
        message:
          "This build of svc-iac does not include its UDF runner (python/svc_udf_runner.py); run UDFs with the installed package",
        ...base,
      };
    }
    const why = raw.spawnError.code === "ENOENT" ? "was not found" : `could not be started (${raw.spawnError.message})`;
    return {
      ok: false,
      kind: "no-python",
      message: `The Python interpreter ${why}; UDF runs need python3 (choose one with --python PATH)`,
      ...base,
    };
  }
  if (raw.stopped)
    return { ok: false, kind: "stopped", message: "The UDF run was stopped before it finished", ...base };
  if (raw.timedOut)
    return {
      ok: false,
      kind: "timeout",
      message: `The UDF run exceeded the time limit of ${timeoutMs / 1000} s and was stopped`,
      ...base,
    };
  const a = raw.answer;
  if (a && a.ok === false)
    return {
      ok: false,
      kind: "exception",
      message: String(a.message),
      traceback: typeof a.traceback === "string" ? a.traceback : undefined,
      ...base,
    };
  return {
    ok: false,
    kind: "exception",
    message: `The UDF process ended (exit code ${raw.exitCode}) before returning a result`,
    traceback: raw.stderr || undefined,
    ...base,
  };
}

/**
 * Runs a UDF body once.
 *
 * Resolves (never rejects) with the decoded output, or a failure whose `kind` says why:
 * `exception` (the UDF raised: `traceback` starts in the UDF's code), `timeout` (the process and
 * its children were killed at `timeoutMs`), `stopped` (killed because `signal` was aborted, e.g. a
 * cancelled job or a closing emulator), `no-python` (the interpreter is missing).
 *
 * @example
 * const r = await runUdf({ body: { code: "@fused.udf\ndef udf(n: int = 1):\n    return {'n': n}\n" }, parameters: { n: "2" } });
 * if (r.ok) r.value; // { n: 2 }
 */
export async function runUdf(req: UdfRunRequest): Promise<UdfRunResult> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const format = req.format ?? "json";
  const raw = await execRunner(
    {
      mode: "run",
      name: req.body.name,
      code: req.body.code,
      entrypoint: req.body.entrypoint ?? "udf",
      headers: req.body.headers ?? [],
      parameters: req.parameters ?? {},
      tile: req.tile ?? null,
      format,
    },
    { python: req.python ?? "python3", timeoutMs, cwd: req.cwd, env: req.env, signal: req.signal },
  );
  const a = raw.answer;
  if (raw.spawnError || raw.timedOut || raw.stopped || !a || a.ok !== true) return failure(raw, timeoutMs);
  const outputText = String(a.output);
  const contentType = String(a.content_type);
  return {
    ok: true,
    outputText,
    contentType,
    value: contentType.startsWith("application/json") ? JSON.parse(outputText) : outputText,
    cacheMaxAgeSeconds: typeof a.cache_max_age === "number" ? a.cache_max_age : null,
    stdout: raw.stdout,
    stderr: raw.stderr,
    durationMs: raw.durationMs,
  };
}

/**
 * Reads the entrypoints of several UDFs in one process (parameters with annotation, JSON type and
 * literal default; docstring; the decorator's `cache_max_age`) with Python's `ast`, without
 * executing their code. Answers one entry per body, in order: a body that does not parse gets an
 * `exception` failure of its own. The whole call fails only when Python does (`no-python`, `timeout`).
 */
export async function describeUdfs(req: UdfDescribeRequest): Promise<UdfDescribeResult> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const udfs = req.bodies.map((b) => ({ name: b.name, code: b.code, entrypoint: b.entrypoint ?? "udf" }));
  const raw = await execRunner(
    { mode: "describe", udfs },
    { python: req.python ?? "python3", timeoutMs, signal: req.signal },
  );
  const a = raw.answer;
  if (raw.spawnError || raw.timedOut || raw.stopped || !a || a.ok !== true || !Array.isArray(a.udfs))
    return failure(raw, timeoutMs);
  const base = { stdout: raw.stdout, stderr: raw.stderr, durationMs: raw.durationMs };
  const descriptions = (a.udfs as Record<string, unknown>[]).map((d): UdfDescription | UdfRunFailure =>
    d.ok === true
      ? {
          ok: true,
          parameters: (d.parameters as UdfParameter[]) ?? [],
          doc: typeof d.doc === "string" ? d.doc : null,
          cacheMaxAgeSeconds: typeof d.cache_max_age === "number" ? d.cache_max_age : null,
        }
      : { ok: false, kind: "exception", message: String(d.message), ...base },
  );
  return { ok: true, descriptions };
}
