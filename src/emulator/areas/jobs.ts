/**
 * Spec 4.8: batch jobs. The lifecycle (statuses, heartbeats, history, logs, outputs) lives in
 * `job-engine.ts`; this file holds the routes.
 *
 * Shapes the spec leaves open (documented here and in the client):
 * - run summary: `{job_id, execution_environment_id, instance_id, instance_type, disk_size_gb,
 *   job_status, job_status_date, first_heartbeat, last_heartbeat, region, send_status_email, submitted_at}`;
 * - job record: `{id, execution_environment_id, user_id, service_account_id, cronjob_id, udf_id, udf_args,
 *   <common fields>, region, send_status_email, has_config, created_at, started_at, finished_at}`;
 * - results: `[{url, file_name, size, last_modified}]` of the objects under `<env bucket>/jobs/<job_id>/`, which a
 *   job writes into the emulator's object store when it succeeds (`part-NNNNN.json` and `_SUCCESS`); empty until then;
 * - logs: `[{timestamp_ms, message}]`.
 * - A stored config larger than {@link INLINE_CONFIG_MAX} bytes is answered with a 307 redirect to a
 *   signed emulator URL (the spec's "redirect to cloud storage"), valid one hour.
 * - `region` on the log endpoints must be the job's region when given (else 404: logs live where the job ran).
 * - A config that names a UDF runs it for real (see `../job-udf-run.ts`): `{udf_id: "<saved UDF id>",
 *   udf_args?: {...}}` or `{udf: <UDF body object or JSON string>, udf_args?: {...}}`; other configs
 *   only walk through the states. An unknown `udf_id` is 404, a malformed `udf` or `udf_args` 422.
 *   The results listing then holds `output.json` (or `output.csv`) and `_SUCCESS`.
 * - `cache_max_age` reuses the newest job with an identical config (key order ignored) submitted within
 *   that many seconds, unless it FAILED or was CANCELED.
 */
import { z } from "zod";
import type { Area } from "../area";
import { badRequest, forbidden, notFound } from "../http-error";
import {
  DEFAULTS,
  advanceJob,
  advanceOpenJobs,
  cancelJob,
  configHash,
  jobById,
  jobInEnv,
  jobRecord,
  jobResults,
  JOBS_DDL,
  runSummary,
  submitJob,
  type JobRow,
} from "../job-engine";
import { checkRunConfig } from "../job-udf-run";
import { bytes, caller, parseBody, parseQuery, q, redirect, type RequestContext } from "../route";

/** Larger stored configs are served through a redirect. */
export const INLINE_CONFIG_MAX = 256 * 1024;
const SIGNED_URL_MS = 3600_000;

const RunQuery = z.object({
  instance_type: z.string().min(1).optional(),
  disk_size_gb: q.int().min(1).max(65536).optional(),
  region: z.string().min(1).optional(),
});
const RunBody = z.object({
  config: z.record(z.string(), z.unknown()),
  send_status_email: z.boolean().default(true),
  cache_max_age: z.number().int().min(0).optional(),
});
const Page = z.object({ skip: q.int().min(0).default(0), limit: q.int().min(1).default(300) });
const LogsQuery = z.object({ since_ms: q.int().optional(), region: z.string().min(1).optional() });
const TailQuery = z.object({ limit: q.int().min(1).default(1000), region: z.string().min(1).optional() });

const envJob = (ctx: RequestContext) => jobInEnv(ctx.env, ctx.params.job_id, caller(ctx).envId, ctx.now());

function submit(ctx: RequestContext) {
  const p = caller(ctx);
  const query = parseQuery(ctx, RunQuery);
  const body = parseBody(ctx, RunBody);
  const now = ctx.now();
  const udf = checkRunConfig(ctx.store, p.envId, body.config);
  if (body.cache_max_age !== undefined) {
    const since = now.getTime() - body.cache_max_age * 1000;
    const candidates = ctx.store.all<JobRow>(
      "SELECT * FROM jobs WHERE env_id = ? AND config_hash = ? AND submitted_ms >= ? ORDER BY submitted_ms DESC, rowid DESC",
      p.envId,
      configHash(body.config),
      since,
    );
    for (const c of candidates) {
      const j = advanceJob(ctx.env, c, now);
      if (j.status !== "FAILED" && j.status !== "CANCELED") return runSummary(j);
    }
  }
  const job = submitJob(ctx.store, {
    envId: p.envId,
    userId: p.userId,
    serviceAccountId: p.serviceAccountId,
    config: body.config,
    udfId: udf.udfId,
    udfArgs: udf.udfArgs,
    instanceType: query.instance_type ?? DEFAULTS.instanceType,
    diskSizeGb: query.disk_size_gb ?? DEFAULTS.diskSizeGb,
    region: query.region ?? DEFAULTS.region,
    sendStatusEmail: body.send_status_email,
    at: now,
  });
  return runSummary(job);
}

