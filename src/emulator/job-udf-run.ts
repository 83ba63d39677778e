/**
 * Batch jobs that run a UDF for real: a cronjob's saved UDF, or a `POST /run` config naming one
 * (`config.udf_id`, a saved UDF of the environment, or `config.udf`, an inline UDF body as an
 * object or a JSON string; with `config.udf_args` as the parameters).
 *
 * When such a job turns RUNNING (on the emulator clock), the UDF starts in a `python3` process
 * through the UDF runner, with the body the saved UDF has at that moment. The job stays RUNNING
 * until the process ends, however the clock moves; it then ends `duration` after it started,
 * where `duration` is the real run time (or `config.emulator.duration_s` when given). stdout and
 * stderr become log lines, a Python exception fails the job with its traceback in the logs, and
 * the output is written under the job's results prefix (`output.json` or `output.csv`, then
 * `_SUCCESS`). Canceling the job kills the process. Without python3 the job fails saying so. A run in flight when the emulator stopped
 * fails on the next read ("the emulator stopped while the UDF ran").
 */
import { invalid, notFound } from "./http-error";
import { udfById } from "./catalog";
import { ObjectStore, parseStoragePath } from "./object-store";
import type { EmulatorEnv } from "./route";
import { parseJson, type Store } from "./store";
import { runUdf, type UdfBodyInput, type UdfRunFailure, type UdfRunResult } from "./udf-runner";

/** What a job needs to run a UDF: the store, the object store folder, and the UDF runtime (Python, time limit, slots). */
export type JobRunEnv = Pick<EmulatorEnv, "store" | "objectsDir" | "realtime" | "log">;

export const JOB_UDF_DDL = `
CREATE TABLE IF NOT EXISTS job_udf_runs (
  job_id TEXT PRIMARY KEY, state TEXT NOT NULL, outputs INTEGER NOT NULL DEFAULT 0
);
`;

/** The UDF a job runs: saved (by id) or inline in the config. */
export type JobUdf = { kind: "saved"; udfId: string } | { kind: "inline"; body: UdfBodyInput };

interface JobLike {
  id: string;
  env_id: string;
  udf_id: string | null;
  udf_args: string | null;
  config: string | null;
  started_ms: number | null;
}

/** Runs in flight by job id, per store (one emulator, one map), each with the controller that kills it. */
const inFlight = new WeakMap<Store, Map<string, AbortController>>();
const flights = (store: Store) => {
  let m = inFlight.get(store);
  if (!m) inFlight.set(store, (m = new Map()));
  return m;
};

/** Kills the job's UDF process, if one runs (the job was canceled: spec 3, "job and its instance terminated"). */
export function abortUdfRun(store: Store, jobId: string): void {
  flights(store).get(jobId)?.abort();
}

/** A parsed UDF body, or a message saying what is wrong with it. */
export function bodyInput(raw: unknown): { ok: true; body: UdfBodyInput } | { ok: false; message: string } {
  const value = typeof raw === "string" ? parseJson<unknown>(raw, undefined) : raw;
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { ok: false, message: "a UDF body must be a JSON object with code, entrypoint and headers" };
  const b = value as Record<string, unknown>;
  if (typeof b.code !== "string" || !b.code.trim()) return { ok: false, message: "the UDF body has no code to run" };
  const headers = Array.isArray(b.headers) ? (b.headers as UdfBodyInput["headers"]) : [];
  return {
    ok: true,
    body: {
      code: b.code,
      entrypoint: typeof b.entrypoint === "string" ? b.entrypoint : "udf",
      headers,
      name: typeof b.name === "string" ? b.name : undefined,
    },
  };
}

/**
 * Checks the UDF part of a `POST /run` config (422 under `body.config.*`, 404 for an unknown saved
 * UDF) and returns the saved UDF's id and the arguments to record on the job.
 */
export function checkRunConfig(
  store: Store,
  envId: string,
  config: Record<string, unknown>,
): { udfId?: string; udfArgs?: Record<string, unknown> } {
  const args = config.udf_args;
  if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) {
    throw invalid("body", ["config", "udf_args"], "udf_args must be an object of the UDF's parameters", "dict_type");
  }
  const udfArgs = (args ?? undefined) as Record<string, unknown> | undefined;
  if (config.udf_id !== undefined && config.udf !== undefined) {
    throw invalid(
      "body",
      ["config", "udf"],
      "give either udf_id (a saved UDF) or udf (an inline UDF body), not both",
      "value_error",
    );
  }
  if (config.udf_id !== undefined) {
    if (typeof config.udf_id !== "string" || !config.udf_id)
      throw invalid("body", ["config", "udf_id"], "udf_id must be the id of a saved UDF", "string_type");
    const u = udfById(store, config.udf_id);
    if (!u || u.env_id !== envId) throw notFound(`UDF ${config.udf_id} not found in this execution environment`);
    return { udfId: u.id, udfArgs };
  }
  if (config.udf !== undefined) {
    const parsed = bodyInput(config.udf);
    if (!parsed.ok) throw invalid("body", ["config", "udf"], parsed.message, "value_error");
  }
  return { udfArgs };
}

/** The UDF a job runs, or undefined for a job that only walks through its states. */
export function jobUdf(job: JobLike): JobUdf | undefined {
  const config = parseJson<Record<string, unknown> | null>(job.config, null);
  if (config && config.udf !== undefined) {
    const parsed = bodyInput(config.udf);
    return parsed.ok ? { kind: "inline", body: parsed.body } : undefined;
  }
  return job.udf_id ? { kind: "saved", udfId: job.udf_id } : undefined;
}

