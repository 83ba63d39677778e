/**
 * Spec 4.4: real-time instances, invalidation of cached real-time results, and the two ad hoc run
 * endpoints (not emulated yet: they answer 501 after the usual checks).
 *
 * The cache is the table `udf_cache`: one row per cached result of a UDF, with `z, x, y` for a tile
 * and NULL for a non-tile result. Stale results must never be served, so the table itself drops a
 * UDF's rows when the UDF is deleted (foreign key cascade, which also covers canvas deletion) and
 * when its body changes (trigger), whichever area makes the change.
 */
import { z } from "zod";
import type { Area } from "../area";
import { udfById } from "../catalog";
import { HttpError, notFound } from "../http-error";
import type { Principal } from "../principal";
import { caller, json, noContent, parseBody, parseQuery, type RequestContext } from "../route";
import type { Store } from "../store";

const DDL = `
CREATE TABLE IF NOT EXISTS udf_cache (
  udf_id TEXT NOT NULL REFERENCES udfs(id) ON DELETE CASCADE,
  z INTEGER, x INTEGER, y INTEGER, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS udf_cache_tile ON udf_cache(udf_id, z, x, y);
CREATE TRIGGER IF NOT EXISTS udf_cache_body_changed AFTER UPDATE OF udf_body ON udfs
  WHEN old.udf_body IS NOT new.udf_body
  BEGIN DELETE FROM udf_cache WHERE udf_id = new.id; END;
`;

/** Most tiles one batch invalidation accepts (spec section 8). */
export const MAX_BATCH_TILES = 50_000;

export interface Tile {
  z: number;
  x: number;
  y: number;
}

/** Deletes a UDF's cached results: all of them, or one tile's. Returns how many rows went. */
export function clearUdfCache(store: Store, udfId: string, tile?: Tile): number {
  if (!tile) return store.run("DELETE FROM udf_cache WHERE udf_id = ?", udfId).changes;
  return store.run("DELETE FROM udf_cache WHERE udf_id = ? AND z = ? AND x = ? AND y = ?", udfId, tile.z, tile.x, tile.y).changes;
}

/** A real-time instance of the caller's environment, or 404 (another team's instance is invisible). */
function ownInstance(ctx: RequestContext, p: Principal): void {
  const row = ctx.store.get("SELECT client_id FROM realtime_instances WHERE client_id = ? AND env_id = ?", ctx.params.client_id, p.envId);
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
      missing.map((k) => ({ loc: ["query", k], msg: "z, x and y must be given together (all three or none)", type: "missing" })),
    );
  }
  return { z: q.z!, x: q.x!, y: q.y! };
}

const BatchBody = z.object({
  tiles: z.array(z.object({ z: coord(), x: coord(), y: coord() })).min(1).max(MAX_BATCH_TILES),
});

function runNotAvailable(ctx: RequestContext) {
  ownInstance(ctx, caller(ctx));
  return json(501, { detail: "Running UDFs is not available in the emulator yet" });
}

export const realtimeArea: Area = {
  name: "realtime",
  ddl: DDL,
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
        for (const t of unique.values()) deleted += clearUdfCache(ctx.store, udfId, t);
        return { udf_id: udfId, tiles_requested: unique.size, objects_deleted: deleted };
      },
    },
    { method: "POST", path: "/realtime/:client_id/api/v1/run/udf", scope: "user_or_environment", handler: runNotAvailable },
    { method: "POST", path: "/realtime/:client_id/api/v1/run/udf/tiles/:z/:x/:y", scope: "user_or_environment", handler: runNotAvailable },
  ],
};