function page(ctx: RequestContext, where: string, id: string) {
  const { skip, limit } = parseQuery(ctx, Page);
  advanceOpenJobs(ctx.env, ctx.now(), caller(ctx).envId);
  return ctx.store
    .all<JobRow>(
      `SELECT * FROM jobs WHERE ${where} = ? ORDER BY submitted_ms DESC, rowid DESC LIMIT ? OFFSET ?`,
      id,
      limit,
      skip,
    )
    .map(jobRecord);
}

function logJob(ctx: RequestContext, region: string | undefined): JobRow {
  const j = envJob(ctx);
  if (region !== undefined && region !== j.region)
    throw notFound(`No logs for job ${j.id} in region ${region}; the job runs in ${j.region}`);
  return j;
}

function configSignature(ctx: RequestContext, jobId: string, expires: number): string {
  return ctx.env.keys.sign(`job-config:${jobId}:${expires}`);
}

export const jobsArea: Area = {
  name: "jobs",
  ddl: JOBS_DDL,
  tick: (env) => advanceOpenJobs(env, env.clock.now()),
  routes: [
    { method: "POST", path: "/run", scope: "user_or_environment", handler: submit },
    { method: "GET", path: "/run/by-id/:job_id", scope: "environment", handler: (ctx) => runSummary(envJob(ctx)) },
    {
      method: "POST",
      path: "/run/by-id/:job_id/cancel",
      scope: "environment",
      body: "none",
      handler: (ctx) => runSummary(cancelJob(ctx.env, envJob(ctx), ctx.now())),
    },
    {
      method: "GET",
      path: "/run/by-id/:job_id/results",
      scope: "environment",
      handler: (ctx) => jobResults(ctx.env, envJob(ctx)),
    },
    { method: "GET", path: "/job/self", scope: "user", handler: (ctx) => page(ctx, "user_id", caller(ctx).userId!) },
    {
      method: "GET",
      path: "/job/my-execution-env",
      scope: "environment",
      handler: (ctx) => page(ctx, "env_id", caller(ctx).envId),
    },
    { method: "GET", path: "/job/by-id/:job_id", scope: "environment", handler: (ctx) => jobRecord(envJob(ctx)) },
    {
      method: "GET",
      path: "/job/by-id/:job_id/config",
      scope: "environment",
      handler: (ctx) => {
        const j = envJob(ctx);
        if (j.config === null) {
          const why = j.cronjob_id ? `; it was started by cronjob ${j.cronjob_id}, which runs a saved UDF` : "";
          throw badRequest(`Job ${j.id} has no stored configuration${why}`);
        }
        if (Buffer.byteLength(j.config) > INLINE_CONFIG_MAX) {
          const expires = ctx.now().getTime() + SIGNED_URL_MS;
          const sig = configSignature(ctx, j.id, expires);
          return redirect(
            `${ctx.env.origin}/_emulator/job-config/${encodeURIComponent(j.id)}?expires=${expires}&sig=${sig}`,
          );
        }
        return bytes(200, j.config, "application/json");
      },
    },
    {
      method: "GET",
      path: "/job-config/:job_id",
      scope: "public",
      host: "internal",
      handler: (ctx) => {
        const expires = Number(ctx.query.get("expires"));
        const sig = ctx.query.get("sig") ?? "";
        if (!Number.isFinite(expires) || !ctx.env.keys.verify(`job-config:${ctx.params.job_id}:${expires}`, sig)) {
          throw forbidden("The signature of this URL is invalid");
        }
        if (ctx.now().getTime() > expires) throw forbidden("This signed URL has expired");
        const j = jobById(ctx.store, ctx.params.job_id);
        if (!j || j.config === null) throw notFound("No stored configuration at this URL");
        return bytes(200, j.config, "application/json");
      },
    },
    {
      method: "GET",
      path: "/job/events/by-job-id/:job_id",
      scope: "environment",
      handler: (ctx) => {
        const j = envJob(ctx);
        return ctx.store.all(
          "SELECT id, job_id, job_status, job_status_description, date_updated FROM job_events WHERE job_id = ? ORDER BY id",
          j.id,
        );
      },
    },
    {
      method: "GET",
      path: "/logs/:job_id",
      scope: "environment",
      handler: (ctx) => {
        const query = parseQuery(ctx, LogsQuery);
        const j = logJob(ctx, query.region);
        return ctx.store.all(
          "SELECT timestamp_ms, message FROM job_logs WHERE job_id = ? AND timestamp_ms > ? ORDER BY timestamp_ms, id",
          j.id,
          query.since_ms ?? Number.MIN_SAFE_INTEGER,
        );
      },
    },
    {
      method: "GET",
      path: "/logs/:job_id/tail",
      scope: "environment",
      handler: (ctx) => {
        const query = parseQuery(ctx, TailQuery);
        const j = logJob(ctx, query.region);
        return ctx.store.all(
          "SELECT timestamp_ms, message FROM job_logs WHERE job_id = ? ORDER BY timestamp_ms DESC, id DESC LIMIT ?",
          j.id,
          query.limit,
        );
      },
    },
  ],
};
