/**
 * Spec 4.8: batch jobs. Status values seen: PENDING, RUNNING, and the terminal SUCCEEDED, FAILED
 * and CANCELED. Shapes the spec leaves open follow the emulator (see `src/emulator/areas/jobs.ts`):
 * the run summary carries `job_id`, the job record `id`; results are `[{url, file_name, size,
 * last_modified}]`; log lines are `{timestamp_ms, message}`.
 */
import { z } from "zod";
import { ApiError, codeForStatus } from "./errors";
import { listing, type PageOptions } from "./paging";
import { JobEvent, JobRecord, RunSummary } from "./schemas";
import { loadUndici, parseBody, type Transport } from "./transport";

/** Statuses after which a job no longer changes. */
export const TERMINAL_JOB_STATUSES: ReadonlySet<string> = new Set(["SUCCEEDED", "FAILED", "CANCELED"]);

/** Run summary (submit, status, cancel): the spec's common fields plus `job_id`. */
export const JobRun = RunSummary.extend({ job_id: z.string() });
export type JobRun = z.infer<typeof JobRun>;

/** Job record (listings, `/job/by-id`): the spec's common fields plus `id`. */
export const Job = JobRecord.extend({ id: z.string() });
export type Job = z.infer<typeof Job>;

/** One object a job wrote to cloud storage. */
export const JobOutput = z.looseObject({ url: z.string(), size: z.number().int() });
export type JobOutput = z.infer<typeof JobOutput>;

/** One log line. */
export const LogLine = z.looseObject({ timestamp_ms: z.number(), message: z.string() });
export type LogLine = z.infer<typeof LogLine>;

export interface SubmitOptions {
  instanceType?: string;
  diskSizeGb?: number;
  region?: string;
  /** @default true (server side) */
  sendStatusEmail?: boolean;
  /** Reuse an identical job submitted within this many seconds instead of starting a new one. */
  cacheMaxAge?: number;
}

