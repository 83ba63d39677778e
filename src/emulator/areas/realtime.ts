/**
 * Spec 4.4: real-time instances, the two ad hoc run endpoints, and invalidation of cached
 * real-time results.
 *
 * Runs execute the UDF for real in Python (`../realtime/run-service.ts`); what `step_config` may
 * hold is in `../realtime/step-config.ts`, and the cache rules are in `../realtime/run-cache.ts`.
 *
 * Decisions where the spec is silent:
 * - `format` is `json` (default: dicts, lists and scalars as JSON; a DataFrame as a list of
 *   records, a GeoDataFrame as GeoJSON) or `csv` (a DataFrame, a list of objects or of rows);
 *   another value is a 422 at `body.format`.
 * - A tile run checks its coordinates: z from 0 to 30, x and y from 0 to 2^z - 1 (422 at the path).
 *   The UDF receives the tile's bounds `[west, south, east, north]` in degrees as `bounds`, and
 *   `z`, `x`, `y`, `tile` or `bbox` when its signature names them.
 */
import { z } from "zod";
import type { Area } from "../area";
import { udfById } from "../catalog";
import { HttpError, notFound, type ValidationIssue } from "../http-error";
import type { Principal } from "../principal";
import { serveRun } from "../realtime/run-service";
import { clearUdfCache, udfCacheScope, RUN_CACHE_DDL, type TileCoord as Tile } from "../realtime/run-cache";
import { parseStepConfig } from "../realtime/step-config";
import { caller, noContent, parseBody, parseQuery, type RequestContext } from "../route";
import { tileBounds, UDF_OUTPUT_FORMATS, type RunTile } from "../udf-runner";

/** Most tiles one batch invalidation accepts (spec section 8). */
export const MAX_BATCH_TILES = 50_000;

export { clearUdfCache, type Tile };

/** A real-time instance of the caller's environment, or 404 (another team's instance is invisible). */
function ownInstance(ctx: RequestContext, p: Principal): void {
  const row = ctx.store.get(
    "SELECT client_id FROM realtime_instances WHERE client_id = ? AND env_id = ?",
    ctx.params.client_id,
    p.envId,
  );
  if (!row) throw notFound("Real-time instance not found");
}

/** The UDF named in the path, when the caller may write it (same environment), or 404. */
function writableUdf(ctx: RequestContext, p: Principal): string {
  const u = udfById(ctx.store, ctx.params.udf_id);
  if (!u || u.env_id !== p.envId) throw notFound("UDF not found");
  return u.id;
}

const coord = () => z.coerce.number().int().min(0);
const TileQuery = z.object({ z: coord().optional(), x: coord().optional(), y: coord().optional() });

/** z, x and y: all three or none; a partial set is a 422 naming each missing one. */
function tileFromQuery(ctx: RequestContext): Tile | undefined {
  const q = parseQuery(ctx, TileQuery);
  const given = (["z", "x", "y"] as const).filter((k) => q[k] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < 3) {
    const missing = (["z", "x", "y"] as const).filter((k) => q[k] === undefined);
    throw new HttpError(
      422,
      missing.map((k) => ({
        loc: ["query", k],
        msg: "z, x and y must be given together (all three or none)",
        type: "missing",
      })),
    );
  }
  return { z: q.z!, x: q.x!, y: q.y! };
}

const BatchBody = z.object({
  tiles: z
    .array(z.object({ z: coord(), x: coord(), y: coord() }))
    .min(1)
    .max(MAX_BATCH_TILES),
});

const RunBody = z.object({
  step_config: z.string(),
  format: z.enum(UDF_OUTPUT_FORMATS).optional(),
});
const RunQuery = z.object({ cache_max_age: z.coerce.number().int().min(0).optional() });

/** Largest zoom level a tile run accepts. */
const MAX_ZOOM = 30;

/** The tile of a tile-run path, checked; 422 at `path.z`, `path.x` or `path.y`. */
export function tileFromPath(params: Record<string, string>): RunTile {
  const issues: ValidationIssue[] = [];
  const read = (k: "z" | "x" | "y", max: number) => {
    const n = /^\d+$/.test(params[k]) ? Number(params[k]) : NaN;
    if (!(n <= max))
      issues.push({ loc: ["path", k], msg: `${k} must be a whole number from 0 to ${max}`, type: "value_error" });
    return n;
  };
  const zoom = read("z", MAX_ZOOM);
  const max = issues.length ? Number.MAX_SAFE_INTEGER : 2 ** zoom - 1;
  const x = read("x", max);
  const y = read("y", max);
  if (issues.length) throw new HttpError(422, issues);
  return tileBounds(zoom, x, y);
}

function run(ctx: RequestContext, tile: RunTile | undefined) {
  const p = caller(ctx);
  const query = parseQuery(ctx, RunQuery);
  const body = parseBody(ctx, RunBody);
  ownInstance(ctx, p);
  const target = parseStepConfig(ctx.store, p, body.step_config);
  return serveRun(ctx.env, {
    envId: p.envId,
    target,
    tile,
    format: body.format ?? "json",
    requestMaxAgeS: query.cache_max_age,
  });
}

export const realtimeArea: Area = {
  name: "realtime",
  ddl: RUN_CACHE_DDL,
  routes: [
    {
      method: "GET",
      path: "/realtime-instance/available",
      scope: "user_or_environment",
      handler: (ctx) =>
        ctx.store.all(
          "SELECT client_id, name, endpoint, preference_rank FROM realtime_instances WHERE env_id = ? ORDER BY preference_rank DESC, client_id",
          caller(ctx).envId,
        ),
    },
    {
      method: "DELETE",
      path: "/realtime-shared/:client_id/udf-cache/by-id/:udf_id/delete",
      scope: "user_or_environment",
      handler: (ctx) => {
        const p = caller(ctx);
        const tile = tileFromQuery(ctx);
        ownInstance(ctx, p);
        clearUdfCache(ctx.store, writableUdf(ctx, p), tile);
        return noContent();
      },
    },
    {
      method: "POST",
      path: "/realtime-shared/:client_id/udf-cache/by-id/:udf_id/batch-delete",
      scope: "user_or_environment",
      handler: (ctx) => {
        const p = caller(ctx);
        const { tiles } = parseBody(ctx, BatchBody);
        ownInstance(ctx, p);
        const udfId = writableUdf(ctx, p);
        const unique = new Map<string, Tile>();
        for (const t of tiles) unique.set(`${t.z}/${t.x}/${t.y}`, t);
        let deleted = 0;
        const scope = udfCacheScope(ctx.store, udfId);
        for (const t of unique.values()) deleted += clearUdfCache(ctx.store, udfId, t, scope);
        return { udf_id: udfId, tiles_requested: unique.size, objects_deleted: deleted };
      },
    },
    {
      method: "POST",
      path: "/realtime/:client_id/api/v1/run/udf",
      scope: "user_or_environment",
      handler: (ctx) => run(ctx, undefined),
    },
    {
      method: "POST",
      path: "/realtime/:client_id/api/v1/run/udf/tiles/:z/:x/:y",
      scope: "user_or_environment",
      handler: (ctx) => run(ctx, tileFromPath(ctx.params)),
    },
  ],
};
