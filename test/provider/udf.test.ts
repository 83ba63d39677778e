import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realtimeArea } from "../../src/emulator/areas/realtime";
import { buildUdfBody } from "../../src/kinds/udf/udf-body";
import { udfKind } from "../../src/kinds/udf/resource";
import { useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost, programFolder, type Props } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:Udf::u";
let host: ProviderHost;
let __provider: string;
let canvasId: string;
let otherCanvasId: string;

/** Writes a file in the program folder, where the host resolves relative `codePath`s. */
function programFile(path: string, text: string): void {
  const full = join(programFolder(), path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, text);
}

const cacheRows = (udfId: string) => fx.emu.env.store.all("SELECT * FROM udf_cache WHERE udf_id = ?", udfId).length;
function cacheSomeResults(udfId: string): void {
  const now = new Date().toISOString();
  fx.emu.env.store.run(
    "INSERT INTO udf_cache (udf_id, z, x, y, created_at) VALUES (?, NULL, NULL, NULL, ?)",
    udfId,
    now,
  );
  fx.emu.env.store.run("INSERT INTO udf_cache (udf_id, z, x, y, created_at) VALUES (?, 3, 1, 2, ?)", udfId, now);
}

async function checked(news: Props, olds: Props = {}): Promise<Props> {
  const r = await host.check(URN, olds, { __provider, ...news });
  expect(r.failures).toEqual([]);
  return r.inputs;
}

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("Udf");
  canvasId = (await fx.user.canvases.create({ name: "udf_prov" })).id;
  otherCanvasId = (await fx.user.canvases.create({ name: "udf_prov_other" })).id;
});
afterAll(async () => host?.stop());

