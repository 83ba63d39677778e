/**
 * Spec 4.4: real-time instances, ad hoc UDF runs, and invalidation of cached real-time results.
 */
import { z } from "zod";
import { RealtimeInstance } from "./schemas";
import type { RawResponse, Transport } from "./transport";

/** A tile coordinate. */
export interface Tile {
  z: number;
  x: number;
  y: number;
}

/** Answer of a batch invalidation. */
export const BatchDeleteResult = z.looseObject({
  udf_id: z.string(),
  tiles_requested: z.number().int(),
  objects_deleted: z.number().int(),
});
export type BatchDeleteResult = z.infer<typeof BatchDeleteResult>;

/**
 * How long a UDF run's answer is awaited unless the call says otherwise. A run lasts as long as
 * the UDF's code does, longer than an ordinary request (the client's `timeoutMs`, 30 s by
 * default): the spec sets no run time limit, and the emulator's is 60 s by default.
 */
export const RUN_TIMEOUT_MS = 300_000;

/** What every run call takes. */
export interface RunTimeout {
  /** How long to await the run's answer, in milliseconds. @default {@link RUN_TIMEOUT_MS} (5 minutes) */
  timeoutMs?: number;
}

export interface RunUdfInput extends RunTimeout {
  /** The UDF configuration; an object is JSON-serialized, as the spec wants a string. */
  stepConfig: string | Record<string, unknown>;
  /** Output format (allowed values are not specified). */
  format: string;
  /** Maximum age, in seconds, of a cached result that may be reused. */
  cacheMaxAge?: number;
}

/** The answer of a run: the serialized output and the run's metadata headers. */
export interface RunResult {
  body: Buffer;
  contentType: string | undefined;
  /** `X-Svc-Metadata` parsed as JSON (stdout, stderr, log directory), or undefined when absent or not JSON. */
  metadata: Record<string, unknown> | undefined;
  /** `X-Svc-Request-Id`. */
  requestId: string | undefined;
}

/** A run answer as {@link RunResult} (shared with the shared-UDF host calls). */
export function runResult(res: RawResponse): RunResult {
  let metadata: Record<string, unknown> | undefined;
  const raw = res.headers["x-svc-metadata"];
  if (raw) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object") metadata = parsed as Record<string, unknown>;
    } catch {
      metadata = undefined;
    }
  }
  return {
    body: res.body,
    contentType: res.headers["content-type"],
    metadata,
    requestId: res.headers["x-svc-request-id"],
  };
}

export function realtimeApi(t: Transport) {
  const run = (route: string, params: Record<string, string | number>, input: RunUdfInput) =>
    t
      .send(route, {
        params,
        query: { cache_max_age: input.cacheMaxAge },
        timeoutMs: input.timeoutMs ?? RUN_TIMEOUT_MS,
        body: {
          json: {
            step_config: typeof input.stepConfig === "string" ? input.stepConfig : JSON.stringify(input.stepConfig),
            format: input.format,
          },
        },
      })
      .then(runResult);

  const api = {
    /** `GET /realtime-instance/available`: the caller environment's real-time instances. 401 without credentials. */
    listInstances: () => t.json("GET /realtime-instance/available", {}, z.array(RealtimeInstance)),

    /** The instance to use: the entry with the highest `preference_rank`, or undefined when there is none. */
    preferredInstance: async (): Promise<RealtimeInstance | undefined> => {
      let best: RealtimeInstance | undefined;
      for (const i of await api.listInstances()) if (!best || i.preference_rank > best.preference_rank) best = i;
      return best;
    },

    /**
     * `DELETE /realtime-shared/{client_id}/udf-cache/by-id/{udf_id}/delete`: drops the UDF's cached
     * results, or one tile's when `tile` is given. Needs credentials (401 without) and write access
     * to the UDF; 404 when the instance or the UDF is not the caller environment's.
     */
    deleteCache: async (clientId: string, udfId: string, tile?: Tile): Promise<void> => {
      await t.send("DELETE /realtime-shared/{client_id}/udf-cache/by-id/{udf_id}/delete", {
        params: { client_id: clientId, udf_id: udfId },
        query: tile ? { z: tile.z, x: tile.x, y: tile.y } : {},
      });
    },

    /**
     * `POST /realtime-shared/{client_id}/udf-cache/by-id/{udf_id}/batch-delete`: drops the cached
     * results of 1 to 50,000 tiles (422 outside that range). Same access rules as
     * {@link deleteCache}. Safe to retry.
     */
    batchDeleteCache: (clientId: string, udfId: string, tiles: readonly Tile[]) =>
      t.json(
        "POST /realtime-shared/{client_id}/udf-cache/by-id/{udf_id}/batch-delete",
        {
          params: { client_id: clientId, udf_id: udfId },
          body: { json: { tiles: tiles.map(({ z, x, y }) => ({ z, x, y })) } },
          idempotent: true,
        },
        BatchDeleteResult,
      ),

    /**
     * `POST /realtime/{client_id}/api/v1/run/udf`: runs a UDF on a real-time instance of the
     * caller's environment and returns the raw output with its metadata headers. 404 for another
     * environment's instance; 422 when the UDF fails. Not retried.
     */
    runUdf: (clientId: string, input: RunUdfInput) =>
      run("POST /realtime/{client_id}/api/v1/run/udf", { client_id: clientId }, input),

    /** `POST /realtime/{client_id}/api/v1/run/udf/tiles/{z}/{x}/{y}`: like {@link runUdf}, for one tile. */
    runTile: (clientId: string, tile: Tile, input: RunUdfInput) =>
      run(
        "POST /realtime/{client_id}/api/v1/run/udf/tiles/{z}/{x}/{y}",
        { client_id: clientId, z: tile.z, x: tile.x, y: tile.y },
        input,
      ),
  };
  return api;
}