export interface WaitOptions {
  /** Time between polls. @default 2000 */
  pollMs?: number;
  /** Give up after this long. @default 3600000 */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function jobsApi(t: Transport) {
  const get = (jobId: string) => t.json("GET /run/by-id/{job_id}", { params: { job_id: jobId } }, JobRun);
  return {
    /**
     * `POST /run`: submits a batch job with `config` (the step description). With `cacheMaxAge`, an
     * identical config submitted within that many seconds returns the existing job and starts nothing.
     * 422 when `config` is missing or not an object. Not retried (a replay would start a second job).
     */
    submit: (config: Record<string, unknown>, opts: SubmitOptions = {}) =>
      t.json(
        "POST /run",
        {
          query: { instance_type: opts.instanceType, disk_size_gb: opts.diskSizeGb, region: opts.region },
          body: { json: { config, send_status_email: opts.sendStatusEmail, cache_max_age: opts.cacheMaxAge } },
        },
        JobRun,
      ),
    /** `GET /run/by-id/{job_id}`: the current run summary. 404 when not in the caller's environment. */
    get,
    /** `POST /run/by-id/{job_id}/cancel`: stops the job (status CANCELED). 400 when already finished or canceled; 404 when not found. */
    cancel: (jobId: string) =>
      t.json("POST /run/by-id/{job_id}/cancel", { params: { job_id: jobId }, idempotent: false }, JobRun),
    /** `GET /run/by-id/{job_id}/results`: objects the job wrote (empty until it succeeded). 404 when not found. */
    results: (jobId: string) =>
      t.json("GET /run/by-id/{job_id}/results", { params: { job_id: jobId } }, z.array(JobOutput)),
    /** `GET /job/self`: the signed-in user's jobs, newest first, page by page. A service token gets 403. */
    listSelf: (opts?: PageOptions) =>
      listing((skip, limit) => t.json("GET /job/self", { query: { skip, limit } }, z.array(Job)), opts),
    /** `GET /job/my-execution-env`: every job of the environment, newest first, page by page. */
    listExecEnv: (opts?: PageOptions) =>
      listing((skip, limit) => t.json("GET /job/my-execution-env", { query: { skip, limit } }, z.array(Job)), opts),
    /** `GET /job/by-id/{job_id}`: the job record. 404 when not in the caller's environment. */
    getRecord: (jobId: string) => t.json("GET /job/by-id/{job_id}", { params: { job_id: jobId } }, Job),
    /**
     * `GET /job/by-id/{job_id}/config`: the submitted config, following the platform's redirect to
     * cloud storage for large ones. 400 when the job has no stored config (e.g. cronjob runs); 404 when not found.
     */
    getConfig: async (jobId: string): Promise<unknown> => {
      const route = "GET /job/by-id/{job_id}/config";
      const spec = { params: { job_id: jobId }, okStatuses: [307] };
      const res = await t.send(route, spec);
      if (res.status !== 307) return t.parse(route, spec, res, z.unknown());
      const location = res.headers.location;
      const path = `/job/by-id/${encodeURIComponent(jobId)}/config`;
      if (!location)
        throw new ApiError({
          code: "unexpected_response",
          status: 307,
          method: "GET",
          path,
          message: "redirect without a location",
        });
      const r = await loadUndici().request(location, { method: "GET" });
      const body = Buffer.from(await r.body.arrayBuffer());
      const raw = { status: r.statusCode, headers: { "content-type": String(r.headers["content-type"] ?? "") }, body };
      if (r.statusCode >= 300) {
        throw new ApiError({
          code: codeForStatus(r.statusCode),
          status: r.statusCode,
          method: "GET",
          path,
          message: "reading the stored config from cloud storage failed",
        });
      }
      return parseBody(raw);
    },
    /** `GET /job/events/by-job-id/{job_id}`: status history, oldest first. 404 when not found. */
    events: (jobId: string) =>
      t.json("GET /job/events/by-job-id/{job_id}", { params: { job_id: jobId } }, z.array(JobEvent)),
    /**
     * `GET /logs/{job_id}`: every log line, oldest first; with `sinceMs` only lines stamped after it.
     * 404 when the job is not found or `region` is not the job's region.
     */
    logs: (jobId: string, opts: { sinceMs?: number; region?: string } = {}) =>
      t.json(
        "GET /logs/{job_id}",
        { params: { job_id: jobId }, query: { since_ms: opts.sinceMs, region: opts.region } },
        z.array(LogLine),
      ),
    /** `GET /logs/{job_id}/tail`: the newest `limit` lines (default 1000), newest first. 404 as for `logs`. */
    tail: (jobId: string, opts: { limit?: number; region?: string } = {}) =>
      t.json(
        "GET /logs/{job_id}/tail",
        { params: { job_id: jobId }, query: { limit: opts.limit, region: opts.region } },
        z.array(LogLine),
      ),
    /**
     * Polls `GET /run/by-id/{job_id}` until the job reaches a terminal status (SUCCEEDED, FAILED,
     * CANCELED) and returns that summary. Throws an `ApiError` with code `timeout` after `timeoutMs`,
     * and whatever `get` throws (e.g. 404).
     */
    waitForTerminal: async (jobId: string, opts: WaitOptions = {}): Promise<JobRun> => {
      const pollMs = opts.pollMs ?? 2000;
      const timeoutMs = opts.timeoutMs ?? 3_600_000;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await get(jobId);
        if (run.job_status && TERMINAL_JOB_STATUSES.has(run.job_status)) return run;
        if (Date.now() + pollMs > deadline) {
          throw new ApiError({
            code: "timeout",
            method: "GET",
            path: `/run/by-id/${encodeURIComponent(jobId)}`,
            message: `job ${jobId} did not finish within ${timeoutMs} ms (last status ${run.job_status ?? "unknown"})`,
          });
        }
        await sleep(pollMs);
      }
    },
  };
}
