/**
 * Spec 4.3: cronjobs (scheduled UDF runs) and their scheduler.
 *
 * Schedules are read in UTC. A minute matches when it is the cronjob's one `minute` value and every
 * other field either is empty ("every") or holds the value (day_of_month and day_of_week must both
 * match when both are given; 0 = Sunday). Each cronjob keeps `last_checked_ms`: the scheduler runs
 * every matching minute in `(last_checked_ms, now]` exactly once (one batch job per due run, submitted
 * at the due minute, setting `last_run`), then moves `last_checked_ms` to now. Disabled cronjobs only
 * move `last_checked_ms`, so enabling one never fires the minutes it missed while disabled. Updates
 * and deletes first catch the cronjob up to now, so no due run is lost or doubled by an edit.
 * Runs store no job config (`GET /job/by-id/{id}/config` answers 400 for them); a scheduled run of a
 * UDF that no longer exists is a FAILED job saying so.
 */
import { z } from "zod";
import type { Area } from "../area";
import { udfById } from "../catalog";
import { newId } from "../catalog";
import { forbidden, notFound } from "../http-error";
import { JOBS_DDL, runSummary, submitJob, type JobRow } from "../job-engine";
import type { Principal } from "../principal";
import { caller, parseBody, type RequestContext } from "../route";
import { parseJson, type Store } from "../store";

const DDL = `
CREATE TABLE IF NOT EXISTS cronjobs (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT, enabled INTEGER NOT NULL,
  minute TEXT NOT NULL, hour TEXT NOT NULL, day_of_month TEXT NOT NULL, month TEXT NOT NULL, day_of_week TEXT NOT NULL,
  udf_id TEXT NOT NULL, udf_args TEXT, last_run TEXT, last_checked_ms INTEGER NOT NULL, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cronjobs_env ON cronjobs(env_id, created_at);
CREATE INDEX IF NOT EXISTS cronjobs_udf ON cronjobs(udf_id);
`;

interface CronRow {
  id: string;
  env_id: string;
  name: string;
  description: string | null;
  enabled: number;
  minute: string;
  hour: string;
  day_of_month: string;
  month: string;
  day_of_week: string;
  udf_id: string;
  udf_args: string | null;
  last_run: string | null;
  last_checked_ms: number;
  created_at: string;
}

export interface Schedule {
  minute: number[];
  hour: number[];
  day_of_month: number[];
  month: number[];
  day_of_week: number[];
}

const values = (min: number, max: number) => z.array(z.number().int().min(min).max(max));
const fields = {
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  enabled: z.boolean(),
  minute: z
    .array(z.number().int())
    .refine((v) => v.length === 1 && v[0] >= 0 && v[0] <= 59, "minute must hold exactly one value from 0 to 59"),
  hour: values(0, 23),
  day_of_month: values(1, 31),
  month: values(1, 12),
  day_of_week: values(0, 6),
  udf: z.string().min(1),
  udf_args: z.record(z.string(), z.unknown()).nullable().optional(),
};
const CreateBody = z.object(fields);
const UpdateBody = z.object(fields).partial();

const DAY_MS = 86_400_000;

function schedule(c: CronRow): Schedule {
  return {
    minute: parseJson<number[]>(c.minute, [0]),
    hour: parseJson<number[]>(c.hour, []),
    day_of_month: parseJson<number[]>(c.day_of_month, []),
    month: parseJson<number[]>(c.month, []),
    day_of_week: parseJson<number[]>(c.day_of_week, []),
  };
}

const allows = (list: number[], v: number) => list.length === 0 || list.includes(v);

