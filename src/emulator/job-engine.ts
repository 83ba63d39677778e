/**
 * Batch job lifecycle (spec 2.6, 3, 4.8), shared by the jobs area (`POST /run`) and the cronjobs
 * area (scheduled runs and `user-run`). Time comes from the emulator clock and progress is lazy:
 * every read, and every `tick`, moves a job through the transitions that are due by "now".
 *
 * Timeline of a job submitted at `t0`:
 * - `t0`: PENDING ("Job submitted"),
 * - `t0 + 1 s`: RUNNING on a fresh instance; heartbeats every 10 s while running,
 * - `t0 + 1 s + duration`: SUCCEEDED, or FAILED when the config asks for it.
 *
 * Emulator hint: `config.emulator = {duration_s?: number (default 30), fail?: boolean, error?: string}`.
 * A job that runs a UDF (a cronjob's, or a config's `udf_id` / `udf`) runs it for real: see
 * `job-udf-run.ts`; it stays RUNNING while the process runs, and its duration is the real run time.
 * Every transition adds one status-history entry and log lines stamped with the transition time
 * (not the time of the read), so histories are the same however often the job is polled.
 */
import { createHash, randomBytes } from "node:crypto";
import { badRequest, invalid, notFound } from "./http-error";
import { newId } from "./catalog";
import { ObjectStore, parseStoragePath } from "./object-store";
import { parseJson, type Store } from "./store";
import { canonicalJson } from "../canonical-json";
import {
  JOB_UDF_DDL,
  abortUdfRun,
  isInFlight,
  jobOutputPrefix,
  jobUdf,
  startUdfRun,
  udfRunState,
  type JobRunEnv,
} from "./job-udf-run";

/** What the lifecycle needs: the store, the object store folder the outputs are written to, and the UDF runner's settings. */
export type JobEnv = JobRunEnv;

export const JOBS_DDL = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL, user_id TEXT, service_account_id TEXT, cronjob_id TEXT, udf_id TEXT,
  udf_args TEXT, config TEXT, config_hash TEXT, instance_id TEXT, instance_type TEXT NOT NULL, disk_size_gb INTEGER NOT NULL,
  region TEXT NOT NULL, send_status_email INTEGER NOT NULL, status TEXT NOT NULL, status_date TEXT NOT NULL,
  first_heartbeat TEXT, last_heartbeat TEXT, submitted_ms INTEGER NOT NULL, started_ms INTEGER, finished_ms INTEGER,
  duration_ms INTEGER NOT NULL, fail_reason TEXT
);
CREATE INDEX IF NOT EXISTS jobs_env ON jobs(env_id, submitted_ms);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs(user_id, submitted_ms);
CREATE INDEX IF NOT EXISTS jobs_open ON jobs(status) WHERE status IN ('PENDING', 'RUNNING');
CREATE TABLE IF NOT EXISTS job_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, job_id TEXT NOT NULL, job_status TEXT NOT NULL,
  job_status_description TEXT, date_updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_events_job ON job_events(job_id, id);
