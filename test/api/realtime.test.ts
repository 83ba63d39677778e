import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

const PRIMARY = "rt-demo-primary";
const OTHER = "rt-other-primary";

/** Puts cached results for `udfId` into the store: `null` is a non-tile result, else `[z, x, y]`. */
function cache(udfId: string, entries: ([number, number, number] | null)[]): void {
  for (const e of entries) {
    fx.emu.env.store.run(
      "INSERT INTO udf_cache (udf_id, z, x, y, created_at) VALUES (?, ?, ?, ?, ?)",
      udfId,
      e?.[0],
      e?.[1],
      e?.[2],
      new Date().toISOString(),
    );
  }
}
const cached = (udfId: string) =>
  fx.emu.env.store
    .all<{ z: number | null; x: number | null; y: number | null }>(
      "SELECT z, x, y FROM udf_cache WHERE udf_id = ? ORDER BY z, x, y",
      udfId,
    )
    .map((r) => (r.z === null ? null : [r.z, r.x, r.y]));

let n = 0;
const newUdf = async () => (await fx.user.udfs.create({ slug: `cached_${++n}`, udf_body: `{"n":${n}}` })).id;

describe("realtime instances (4.4)", () => {
  it("lists the caller environment's instances, highest preference_rank first, for a user and a service token", async () => {
    const expected = [
      {
        client_id: PRIMARY,
        name: "demo-primary",
        endpoint: "https://realtime.emulator.invalid/demo-primary",
        preference_rank: 10,
      },
      {
        client_id: "rt-demo-secondary",
        name: "demo-secondary",
        endpoint: "https://realtime.emulator.invalid/demo-secondary",
        preference_rank: 1,
      },
    ];
    expect(await fx.user.realtime.listInstances()).toEqual(expected);
    expect(await fx.service.realtime.listInstances()).toEqual(expected);
    expect((await fx.other.realtime.listInstances()).map((i) => i.client_id)).toEqual([OTHER]);
  });

  it("refuses a caller without credentials (401)", async () => {
    expect(await failure(fx.anon.realtime.listInstances())).toMatchObject({
      status: 401,
      code: "unauthorized",
      detail: "Not authenticated",
    });
  });

  it("picks the highest-ranked instance, and nothing when the environment has none", async () => {
    expect((await fx.user.realtime.preferredInstance())?.client_id).toBe(PRIMARY);
    const store = fx.emu.env.store;
    store.run("UPDATE realtime_instances SET env_id = 'env-demo' WHERE client_id = ?", OTHER);
    try {
      expect(await fx.other.realtime.preferredInstance()).toBeUndefined();
    } finally {
      store.run("UPDATE realtime_instances SET env_id = 'env-other' WHERE client_id = ?", OTHER);
    }
  });
});