/** The first minute of `s` strictly after `afterMs` and at most `untilMs` (UTC), or undefined. */
export function nextDue(s: Schedule, afterMs: number, untilMs: number): number | undefined {
  const minute = s.minute[0] ?? 0;
  const hours = s.hour.length ? [...new Set(s.hour)].sort((a, b) => a - b) : Array.from({ length: 24 }, (_, h) => h);
  for (let day = Math.floor(afterMs / DAY_MS) * DAY_MS; day <= untilMs; day += DAY_MS) {
    const d = new Date(day);
    if (
      !allows(s.month, d.getUTCMonth() + 1) ||
      !allows(s.day_of_month, d.getUTCDate()) ||
      !allows(s.day_of_week, d.getUTCDay())
    )
      continue;
    for (const h of hours) {
      const t = day + h * 3_600_000 + minute * 60_000;
      if (t > untilMs) return undefined;
      if (t > afterMs) return t;
    }
  }
  return undefined;
}

function cronjobJson(c: CronRow) {
  const s = schedule(c);
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    execution_environment_id: c.env_id,
    enabled: c.enabled === 1,
    minute: s.minute,
    hour: s.hour,
    day_of_month: s.day_of_month,
    month: s.month,
    day_of_week: s.day_of_week,
    udf: c.udf_id,
    udf_args: parseJson<Record<string, unknown> | null>(c.udf_args, null),
    last_run: c.last_run,
  };
}

const cronById = (store: Store, id: string) => store.get<CronRow>("SELECT * FROM cronjobs WHERE id = ?", id);

function ownCron(ctx: RequestContext): CronRow {
  const c = cronById(ctx.store, ctx.params.cronjob_id);
  if (!c || c.env_id !== caller(ctx).envId) throw notFound(`Cronjob ${ctx.params.cronjob_id} not found`);
  return c;
}

function requireUdf(store: Store, udfId: string, envId: string): void {
  const u = udfById(store, udfId);
  if (!u || u.env_id !== envId) throw notFound(`UDF ${udfId} not found in this execution environment`);
}

/** Starts one batch job for a cronjob at `at` and records `last_run`. */
function startRun(store: Store, c: CronRow, at: Date, who?: Principal): JobRow {
  const u = udfById(store, c.udf_id);
  const job = submitJob(store, {
    envId: c.env_id,
    userId: who?.userId,
    serviceAccountId: who?.serviceAccountId,
    cronjobId: c.id,
    udfId: c.udf_id,
    udfArgs: parseJson<Record<string, unknown> | null>(c.udf_args, null),
    at,
    failReason:
      u && u.env_id === c.env_id ? undefined : `UDF ${c.udf_id} no longer exists in this execution environment`,
  });
  const stamp = at.toISOString();
  store.run("UPDATE cronjobs SET last_run = ? WHERE id = ? AND (last_run IS NULL OR last_run < ?)", stamp, c.id, stamp);
  return job;
}

/** Runs every due minute of one cronjob up to `nowMs`, then marks it checked. */
function catchUp(store: Store, c: CronRow, nowMs: number): void {
  if (nowMs <= c.last_checked_ms) return;
  if (c.enabled === 1) {
    const s = schedule(c);
    let after = c.last_checked_ms;
    for (let due = nextDue(s, after, nowMs); due !== undefined; due = nextDue(s, after, nowMs)) {
      startRun(store, c, new Date(due));
      after = due;
    }
  }
  store.run("UPDATE cronjobs SET last_checked_ms = ? WHERE id = ?", nowMs, c.id);
}