describe("Udf through the dynamic-provider host", () => {
  it("GIVEN a serialized provider THEN it holds no client, schema, URL or token", () => {
    expect(__provider).toContain('require("svc-iac/provider-runtime")');
    expect(__provider).toContain('"Udf"');
    expect(__provider).not.toContain(fx.emu.tokens.user_token);
    expect(__provider).not.toContain(fx.emu.baseUrl);
  });

  it("runs check, create, read, diff, update (code from a file, rename, move) and delete against the platform", async () => {
    programFile("udfs/listings.py", "def udf(city='nyc'):\n    import utils\n    return utils.load(city)\n");
    programFile("udfs/utils.py", "def load(city):\n    return city\n");
    const args = {
      canvasId,
      slug: "listings",
      codePath: "udfs/listings.py",
      headers: [{ moduleName: "utils", codePath: "udfs/utils.py" }],
      metadata: { "fused:tags": ["demo"] },
    };

    // GIVEN code in .py files WHEN checked THEN their content is the code
    const inputs = await checked(args);
    expect(inputs).toEqual({
      __provider,
      canvasId,
      slug: "listings",
      code: "def udf(city='nyc'):\n    import utils\n    return utils.load(city)\n",
      entrypoint: "udf",
      headers: [{ moduleName: "utils", code: "def load(city):\n    return city\n" }],
      metadata: { "fused:tags": ["demo"] },
      createSharedToken: false,
    });

    // WHEN created THEN the platform holds the body built from them
    const created = await host.create(URN, inputs);
    const onPlatform = await fx.user.udfs.getById(created.id);
    expect(onPlatform).toMatchObject({ slug: "listings", collection_id: canvasId });
    expect(onPlatform.udf_body).toBe(
      buildUdfBody({
        name: "listings",
        entrypoint: "udf",
        code: inputs.code as string,
        headers: inputs.headers as never,
        metadata: { "fused:tags": ["demo"] },
      }),
    );
    expect(JSON.parse(onPlatform.udf_body)).toMatchObject({
      type: "geopandas_v2",
      headers: [{ module_name: "utils", source_file: "utils.py", source_code: "def load(city):\n    return city\n" }],
      parameters: {},
      table_schema: null,
      original_headers: null,
    });
    expect(created.properties).toMatchObject({
      id: created.id,
      udfBodyHash: onPlatform.udf_body_hash,
      slug: "listings",
    });
    expect(created.properties).not.toHaveProperty("sharedToken");

    const read = await host.read(URN, created.id, created.properties);
    expect(read).toEqual({ id: created.id, properties: created.properties });
    expect(await host.diff(URN, created.id, created.properties, await checked(args))).toMatchObject({
      changes: "none",
    });

    // GIVEN the file edited WHEN checked again THEN the diff sees the content change, in place
    programFile("udfs/listings.py", "def udf(city='sf'):\n    return city\n");
    const edited = await checked(args, created.properties);
    expect(await host.diff(URN, created.id, created.properties, edited)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await host.update(URN, created.id, created.properties, edited);
    const afterEdit = await fx.user.udfs.getById(created.id);
    expect(JSON.parse(afterEdit.udf_body).code).toBe("def udf(city='sf'):\n    return city\n");
    expect(updated.properties.udfBodyHash).toBe(afterEdit.udf_body_hash);
    expect(afterEdit.udf_body_hash).not.toBe(onPlatform.udf_body_hash);

    // WHEN renamed and moved to another canvas THEN it is the same UDF, updated in place
    const moved = await checked(
      { ...args, canvasId: otherCanvasId, slug: "listings-v2", entrypoint: "main" },
      updated.properties,
    );
    expect(await host.diff(URN, created.id, updated.properties, moved)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const afterMove = await host.update(URN, created.id, updated.properties, moved);
    expect(afterMove.properties).toMatchObject({ canvasId: otherCanvasId, slug: "listings-v2", entrypoint: "main" });
    expect(await fx.user.udfs.getById(created.id)).toMatchObject({ collection_id: otherCanvasId, slug: "listings-v2" });
    expect((await fx.user.canvases.getById(canvasId)).udfs.map((u) => u.id)).not.toContain(created.id);

    await host.delete(URN, created.id, afterMove.properties);
    await expect(fx.user.udfs.getById(created.id)).rejects.toMatchObject({ status: 404 });
    // Deleting again (already gone) is fine, and a read says it is gone.
    await host.delete(URN, created.id, afterMove.properties);
    const gone = await host.read(URN, created.id, afterMove.properties);
    expect(gone.id).toBe("");
    expect(Object.keys(gone.properties).filter((k) => k !== "__provider")).toEqual([]);
  });

  it("GIVEN createSharedToken THEN returns the per-UDF token only as the secret output, and a change replaces the UDF, old first", async () => {
    const inputs = await checked({
      canvasId,
      slug: "shared-one",
      code: "def udf(): return 1\n",
      createSharedToken: true,
    });
    const created = await host.create(URN, inputs);
    const token = created.properties.sharedToken as string;
    expect(token).toMatch(/^fsh_/);
    expect((await fx.anon.sharing.getSharedUdf(token)).id).toBe(created.id);
    const { sharedToken: _s, ...plain } = created.properties;
    expect(JSON.stringify(plain)).not.toContain(token);
    expect(udfKind.secretOutputs).toEqual(["sharedToken"]);

    const without = await checked(
      { canvasId, slug: "shared-one", code: "def udf(): return 1\n", createSharedToken: false },
      created.properties,
    );
    const d = await host.diff(URN, created.id, created.properties, without);
    expect(d).toEqual({ changes: "some", replaces: ["createSharedToken"], deleteBeforeReplace: true });
    expect(JSON.stringify(d)).not.toContain(token);
    expect(JSON.stringify(udfKind.diff(created.properties as never, without as never))).not.toContain(token);

    // The engine's order for deleteBeforeReplace: delete the old, then create the new.
    await host.delete(URN, created.id, created.properties);
    const replaced = await host.create(URN, without);
    expect(replaced.id).not.toBe(created.id);
    expect(replaced.properties).not.toHaveProperty("sharedToken");
    await expect(fx.anon.sharing.getSharedUdf(token)).rejects.toMatchObject({ status: 404 });
    const onCanvas = (await fx.user.canvases.getById(canvasId)).udfs.filter((u) => u.slug === "shared-one");
    expect(onCanvas.map((u) => u.id)).toEqual([replaced.id]);
  });

  it("adopts a UDF that already has the slug on the canvas, rewriting its body, instead of making a second one", async () => {
    const existing = await fx.user.udfs.create({
      slug: "adopt-me",
      udf_body: '{"code":"old"}',
      collection_id: canvasId,
    });
    const inputs = await checked({ canvasId, slug: "adopt-me", code: "def udf(): return 'new'\n" });
    const created = await host.create(URN, inputs);
    expect(created.id).toBe(existing.id);
    expect(JSON.parse((await fx.user.udfs.getById(existing.id)).udf_body).code).toBe("def udf(): return 'new'\n");
    expect((await fx.user.canvases.getById(canvasId)).udfs.filter((u) => u.slug === "adopt-me")).toHaveLength(1);

    // A second create (a lost answer retried) adopts again and leaves an identical body untouched.
    const before = await fx.user.udfs.getById(existing.id);
    const again = await host.create(URN, inputs);
    expect(again.id).toBe(existing.id);
    expect(await fx.user.udfs.getById(existing.id)).toMatchObject({
      udf_body_hash: before.udf_body_hash,
      last_updated: before.last_updated,
    });
    await host.delete(URN, created.id, created.properties);
  });

  describe("the real-time cache after a body change", () => {
    let sharedCanvasId: string;
    beforeAll(async () => {
      sharedCanvasId = (await fx.user.canvases.create({ name: "udf_prov_shared" })).id;
      await fx.user.sharing.share({ collectionId: sharedCanvasId, clientId: fx.emu.clientId });
    });

    it("GIVEN a shared canvas WHEN the body changes THEN the UDF's cached results are dropped", async () => {
      const inputs = await checked({ canvasId: sharedCanvasId, slug: "cached", code: "def udf(): return 1\n" });
      const created = await host.create(URN, inputs);
      cacheSomeResults(created.id);
      const next = await checked(
        { canvasId: sharedCanvasId, slug: "cached", code: "def udf(): return 2\n" },
        created.properties,
      );
      const updated = await host.update(URN, created.id, created.properties, next);
      expect(cacheRows(created.id)).toBe(0);

      // Not only through the platform's own rule: with it switched off, the provider still clears the cache.
      fx.emu.env.store.migrate("DROP TRIGGER udf_cache_body_changed");
      try {
        cacheSomeResults(created.id);
        const third = await checked(
          { canvasId: sharedCanvasId, slug: "cached", code: "def udf(): return 3\n" },
          updated.properties,
        );
        const after = await host.update(URN, created.id, updated.properties, third);
        expect(cacheRows(created.id)).toBe(0);

        // An update that leaves the body as it is keeps the cache.
        cacheSomeResults(created.id);
        const renamed = await checked(
          { canvasId: sharedCanvasId, slug: "cached", code: "def udf(): return 3\n" },
          after.properties,
        );
        await host.update(URN, created.id, after.properties, renamed);
        expect(cacheRows(created.id)).toBe(2);
      } finally {
        fx.emu.env.store.migrate(realtimeArea.ddl!);
      }
    });

    it("GIVEN a UDF adopted on a shared canvas WHEN its body is rewritten THEN its cached results are dropped", async () => {
      const existing = await fx.user.udfs.create({
        slug: "adopted-cached",
        udf_body: '{"code":"old"}',
        collection_id: sharedCanvasId,
      });
      fx.emu.env.store.migrate("DROP TRIGGER udf_cache_body_changed");
      try {
        cacheSomeResults(existing.id);
        const created = await host.create(
          URN,
          await checked({ canvasId: sharedCanvasId, slug: "adopted-cached", code: "def udf(): ..." }),
        );
        expect(created.id).toBe(existing.id);
        expect(cacheRows(existing.id)).toBe(0);
      } finally {
        fx.emu.env.store.migrate(realtimeArea.ddl!);
      }
    });

    it("GIVEN a canvas that is not shared THEN no invalidation is asked for", async () => {
      const inputs = await checked({ canvasId, slug: "not-shared", code: "def udf(): return 1\n" });
      const created = await host.create(URN, inputs);
      fx.emu.env.store.migrate("DROP TRIGGER udf_cache_body_changed");
      try {
        cacheSomeResults(created.id);
        const next = await checked({ canvasId, slug: "not-shared", code: "def udf(): return 2\n" }, created.properties);
        await host.update(URN, created.id, created.properties, next);
        expect(cacheRows(created.id)).toBe(2);
      } finally {
        fx.emu.env.store.migrate(realtimeArea.ddl!);
      }
    });
  });

  it("reports every bad input at once in check, and nothing reaches the platform", async () => {
    const before = (await fx.user.udfs.listExecEnv().toArray()).length;
    const r = await host.check(
      URN,
      {},
      { __provider, canvasId, slug: "no spaces", codePath: "udfs/missing.py", headers: [{ moduleName: "utils" }] },
    );
    expect(r.failures).toEqual([
      {
        property: "slug",
        reason:
          "Invalid slug \"no spaces\". A slug is URL-safe: letters, digits, '_' and '-' only ([A-Za-z0-9_-]+), e.g. \"load-listings\".",
      },
      {
        property: "codePath",
        reason: `Invalid codePath "udfs/missing.py". No readable file at ${join(programFolder(), "udfs/missing.py")} (ENOENT); paths are relative to the Pulumi program folder.`,
      },
      {
        property: "headers[0].code",
        reason:
          "headers[0].code is required: give the Python source in headers[0].code, or the path of a .py file in headers[0].codePath.",
      },
    ]);
    const missing = await host.check(URN, {}, { __provider });
    expect(missing.failures.map((f) => f.property)).toEqual(["canvasId", "slug", "code"]);
    await expect(host.create(URN, { __provider, canvasId, slug: "no spaces", code: "x" })).rejects.toBeInstanceOf(
      HostError,
    );
    expect((await fx.user.udfs.listExecEnv().toArray()).length).toBe(before);
  });

  it("GIVEN a canvas id that does not exist THEN create fails with a message naming it", async () => {
    const inputs = await checked({ canvasId: "no-such-canvas", slug: "x", code: "def udf(): ..." });
    await expect(host.create(URN, inputs)).rejects.toThrow('Canvas "no-such-canvas" was not found in your team');
  });

  it("observes every UDF on a canvas with its natural key, from the paged environment listing", async () => {
    const u = await fx.user.udfs.create({
      slug: "observed",
      udf_body: buildUdfBody({ name: "observed", entrypoint: "udf", code: "c", headers: [], metadata: {} }),
      collection_id: canvasId,
    });
    const all = await udfKind.observeAll({ client: fx.user });
    const found = all.find((o) => o.id === u.id);
    expect(found).toMatchObject({
      key: `${canvasId}/observed`,
      state: { slug: "observed", code: "c", canvasId, entrypoint: "udf", udfBodyHash: u.udf_body_hash },
    });
    expect(found!.state).not.toHaveProperty("createSharedToken");
  });
});