/** `running` (process in flight), `done` (recorded), or undefined (not started). */
export function udfRunState(store: Store, jobId: string): { state: string; outputs: number } | undefined {
  return store.get<{ state: string; outputs: number }>(
    "SELECT state, outputs FROM job_udf_runs WHERE job_id = ?",
    jobId,
  );
}

/** True while this emulator has the job's process running (false after a restart). */
export const isInFlight = (store: Store, jobId: string) => flights(store).has(jobId);

/** Non-blank lines, each one log line. */
const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== "");

/** A failure before any process ran (the UDF is gone, its body cannot run, the job was canceled first). */
const notRun = (message: string): UdfRunFailure => ({
  ok: false,
  kind: "exception",
  message,
  stdout: "",
  stderr: "",
  durationMs: 0,
});

/** Records what the run did: log lines, duration, failure, outputs. Runs outside any request. */
function record(env: JobRunEnv, job: JobLike, startedMs: number, hintMs: number | undefined, r: UdfRunResult): void {
  const store = env.store;
  const status = store.get<{ status: string }>("SELECT status FROM jobs WHERE id = ?", job.id)?.status;
  if (status !== "RUNNING") {
    store.run("UPDATE job_udf_runs SET state = 'done' WHERE job_id = ?", job.id);
    return; // canceled meanwhile: its outcome is dropped
  }
  const duration = Math.max(1, hintMs ?? r.durationMs);
  const endAt = startedMs + duration;
  const log = (m: string) =>
    store.run("INSERT INTO job_logs (job_id, timestamp_ms, message) VALUES (?, ?, ?)", job.id, endAt, m);
  for (const l of lines(r.stdout)) log(l);
  for (const l of lines(r.stderr)) log(l);
  let outputs = 0;
  if (r.ok) {
    outputs = writeOutput(env, job, r.outputText, r.contentType, endAt);
    log(`UDF returned in ${r.durationMs} ms`);
  } else if (r.traceback) {
    for (const l of lines(r.traceback)) log(l);
  }
  store.run("UPDATE jobs SET duration_ms = ?, fail_reason = ? WHERE id = ?", duration, r.ok ? null : r.message, job.id);
  store.run("UPDATE job_udf_runs SET state = 'done', outputs = ? WHERE job_id = ?", outputs, job.id);
}

/** Writes the UDF's output and `_SUCCESS` under the job's results prefix; returns the object count. */
function writeOutput(env: JobRunEnv, job: JobLike, text: string, contentType: string, atMs: number): number {
  const objects = new ObjectStore(env.objectsDir, env.store);
  const prefix = jobOutputPrefix(env.store, job);
  const ext = contentType.startsWith("text/csv") ? "csv" : "json";
  objects.write(parseStoragePath(`${prefix}output.${ext}`), Buffer.from(text), contentType, new Date(atMs));
  objects.write(parseStoragePath(`${prefix}_SUCCESS`), Buffer.alloc(0), "application/octet-stream", new Date(atMs));
  return 2;
}

/** `<env bucket>/jobs/<job_id>/`: where a job's outputs go (its first attached bucket). */
export function jobOutputPrefix(store: Store, job: { id: string; env_id: string }): string {
  const bucket =
    store.get<{ url: string }>("SELECT url FROM buckets WHERE env_id = ? ORDER BY url LIMIT 1", job.env_id)?.url ??
    `s3://svc-jobs-${job.env_id}`;
  return `${bucket}/jobs/${job.id}/`;
}

function inTransaction(store: Store, fn: () => void): void {
  if (store.db.isTransaction) fn();
  else store.tx(fn);
}

/**
 * Starts the job's UDF (called when the job turns RUNNING). The outcome is recorded when the
 * process ends; until then {@link isInFlight} is true.
 */
export function startUdfRun(
  env: JobRunEnv,
  job: JobLike,
  udf: JobUdf,
  startedMs: number,
  hintMs: number | undefined,
): void {
  const store = env.store;
  store.run("INSERT OR REPLACE INTO job_udf_runs (job_id, state, outputs) VALUES (?, 'running', 0)", job.id);
  let body: UdfBodyInput | undefined;
  let problem: string | undefined;
  if (udf.kind === "inline") body = udf.body;
  else {
    const u = udfById(store, udf.udfId);
    if (!u || u.env_id !== job.env_id) problem = `UDF ${udf.udfId} no longer exists in this execution environment`;
    else {
      const parsed = bodyInput(u.udf_body);
      if (parsed.ok) body = parsed.body;
      else problem = `UDF ${udf.udfId}: ${parsed.message}`;
    }
  }
  if (!body) {
    record(env, job, startedMs, hintMs, notRun(problem!));
    return;
  }
  const controller = new AbortController();
  flights(store).set(job.id, controller);
  const parameters = parseJson<Record<string, unknown> | null>(job.udf_args, null) ?? {};
  const rt = env.realtime;
  const run = async (): Promise<UdfRunResult> => {
    const release = await rt.acquire(); // batch runs share the emulator's Python slots with real-time runs
    try {
      if (controller.signal.aborted) return notRun("canceled before it started");
      return await runUdf({
        body: body!,
        parameters,
        python: rt.python,
        timeoutMs: rt.timeLimitMs,
        cwd: rt.runDir(`job-${job.id}`),
        signal: controller.signal,
      });
    } finally {
      release();
    }
  };
  void run().then((r) => {
    flights(store).delete(job.id);
    try {
      inTransaction(store, () => record(env, job, startedMs, hintMs, r));
    } catch (e) {
      env.log(`recording the UDF run of job ${job.id} failed: ${(e as Error).message}`); // the emulator was closed meanwhile
    }
  });
}