function create(ctx: RequestContext) {
  const p = caller(ctx);
  const body = parseBody(ctx, CreateBody);
  const env = ctx.store.get<{ name: string; billing: number }>("SELECT name, billing FROM envs WHERE id = ?", p.envId);
  if (env?.billing !== 1) {
    throw forbidden(
      `Team ${env?.name ?? p.envId} has no billing enabled; cronjobs run on batch compute, which requires billing`,
    );
  }
  requireUdf(ctx.store, body.udf, p.envId);
  const id = newId();
  const now = ctx.now();
  ctx.store.run(
    `INSERT INTO cronjobs (id, env_id, name, description, enabled, minute, hour, day_of_month, month, day_of_week, udf_id, udf_args,
       last_run, last_checked_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
    id,
    p.envId,
    body.name,
    body.description ?? null,
    body.enabled,
    JSON.stringify(body.minute),
    JSON.stringify(body.hour),
    JSON.stringify(body.day_of_month),
    JSON.stringify(body.month),
    JSON.stringify(body.day_of_week),
    body.udf,
    body.udf_args == null ? null : JSON.stringify(body.udf_args),
    now.getTime(),
    now.toISOString(),
  );
  return cronjobJson(cronById(ctx.store, id)!);
}

function update(ctx: RequestContext) {
  const c = ownCron(ctx);
  const body = parseBody(ctx, UpdateBody);
  if (body.udf !== undefined) requireUdf(ctx.store, body.udf, c.env_id);
  const now = ctx.now().getTime();
  catchUp(ctx.store, c, now);
  const sets: [string, unknown][] = [];
  if (body.name !== undefined) sets.push(["name", body.name]);
  if (body.description !== undefined) sets.push(["description", body.description]);
  if (body.enabled !== undefined) sets.push(["enabled", body.enabled ? 1 : 0]);
  for (const k of ["minute", "hour", "day_of_month", "month", "day_of_week"] as const) {
    if (body[k] !== undefined) sets.push([k, JSON.stringify(body[k])]);
  }
  if (body.udf !== undefined) sets.push(["udf_id", body.udf]);
  if (body.udf_args !== undefined)
    sets.push(["udf_args", body.udf_args === null ? null : JSON.stringify(body.udf_args)]);
  sets.push(["last_checked_ms", now]);
  ctx.store.run(
    `UPDATE cronjobs SET ${sets.map(([k]) => `${k} = ?`).join(", ")} WHERE id = ?`,
    ...(sets.map(([, v]) => v) as (string | number | null)[]),
    c.id,
  );
  return cronjobJson(cronById(ctx.store, c.id)!);
}

export const cronjobsArea: Area = {
  name: "cronjobs",
  ddl: JOBS_DDL + DDL,
  tick: (env) => {
    const now = env.clock.now().getTime();
    for (const c of env.store.all<CronRow>("SELECT * FROM cronjobs ORDER BY created_at, id"))
      catchUp(env.store, c, now);
  },
  routes: [
    {
      method: "GET",
      path: "/cronjob/get-self",
      scope: "user_or_environment",
      handler: (ctx) =>
        ctx.store
          .all<CronRow>("SELECT * FROM cronjobs WHERE env_id = ? ORDER BY created_at, id", caller(ctx).envId)
          .map(cronjobJson),
    },
    {
      method: "GET",
      path: "/cronjob/by-udf-id/:udf_id",
      scope: "user_or_environment",
      handler: (ctx) =>
        ctx.store
          .all<CronRow>(
            "SELECT * FROM cronjobs WHERE env_id = ? AND udf_id = ? ORDER BY created_at, id",
            caller(ctx).envId,
            ctx.params.udf_id,
          )
          .map(cronjobJson),
    },
    {
      method: "GET",
      path: "/cronjob/by-id/:cronjob_id",
      scope: "user_or_environment",
      handler: (ctx) => cronjobJson(ownCron(ctx)),
    },
    { method: "POST", path: "/cronjob/create", scope: "user_or_environment", handler: create },
    { method: "POST", path: "/cronjob/by-id/:cronjob_id", scope: "user_or_environment", handler: update },
    {
      method: "DELETE",
      path: "/cronjob/by-id/:cronjob_id",
      scope: "user_or_environment",
      handler: (ctx) => {
        const c = ownCron(ctx);
        catchUp(ctx.store, c, ctx.now().getTime());
        const out = cronjobJson(cronById(ctx.store, c.id)!);
        ctx.store.run("DELETE FROM cronjobs WHERE id = ?", c.id);
        return out;
      },
    },
    {
      method: "POST",
      path: "/cronjob/user-run/by-id/:cronjob_id",
      scope: "user_or_environment",
      body: "none",
      handler: (ctx) => {
        const c = ownCron(ctx);
        requireUdf(ctx.store, c.udf_id, c.env_id);
        const job = startRun(ctx.store, c, ctx.now(), caller(ctx));
        return { cronjob: cronjobJson(cronById(ctx.store, c.id)!), run: runSummary(job) };
      },
    },
  ],
};