CREATE TABLE IF NOT EXISTS job_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, job_id TEXT NOT NULL, timestamp_ms INTEGER NOT NULL, message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_logs_job ON job_logs(job_id, timestamp_ms, id);
${JOB_UDF_DDL}`;

export const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELED"]);
export const START_DELAY_MS = 1000;
export const HEARTBEAT_MS = 10_000;
export const DEFAULT_DURATION_MS = 30_000;
export const DEFAULTS = { instanceType: "m5.xlarge", diskSizeGb: 100, region: "us-west-2" };

export interface JobRow {
  id: string;
  env_id: string;
  user_id: string | null;
  service_account_id: string | null;
  cronjob_id: string | null;
  udf_id: string | null;
  udf_args: string | null;
  config: string | null;
  config_hash: string | null;
  instance_id: string | null;
  instance_type: string;
  disk_size_gb: number;
  region: string;
  send_status_email: number;
  status: string;
  status_date: string;
  first_heartbeat: string | null;
  last_heartbeat: string | null;
  submitted_ms: number;
  started_ms: number | null;
  finished_ms: number | null;
  duration_ms: number;
  fail_reason: string | null;
}

export interface SubmitInput {
  envId: string;
  userId?: string;
  serviceAccountId?: string;
  cronjobId?: string;
  udfId?: string;
  udfArgs?: Record<string, unknown> | null;
  /** The submitted configuration; absent for cronjob runs (no config is stored). */
  config?: Record<string, unknown>;
  instanceType?: string;
  diskSizeGb?: number;
  region?: string;
  sendStatusEmail?: boolean;
  /** Submission time (a scheduled run is submitted at its due minute). */
  at: Date;
  /** Makes the run fail with this description (e.g. the cronjob's UDF no longer exists). */
  failReason?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

export const configHash = (config: unknown) => createHash("sha256").update(canonicalJson(config)).digest("hex");

/** Reads the emulator hint of a config; 422 under `body.config.emulator` when malformed. */
export function emulatorHint(config: Record<string, unknown> | undefined): {
  durationMs: number;
  fail?: string;
  explicit?: boolean;
} {
  const hint = config?.emulator;
  if (hint === undefined) return { durationMs: DEFAULT_DURATION_MS };
  if (hint === null || typeof hint !== "object" || Array.isArray(hint)) {
    throw invalid("body", ["config", "emulator"], "Input should be a valid dictionary", "dict_type");
  }
  const h = hint as { duration_s?: unknown; fail?: unknown; error?: unknown };
  let durationMs = DEFAULT_DURATION_MS;
  if (h.duration_s !== undefined) {
    if (
      typeof h.duration_s !== "number" ||
      !Number.isFinite(h.duration_s) ||
      h.duration_s < 0 ||
      h.duration_s > 7 * 86400
    ) {
      throw invalid(
        "body",
        ["config", "emulator", "duration_s"],
        "duration_s must be a number of seconds from 0 to 604800",
        "value_error",
      );
    }
    durationMs = Math.round(h.duration_s * 1000);
  }
  if (h.fail !== undefined && typeof h.fail !== "boolean") {
    throw invalid("body", ["config", "emulator", "fail"], "Input should be a valid boolean", "bool_type");
  }
  const fail = h.fail
    ? typeof h.error === "string" && h.error
      ? h.error
      : "The job's step raised an error"
    : undefined;
  return { durationMs, fail, explicit: h.duration_s !== undefined };
}

function addEvent(store: Store, jobId: string, status: string, description: string, atMs: number): void {
  store.run(
    "INSERT INTO job_events (job_id, job_status, job_status_description, date_updated) VALUES (?, ?, ?, ?)",
    jobId,
    status,
    description,
    iso(atMs),
  );
}

function addLog(store: Store, jobId: string, atMs: number, ...messages: string[]): void {
  for (const m of messages)
    store.run("INSERT INTO job_logs (job_id, timestamp_ms, message) VALUES (?, ?, ?)", jobId, atMs, m);
}

export function jobById(store: Store, id: string): JobRow | undefined {
  return store.get<JobRow>("SELECT * FROM jobs WHERE id = ?", id);
}

/** Creates a PENDING job (status entry and first log line included). */
export function submitJob(store: Store, input: SubmitInput): JobRow {
  const id = newId();
  const at = input.at.getTime();
  const hint = emulatorHint(input.config);
  const fail = input.failReason ?? hint.fail ?? null;
  const config = input.config === undefined ? null : JSON.stringify(input.config);
  store.run(
    `INSERT INTO jobs (id, env_id, user_id, service_account_id, cronjob_id, udf_id, udf_args, config, config_hash, instance_type,
       disk_size_gb, region, send_status_email, status, status_date, submitted_ms, duration_ms, fail_reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?)`,
    id,
    input.envId,
    input.userId,
    input.serviceAccountId,
    input.cronjobId,
    input.udfId,
    input.udfArgs == null ? null : JSON.stringify(input.udfArgs),
    config,
    config === null ? null : configHash(input.config),
    input.instanceType ?? DEFAULTS.instanceType,
    input.diskSizeGb ?? DEFAULTS.diskSizeGb,
    input.region ?? DEFAULTS.region,
    input.sendStatusEmail ?? true,
    iso(at),
    at,
    hint.durationMs,
    fail,
  );
  const what = input.cronjobId ? `cronjob ${input.cronjobId} (UDF ${input.udfId})` : "submitted configuration";
  addEvent(store, id, "PENDING", "Job submitted; waiting for an instance", at);
  addLog(store, id, at, `Job ${id} submitted: ${what}`, "Waiting for an instance");
  return jobById(store, id)!;
}

/** Applies every transition due by `now`; returns the current row. */
export function advanceJob(env: JobEnv, job: JobRow, now: Date): JobRow {
  if (TERMINAL.has(job.status)) return job;
  const store = env.store;
  const nowMs = now.getTime();
  const startAt = job.submitted_ms + START_DELAY_MS;
  if (nowMs < startAt) return job;
  let row = job;
  if (row.status === "PENDING") {
    const instance = `i-${randomBytes(8).toString("hex")}`;
    store.run(
      "UPDATE jobs SET status = 'RUNNING', status_date = ?, instance_id = ?, started_ms = ?, first_heartbeat = ?, last_heartbeat = ? WHERE id = ?",
      iso(startAt),
      instance,
      startAt,
      iso(startAt),
      iso(startAt),
      row.id,
    );
    addEvent(store, row.id, "RUNNING", `Running on instance ${instance}`, startAt);
    addLog(
      store,
      row.id,
      startAt,
      `Instance ${instance} (${row.instance_type}, ${row.disk_size_gb} GB disk) started in ${row.region}`,
      row.udf_id ? `Running UDF ${row.udf_id}` : "Running the configured steps",
    );
    row = jobById(store, row.id)!;
    const udf = row.fail_reason ? undefined : jobUdf(row);
    if (udf) {
      const hint = emulatorHint(parseJson<Record<string, unknown> | undefined>(row.config, undefined));
      startUdfRun(env, row, udf, startAt, hint.explicit ? hint.durationMs : undefined);
      row = jobById(store, row.id)!;
    }
  }
  const started = row.started_ms ?? startAt;
  const run = udfRunState(store, row.id);
  if (run?.state === "running") {
    if (isInFlight(store, row.id)) {
      // The UDF still runs: the job runs on, heartbeating, whatever the clock says.
      const beat = started + Math.floor((nowMs - started) / HEARTBEAT_MS) * HEARTBEAT_MS;
      if (iso(beat) !== row.last_heartbeat)
        store.run("UPDATE jobs SET last_heartbeat = ? WHERE id = ?", iso(beat), row.id);
      return jobById(store, row.id)!;
    }
    const lost = "The emulator stopped while the UDF ran; the run was lost";
    store.run(
      "UPDATE jobs SET duration_ms = ?, fail_reason = ? WHERE id = ?",
      Math.max(1, nowMs - started),
      lost,
      row.id,
    );
    store.run("UPDATE job_udf_runs SET state = 'done' WHERE job_id = ?", row.id);
    row = jobById(store, row.id)!;
  }
  const endAt = started + row.duration_ms;
  const beatUpTo = Math.min(nowMs, endAt);
  const lastBeat = started + Math.floor((beatUpTo - started) / HEARTBEAT_MS) * HEARTBEAT_MS;
  if (iso(lastBeat) !== row.last_heartbeat)
    store.run("UPDATE jobs SET last_heartbeat = ? WHERE id = ?", iso(lastBeat), row.id);
  if (nowMs >= endAt) {
    const status = row.fail_reason ? "FAILED" : "SUCCEEDED";
    store.run(
      "UPDATE jobs SET status = ?, status_date = ?, finished_ms = ?, last_heartbeat = ? WHERE id = ?",
      status,
      iso(endAt),
      endAt,
      iso(endAt),
      row.id,
    );
    if (row.fail_reason) {
      addEvent(store, row.id, status, row.fail_reason, endAt);
      addLog(store, row.id, endAt, `ERROR: ${row.fail_reason}`, `Instance ${row.instance_id} terminated`, "Job failed");
    } else {
      const n = run ? run.outputs : writeOutputs(env, row, endAt);
      addEvent(store, row.id, status, "Job completed successfully", endAt);
      addLog(
        store,
        row.id,
        endAt,
        `Wrote ${n} output object(s)`,
        `Instance ${row.instance_id} terminated`,
        "Job succeeded",
      );
    }
  }
  return jobById(store, row.id)!;
}

/** Advances every unfinished job (of one environment, or all). */
export function advanceOpenJobs(env: JobEnv, now: Date, envId?: string): void {
  const store = env.store;
  const open = envId
    ? store.all<JobRow>("SELECT * FROM jobs WHERE status IN ('PENDING', 'RUNNING') AND env_id = ?", envId)
    : store.all<JobRow>("SELECT * FROM jobs WHERE status IN ('PENDING', 'RUNNING')");
  for (const j of open) advanceJob(env, j, now);
}

/** A job of the environment, advanced to `now`; 404 when absent or another environment's. */
export function jobInEnv(env: JobEnv, id: string, envId: string, now: Date): JobRow {
  const j = jobById(env.store, id);
  if (!j || j.env_id !== envId) throw notFound(`Job ${id} not found in this execution environment`);
  return advanceJob(env, j, now);
}

/** Spec 3: a job not finished and not canceled becomes CANCELED, its instance terminated; else 400. */
export function cancelJob(env: JobEnv, job: JobRow, now: Date): JobRow {
  const store = env.store;
  const j = advanceJob(env, job, now);
  if (j.status === "CANCELED") throw badRequest(`Job ${j.id} is already canceled`);
  if (TERMINAL.has(j.status))
    throw badRequest(
      `Job ${j.id} has already finished with status ${j.status}; only a running or pending job can be canceled`,
    );
  const at = now.getTime();
  store.run("UPDATE jobs SET status = 'CANCELED', status_date = ?, finished_ms = ? WHERE id = ?", iso(at), at, j.id);
  abortUdfRun(store, j.id);
  addEvent(store, j.id, "CANCELED", "Canceled on request; instance terminated", at);
  addLog(
    store,
    j.id,
    at,
    "Cancel requested",
    j.instance_id ? `Instance ${j.instance_id} terminated` : "No instance was started",
    "Job canceled",
  );
  return jobById(store, j.id)!;
}

const common = (j: JobRow) => ({
  instance_id: j.instance_id,
  instance_type: j.instance_type,
  disk_size_gb: j.disk_size_gb,
  job_status: j.status,
  job_status_date: j.status_date,
  first_heartbeat: j.first_heartbeat,
  last_heartbeat: j.last_heartbeat,
});

/** Run summary (submit, status, cancel, cronjob user-run). */
export function runSummary(j: JobRow) {
  return {
    job_id: j.id,
    execution_environment_id: j.env_id,
    ...common(j),
    region: j.region,
    send_status_email: j.send_status_email === 1,
    submitted_at: iso(j.submitted_ms),
  };
}

/** Job record (listings and `/job/by-id`). */
export function jobRecord(j: JobRow) {
  return {
    id: j.id,
    execution_environment_id: j.env_id,
    user_id: j.user_id,
    service_account_id: j.service_account_id,
    cronjob_id: j.cronjob_id,
    udf_id: j.udf_id,
    udf_args: parseJson<Record<string, unknown> | null>(j.udf_args, null),
    ...common(j),
    region: j.region,
    send_status_email: j.send_status_email === 1,
    has_config: j.config !== null,
    created_at: iso(j.submitted_ms),
    started_at: j.started_ms === null ? null : iso(j.started_ms),
    finished_at: j.finished_ms === null ? null : iso(j.finished_ms),
  };
}

const outputPrefix = (store: Store, j: JobRow) => jobOutputPrefix(store, j);

/**
 * Writes what a succeeded job produced into the emulator's object store (so the files endpoints
 * see it too): one to three `part-NNNNN.json` objects and an empty `_SUCCESS` marker. Returns the count.
 */
function writeOutputs(env: JobEnv, j: JobRow, finishedMs: number): number {
  const seed = createHash("sha256").update(j.id).digest();
  const parts = 1 + (seed[0] % 3);
  const objects = new ObjectStore(env.objectsDir, env.store);
  const at = new Date(finishedMs);
  const prefix = outputPrefix(env.store, j);
  const files: [string, Buffer, string][] = [];
  for (let i = 0; i < parts; i++) {
    const rows = Array.from({ length: 1 + seed[1 + i] }, (_, r) => ({ row: r, part: i }));
    const body = { job_id: j.id, part: i, udf_id: j.udf_id, udf_args: parseJson(j.udf_args, null), rows };
    files.push([`part-${String(i).padStart(5, "0")}.json`, Buffer.from(JSON.stringify(body)), "application/json"]);
  }
  files.push(["_SUCCESS", Buffer.alloc(0), "application/octet-stream"]);
  for (const [name, bytes, type] of files) objects.write(parseStoragePath(prefix + name), bytes, type, at);
  return files.length;
}

/**
 * Results listing: `[{url, file_name, size, last_modified}]` of the objects under
 * `<env bucket>/jobs/<job_id>/` as they are now; empty until the job succeeded.
 */
export function jobResults(env: JobEnv, j: JobRow) {
  if (j.status !== "SUCCEEDED") return [];
  const prefix = parseStoragePath(outputPrefix(env.store, j));
  return new ObjectStore(env.objectsDir, env.store).listAll(prefix).map((o) => {
    const url = `${prefix.scheme}://${prefix.bucket}/${o.key}`;
    return {
      url,
      file_name: o.key.slice(o.key.lastIndexOf("/") + 1),
      size: o.size,
      last_modified: o.lastModified.toISOString(),
    };
  });
}
