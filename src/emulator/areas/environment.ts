/**
 * Spec 4.6: the execution environment, its real-time usage counters (2.8) and its service
 * accounts (2.9).
 *
 * Decisions where the spec is silent:
 * - Element shapes (2.7): users are `{id, name, handle, email}`, buckets `{url, public_read}`,
 *   github_repos is always empty in the emulator.
 * - Usage counters live in `realtime_usage`, one row per environment and day (`YYYY-MM-DD`);
 *   `date_prefix` sums the days it prefixes. Other areas record calls with {@link recordRealtimeUsage}.
 * - Service-account names are 1 to 200 characters and need not be unique (accounts are told apart
 *   by id; the spec lists no 409 for creation). Creation answers 200, as the spec gives no 201.
 * - The token is returned once by creation; only its SHA-256 hash is stored (core `credentials`).
 *   Deleting an account deletes its credentials in the same transaction, so the token fails (401)
 *   from the next request on.
 */
import { z } from "zod";
import type { Area } from "../area";
import { invalid, notFound } from "../http-error";
import { randomToken } from "../keys";
import { insertServiceAccount } from "../principal";
import { newId } from "../catalog";
import { caller, parseBody, type RequestContext } from "../route";
import type { Store } from "../store";

export const USAGE_COUNTERS = [
  "calls_total",
  "calls_success",
  "calls_error",
  "calls_cached",
  "calls_total_time",
  "calls_success_time",
  "calls_error_time",
  "ai_calls",
] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];

export const ENVIRONMENT_DDL = `
CREATE TABLE IF NOT EXISTS realtime_usage (
  env_id TEXT NOT NULL, day TEXT NOT NULL,
  ${USAGE_COUNTERS.map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(", ")},
  PRIMARY KEY (env_id, day)
);
`;

/** Adds to an environment's counters for the day of `at` (UTC). For the real-time run endpoints. */
export function recordRealtimeUsage(
  store: Store,
  envId: string,
  at: Date,
  delta: Partial<Record<UsageCounter, number>>,
): void {
  const day = at.toISOString().slice(0, 10);
  const values = USAGE_COUNTERS.map((c) => Math.trunc(delta[c] ?? 0));
  store.run(
    `INSERT INTO realtime_usage (env_id, day, ${USAGE_COUNTERS.join(", ")}) VALUES (?, ?, ${USAGE_COUNTERS.map(() => "?").join(", ")})
     ON CONFLICT (env_id, day) DO UPDATE SET ${USAGE_COUNTERS.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}`,
    envId,
    day,
    ...values,
  );
}

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD` with a real month (01-12) and day (01-31). */
const DATE_PREFIX = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/;

interface ServiceAccountRow {
  id: string;
  env_id: string;
  name: string;
  created_at: string;
}

const saJson = (r: ServiceAccountRow) => ({
  id: r.id,
  execution_environment_id: r.env_id,
  name: r.name,
  created_at: r.created_at,
});

/** A service account of the caller's environment; another team's is invisible (404). */
function ownAccount(ctx: RequestContext): ServiceAccountRow {
  const row = ctx.store.get<ServiceAccountRow>(
    "SELECT id, env_id, name, created_at FROM service_accounts WHERE id = ? AND env_id = ?",
    ctx.params.id,
    caller(ctx).envId,
  );
  if (!row) throw notFound("Service account not found");
  return row;
}

const NewServiceAccount = z.object({ name: z.string().trim().min(1).max(200) });

export const environmentArea: Area = {
  name: "environment",
  ddl: ENVIRONMENT_DDL,
  routes: [
    {
      method: "GET",
      path: "/execution-env/self",
      scope: "environment",
      handler: (ctx) => {
        const envId = caller(ctx).envId;
        const env = ctx.store.get<{ id: string; name: string }>("SELECT id, name FROM envs WHERE id = ?", envId);
        if (!env) throw notFound("Execution environment not found");
        const users = ctx.store.all<{ id: string; name: string; handle: string | null; email: string | null }>(
          "SELECT id, name, handle, email FROM users WHERE env_id = ? ORDER BY id",
          envId,
        );
        const buckets = ctx.store.all<{ url: string; public_read: number }>(
          "SELECT url, public_read FROM buckets WHERE env_id = ? ORDER BY url",
          envId,
        );
        return {
          id: env.id,
          name: env.name,
          users: users.map((u) => ({ id: u.id, name: u.name, handle: u.handle, email: u.email })),
          buckets: buckets.map((b) => ({ url: b.url, public_read: !!b.public_read })),
          github_repos: [],
        };
      },
    },
    {
      method: "GET",
      path: "/execution-env/self/realtime/usage",
      scope: "environment",
      handler: (ctx) => {
        const envId = caller(ctx).envId;
        const prefix = ctx.query.get("date_prefix");
        if (prefix !== null && !DATE_PREFIX.test(prefix)) {
          throw invalid(
            "query",
            "date_prefix",
            "date_prefix must be YYYY, YYYY-MM or YYYY-MM-DD",
            "string_pattern_mismatch",
          );
        }
        const sums = USAGE_COUNTERS.map((c) => `COALESCE(SUM(${c}), 0) AS ${c}`).join(", ");
        const row = ctx.store.get<Record<UsageCounter, number>>(
          `SELECT ${sums} FROM realtime_usage WHERE env_id = ? AND (? IS NULL OR substr(day, 1, length(?)) = ?)`,
          envId,
          prefix,
          prefix,
          prefix,
        )!;
        const out: Record<string, number | string | null> = {};
        for (const c of USAGE_COUNTERS) out[c] = Number(row[c]);
        out.date_prefix = prefix;
        return out;
      },
    },
    {
      method: "GET",
      path: "/execution-env/self/service-account",
      scope: "user",
      handler: (ctx) =>
        ctx.store
          .all<ServiceAccountRow>(
            "SELECT id, env_id, name, created_at FROM service_accounts WHERE env_id = ? ORDER BY created_at, rowid",
            caller(ctx).envId,
          )
          .map(saJson),
    },
    {
      method: "GET",
      path: "/execution-env/self/service-account/by-id/:id",
      scope: "user",
      handler: (ctx) => saJson(ownAccount(ctx)),
    },
    {
      method: "POST",
      path: "/execution-env/self/service-account/new",
      scope: "user",
      handler: (ctx) => {
        const envId = caller(ctx).envId;
        const { name } = parseBody(ctx, NewServiceAccount);
        const row: ServiceAccountRow = { id: newId(), env_id: envId, name, created_at: ctx.now().toISOString() };
        const token = randomToken("svc_sa_");
        insertServiceAccount(ctx.store, row, token);
        return { ...saJson(row), token };
      },
    },
    {
      method: "DELETE",
      path: "/execution-env/self/service-account/by-id/:id",
      scope: "user",
      handler: (ctx) => {
        const row = ownAccount(ctx);
        ctx.store.run("DELETE FROM credentials WHERE kind = 'service' AND subject_id = ?", row.id);
        ctx.store.run("DELETE FROM service_accounts WHERE id = ?", row.id);
        return saJson(row);
      },
    },
  ],
};
