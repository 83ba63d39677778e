/**
 * The real-time result cache (spec 4.4): one row per successful run, keyed by the environment, the
 * code that ran (`runHash`), its parameters, its tile and the output format.
 *
 * Decisions where the spec is silent:
 * - A result is reused while its age (emulator clock) is within the request's `cache_max_age`
 *   query parameter, else within the entrypoint decorator's `cache_max_age`, else within
 *   {@link DEFAULT_CACHE_MAX_AGE_S}. An age of 0 never reuses.
 * - Invalidating a UDF clears the rows of runs of that saved UDF and of ad hoc runs of the same code
 *   in its environment; a tile invalidation clears that tile's rows only.
 * - Stale results are never served: deleting a UDF (or its canvas) drops its rows, and so does a
 *   change of its body, whichever area makes it (foreign key cascade and trigger).
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../canonical-json";
import { udfById } from "../catalog";
import type { Store } from "../store";
import type { RunTile } from "../udf-runner";
import { savedUdfTarget } from "./step-config";

/** Reuse limit when neither the request nor the decorator gives one: 90 days. */
export const DEFAULT_CACHE_MAX_AGE_S = 90 * 86_400;

export const RUN_CACHE_DDL = `
CREATE TABLE IF NOT EXISTS udf_cache (
  udf_id TEXT REFERENCES udfs(id) ON DELETE CASCADE,
  z INTEGER, x INTEGER, y INTEGER, created_at TEXT NOT NULL,
  env_id TEXT, run_hash TEXT, cache_key TEXT, max_age INTEGER,
  content_type TEXT, output TEXT, stdout TEXT, stderr TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS udf_cache_key ON udf_cache(cache_key);
CREATE INDEX IF NOT EXISTS udf_cache_tile ON udf_cache(udf_id, z, x, y);
CREATE INDEX IF NOT EXISTS udf_cache_code ON udf_cache(env_id, run_hash);
CREATE TRIGGER IF NOT EXISTS udf_cache_body_changed AFTER UPDATE OF udf_body ON udfs
  WHEN old.udf_body IS NOT new.udf_body
  BEGIN DELETE FROM udf_cache WHERE udf_id = new.id; END;
`;

/** Data dirs of earlier versions hold a cache table without results: cached rows are disposable. */
export function migrateRunCache(store: Store): void {
  const columns = store.all<{ name: string }>("PRAGMA table_info(udf_cache)").map((c) => c.name);
  if (columns.length > 0 && !columns.includes("cache_key"))
    store.migrate("DROP TRIGGER IF EXISTS udf_cache_body_changed; DROP TABLE udf_cache;");
  store.migrate(RUN_CACHE_DDL);
}

export interface CacheKeyParts {
  envId: string;
  runHash: string;
  parameters: Record<string, unknown>;
  tile: RunTile | undefined;
  format: string;
}

export function cacheKey(k: CacheKeyParts): string {
  const tile = k.tile ? [k.tile.z, k.tile.x, k.tile.y] : null;
  return createHash("sha256")
    .update(canonicalJson({ env: k.envId, run: k.runHash, parameters: k.parameters, tile, format: k.format }))
    .digest("hex");
}

export interface CachedResult {
  content_type: string;
  output: string;
  stdout: string;
  stderr: string;
  created_at: string;
}

/** The cached result for `key` when it is young enough, else undefined. */
export function cachedResult(
  store: Store,
  key: string,
  now: Date,
  requestMaxAgeS: number | undefined,
): CachedResult | undefined {
  const row = store.get<CachedResult & { max_age: number | null }>(
    "SELECT content_type, output, stdout, stderr, created_at, max_age FROM udf_cache WHERE cache_key = ?",
    key,
  );
  if (!row) return undefined;
  const limitS = requestMaxAgeS ?? row.max_age ?? DEFAULT_CACHE_MAX_AGE_S;
  const ageMs = now.getTime() - new Date(row.created_at).getTime();
  return limitS > 0 && ageMs <= limitS * 1000 ? row : undefined;
}

export interface ResultToCache extends CacheKeyParts {
  key: string;
  udfId: string | null;
  maxAgeS: number | null;
  contentType: string;
  output: string;
  stdout: string;
  stderr: string;
  at: Date;
}

/** Stores (or replaces) a fresh result. Skipped when the UDF was deleted meanwhile. */
export function cacheResult(store: Store, r: ResultToCache): void {
  if (r.udfId !== null && !udfById(store, r.udfId)) return;
  store.run(
    `INSERT INTO udf_cache (udf_id, z, x, y, created_at, env_id, run_hash, cache_key, max_age, content_type, output, stdout, stderr)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(cache_key) DO UPDATE SET udf_id = excluded.udf_id, created_at = excluded.created_at, max_age = excluded.max_age,
       content_type = excluded.content_type, output = excluded.output, stdout = excluded.stdout, stderr = excluded.stderr`,
    r.udfId,
    r.tile?.z,
    r.tile?.x,
    r.tile?.y,
    r.at.toISOString(),
    r.envId,
    r.runHash,
    r.key,
    r.maxAgeS,
    r.contentType,
    r.output,
    r.stdout,
    r.stderr,
  );
}

export interface TileCoord {
  z: number;
  x: number;
  y: number;
}

/**
 * Deletes a UDF's cached results, all of them or one tile's: rows of runs of the saved UDF and of
 * ad hoc runs of its current code in its environment (`scope`, read here unless given). Returns how
 * many rows went.
 */
export function clearUdfCache(
  store: Store,
  udfId: string,
  tile?: TileCoord,
  scope: UdfCacheScope = udfCacheScope(store, udfId),
): number {
  const which = "(udf_id = ? OR (env_id = ? AND run_hash = ?))";
  if (!tile) return store.run(`DELETE FROM udf_cache WHERE ${which}`, udfId, scope.envId, scope.hash).changes;
  return store.run(
    `DELETE FROM udf_cache WHERE ${which} AND z = ? AND x = ? AND y = ?`,
    udfId,
    scope.envId,
    scope.hash,
    tile.z,
    tile.x,
    tile.y,
  ).changes;
}

/** Which ad hoc runs count as a saved UDF's: its environment and the hash of its current code. */
export interface UdfCacheScope {
  envId: string | null | undefined;
  hash: string | null;
}

/** The {@link UdfCacheScope} of `udfId`, read once for a batch of tiles (its stored body parsed once). */
export function udfCacheScope(store: Store, udfId: string): UdfCacheScope {
  const u = udfById(store, udfId);
  let hash: string | null = null;
  if (u) {
    try {
      hash = savedUdfTarget(u).runHash;
    } catch {
      hash = null; // a body that cannot run has no ad hoc runs
    }
  }
  return { envId: u?.env_id, hash };
}