describe("cache invalidation (4.4)", () => {
  it("GIVEN cached tiles and a non-tile result WHEN deleting one tile THEN only that tile goes; WHEN deleting without a tile THEN all go", async () => {
    const id = await newUdf();
    cache(id, [null, [3, 1, 2], [3, 1, 3]]);
    await fx.user.realtime.deleteCache(PRIMARY, id, { z: 3, x: 1, y: 2 });
    expect(cached(id)).toEqual([null, [3, 1, 3]]);
    await fx.service.realtime.deleteCache("rt-demo-secondary", id);
    expect(cached(id)).toEqual([]);
  });

  it("refuses a partial tile with 422 naming each missing coordinate, and changes nothing", async () => {
    const id = await newUdf();
    cache(id, [[1, 0, 0]]);
    const route = "DELETE /realtime-shared/{client_id}/udf-cache/by-id/{udf_id}/delete";
    const only = await failure(
      fx.user.transport.send(route, { params: { client_id: PRIMARY, udf_id: id }, query: { z: 1 } }),
    );
    expect(only).toMatchObject({ status: 422, code: "validation_failed" });
    expect(only.detail).toEqual([
      { loc: ["query", "x"], msg: "z, x and y must be given together (all three or none)", type: "missing" },
      { loc: ["query", "y"], msg: "z, x and y must be given together (all three or none)", type: "missing" },
    ]);
    const two = await failure(
      fx.user.transport.send(route, { params: { client_id: PRIMARY, udf_id: id }, query: { z: 1, y: 0 } }),
    );
    expect(two.detail.map((d: { loc: unknown }) => d.loc)).toEqual([["query", "x"]]);
    expect(cached(id)).toEqual([[1, 0, 0]]);
  });

  it("requires an Authorization header (401) and hides other teams' instances and UDFs (404)", async () => {
    const id = await newUdf();
    cache(id, [null]);
    expect(await failure(fx.anon.realtime.deleteCache(PRIMARY, id))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect(await failure(fx.other.realtime.deleteCache(PRIMARY, id))).toMatchObject({
      status: 404,
      detail: "Real-time instance not found",
    });
    expect(await failure(fx.other.realtime.deleteCache(OTHER, id))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    expect(await failure(fx.user.realtime.deleteCache(OTHER, id))).toMatchObject({
      status: 404,
      detail: "Real-time instance not found",
    });
    expect(await failure(fx.user.realtime.deleteCache(PRIMARY, "no-such-udf"))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    const batch = await failure(fx.other.realtime.batchDeleteCache(OTHER, id, [{ z: 0, x: 0, y: 0 }]));
    expect(batch).toMatchObject({ status: 404, detail: "UDF not found" });
    expect(await failure(fx.anon.realtime.batchDeleteCache(PRIMARY, id, [{ z: 0, x: 0, y: 0 }]))).toMatchObject({
      status: 401,
    });
    expect(cached(id)).toEqual([null]);
  });

  it("GIVEN duplicates in a batch WHEN batch-deleting THEN tiles_requested counts distinct tiles and objects_deleted the cached ones", async () => {
    const id = await newUdf();
    cache(id, [null, [2, 1, 1], [2, 1, 2], [2, 3, 3]]);
    const tiles = [
      { z: 2, x: 1, y: 1 },
      { z: 2, x: 1, y: 1 },
      { z: 2, x: 1, y: 2 },
      { z: 9, x: 9, y: 9 },
    ];
    expect(await fx.user.realtime.batchDeleteCache(PRIMARY, id, tiles)).toEqual({
      udf_id: id,
      tiles_requested: 3,
      objects_deleted: 2,
    });
    expect(cached(id)).toEqual([null, [2, 3, 3]]);
  });

  it("refuses a batch of 0 or 50,001 tiles with 422 at body.tiles, and accepts 50,000", async () => {
    const id = await newUdf();
    cache(id, [[0, 0, 0]]);
    const empty = await failure(fx.user.realtime.batchDeleteCache(PRIMARY, id, []));
    expect(empty).toMatchObject({ status: 422 });
    expect(empty.detail).toEqual([{ loc: ["body", "tiles"], msg: "Should have at least 1 items", type: "too_short" }]);
    const many = Array.from({ length: 50_001 }, (_, i) => ({ z: 20, x: i, y: 0 }));
    const tooMany = await failure(fx.user.realtime.batchDeleteCache(PRIMARY, id, many));
    expect(tooMany.detail).toEqual([
      { loc: ["body", "tiles"], msg: "Should have at most 50000 items", type: "too_long" },
    ]);
    expect(cached(id)).toEqual([[0, 0, 0]]);
    const max = [{ z: 0, x: 0, y: 0 }, ...many.slice(0, 49_999)];
    expect(await fx.user.realtime.batchDeleteCache(PRIMARY, id, max)).toEqual({
      udf_id: id,
      tiles_requested: 50_000,
      objects_deleted: 1,
    });
  });

  it("drops a UDF's cached results when its canvas is deleted", async () => {
    const store = fx.emu.env.store;
    const canvasId = randomUUID();
    const now = new Date().toISOString();
    store.run(
      "INSERT INTO canvases (id, env_id, owner_user_id, name, created_at, last_updated) VALUES (?, 'env-demo', 'user-demo-1', ?, ?, ?)",
      canvasId,
      `gone_${n}`,
      now,
      now,
    );
    const id = (await fx.user.udfs.create({ slug: "on_canvas", udf_body: "{}", collection_id: canvasId })).id;
    cache(id, [null, [1, 1, 1]]);
    store.run("DELETE FROM canvases WHERE id = ?", canvasId);
    expect(cached(id)).toEqual([]);
  });
});

// What runs do is tested in test/emulator/realtime-runs.test.ts.
describe("running UDFs (4.4)", () => {
  const input = { stepConfig: { udf: { name: "x" } }, format: "json", cacheMaxAge: 60 };

  it("checks credentials (401) and the instance (404 for another team's) before that", async () => {
    expect(await failure(fx.anon.realtime.runUdf(PRIMARY, input))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.realtime.runTile(PRIMARY, { z: 0, x: 0, y: 0 }, input))).toMatchObject({
      status: 401,
    });
    expect(await failure(fx.user.realtime.runUdf(OTHER, input))).toMatchObject({
      status: 404,
      detail: "Real-time instance not found",
    });
    expect(await failure(fx.other.realtime.runTile(PRIMARY, { z: 0, x: 0, y: 0 }, input))).toMatchObject({
      status: 404,
      detail: "Real-time instance not found",
    });
  });
});
