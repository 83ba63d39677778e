import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Udf } from "../../src/api/schemas";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-03-01T10:00:00Z");
const fx = useEmulator({ clock });

const DANA = "user-demo-1";
const BASIL = "user-demo-2";
const OLGA = "user-other-1";

/** Creates a canvas row directly (the canvases area is tested on its own). */
function canvas(envId: string, ownerUserId: string | null, name: string, opts: { public?: boolean } = {}): string {
  const id = randomUUID();
  const now = clock.now().toISOString();
  fx.emu.env.store.run(
    "INSERT INTO canvases (id, env_id, owner_user_id, name, access_scope, allow_public_read, created_at, last_updated) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
    id,
    envId,
    ownerUserId,
    name,
    opts.public ? "public" : "team",
    now,
    now,
  );
  return id;
}

const body = (code: string) => JSON.stringify({ name: "u", type: "geopandas_v2", entrypoint: "udf", code });
const cacheRows = (udfId: string) =>
  fx.emu.env.store.all("SELECT z, x, y FROM udf_cache WHERE udf_id = ?", udfId).length;
let n = 0;
const uniq = (p: string) => `${p}_${++n}`;

describe("udfs (4.9): create", () => {
  it("GIVEN no canvas WHEN creating THEN the UDF lands on the user's default canvas at the next position", async () => {
    const a = await fx.basic.udfs.create({ slug: uniq("first"), udf_body: body("a") });
    const b = await fx.basic.udfs.create({ slug: uniq("second"), udf_body: body("b") });
    expect(a).toMatchObject({
      collection_id: null,
      collection_name: null,
      is_visible: true,
      udf_body: body("a"),
      last_updated: "2026-03-01T10:00:00.000Z",
    });
    expect(a.owning_user).toMatchObject({ id: BASIL, handle: "basil" });
    expect(b.position).toBe(a.position + 1);
    expect(a.shared_token).toBeUndefined();
    expect(await fx.basic.udfs.getById(a.id)).toEqual(a);
  });

  it("GIVEN a canvas of the team WHEN creating on it THEN collection_id, collection_name and positions follow the canvas", async () => {
    const c = canvas("env-demo", DANA, uniq("cv"));
    const a = await fx.user.udfs.create({ slug: "one", udf_body: body("1"), collection_id: c });
    const b = await fx.user.udfs.create({ slug: "two", udf_body: body("2"), collection_id: c });
    expect(a).toMatchObject({ collection_id: c, position: 0 });
    expect(b).toMatchObject({ collection_id: c, position: 1 });
    expect(a.collection_name).toMatch(/^cv_/);
  });

  it("refuses a canvas of another team with 404", async () => {
    const c = canvas("env-other", OLGA, uniq("olga_cv"), { public: true });
    const e = await failure(fx.user.udfs.create({ slug: "x", udf_body: body("x"), collection_id: c }));
    expect(e).toMatchObject({ status: 404, code: "not_found", detail: "Canvas not found" });
  });

  it("refuses a slug taken on the same canvas or the same default canvas (409), but not elsewhere", async () => {
    const c = canvas("env-demo", DANA, uniq("dup"));
    await fx.user.udfs.create({ slug: "same", udf_body: body("1"), collection_id: c });
    const e = await failure(fx.user.udfs.create({ slug: "same", udf_body: body("2"), collection_id: c }));
    expect(e).toMatchObject({
      status: 409,
      code: "conflict",
      detail: expect.stringMatching(/^A UDF with slug "same" already exists on canvas "dup_\d+"$/),
    });

    const slug = uniq("dflt");
    await fx.user.udfs.create({ slug, udf_body: body("1") });
    const d = await failure(fx.user.udfs.create({ slug, udf_body: body("2") }));
    expect(d).toMatchObject({ status: 409, detail: `A UDF with slug "${slug}" already exists on the default canvas` });
    // Another canvas, and another user's default canvas, are free.
    await fx.user.udfs.create({
      slug: "same",
      udf_body: body("3"),
      collection_id: canvas("env-demo", DANA, uniq("dup")),
    });
    expect((await fx.basic.udfs.create({ slug, udf_body: body("4") })).slug).toBe(slug);
  });

  it("refuses a udf_type other than auto, a missing one, and a slug that is not URL-safe (422 with loc)", async () => {
    const wrong = await failure(fx.user.udfs.create({ slug: "t", udf_body: "{}", udf_type: "python" as "auto" }));
    expect(wrong).toMatchObject({ status: 422, code: "validation_failed" });
    expect(wrong.detail).toEqual([{ loc: ["body", "udf_type"], msg: "Input should be 'auto'", type: "literal_error" }]);
    const missing = await failure(fx.user.udfs.create({ slug: "t", udf_body: "{}", udf_type: undefined }));
    expect(missing.detail).toEqual([{ loc: ["body", "udf_type"], msg: "Field required", type: "missing" }]);
    const slug = await failure(fx.user.udfs.create({ slug: "no spaces/ok", udf_body: "{}" }));
    expect(slug.status).toBe(422);
    expect(slug.detail).toEqual([
      { loc: ["body", "slug"], msg: "The slug may only contain letters, digits, '_' and '-'", type: "value_error" },
    ]);
  });

  it("GIVEN create_shared_token WHEN creating THEN an fsh_ token comes back and is stored with its scope", async () => {
    const u = await fx.user.udfs.create({
      slug: uniq("shared"),
      udf_body: body("s"),
      create_shared_token: true,
      shared_token_access_scope: "public",
    });
    expect(u.shared_token).toMatch(/^fsh_/);
    const row = fx.emu.env.store.get<{ udf_id: string; access_scope: string }>(
      "SELECT udf_id, access_scope FROM udf_shared_tokens WHERE token = ?",
      u.shared_token!,
    );
    expect(row).toEqual({ udf_id: u.id, access_scope: "public" });
  });

  it("refuses a service token (403) and no credentials (401)", async () => {
    const s = await failure(fx.service.udfs.create({ slug: "svc", udf_body: "{}" }));
    expect(s).toMatchObject({
      status: 403,
      code: "forbidden",
      detail: "This endpoint acts on a user; a service account token cannot be used",
    });
    expect(await failure(fx.anon.udfs.create({ slug: "anon", udf_body: "{}" }))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
  });
});

describe("udfs (4.9): listings", () => {
  it("GIVEN five UDFs of Olga WHEN listing /udf/self with page size 2 THEN three pages hold them in creation order", async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      made.push((await fx.other.udfs.create({ slug: `page_${i}`, udf_body: body(String(i)) })).id);
    }
    const pages: Udf[][] = [];
    for await (const p of fx.other.udfs.listSelf({ pageSize: 2 }).pages()) pages.push(p);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((u) => u.id)).toEqual(made);
    expect((await fx.other.udfs.listSelf({ skip: 3 }).toArray()).map((u) => u.id)).toEqual(made.slice(3));
  });

  it("lists only the user's own UDFs on /udf/self, and the whole team's on /udf/exec-env/self", async () => {
    const mine = await fx.user.udfs.create({ slug: uniq("mine"), udf_body: "{}" });
    const basils = await fx.basic.udfs.create({ slug: uniq("basils"), udf_body: "{}" });
    const self = (await fx.user.udfs.listSelf().toArray()).map((u) => u.id);
    expect(self).toContain(mine.id);
    expect(self).not.toContain(basils.id);
    const team = (await fx.service.udfs.listExecEnv({ pageSize: 3 }).toArray()).map((u) => u.id);
    expect(team).toEqual(expect.arrayContaining([mine.id, basils.id]));
    const others = (await fx.other.udfs.listExecEnv().toArray()).map((u) => u.id);
    expect(others).not.toContain(mine.id);
    expect(others.length).toBeGreaterThanOrEqual(5);
  });

  it("refuses /udf/self to a service token (403) and both listings without credentials (401)", async () => {
    expect(await failure(fx.service.udfs.listSelf().toArray())).toMatchObject({
      status: 403,
      path: "/udf/self?skip=0&limit=300",
    });
    expect(await failure(fx.anon.udfs.listSelf().toArray())).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.udfs.listExecEnv().toArray())).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
  });
});

describe("udfs (4.9): lookups", () => {
  let priv: string, pub: string, onPriv: Udf, onPub: Udf, dflt: Udf;
  const slug = "lookme";
  it("GIVEN Dana's UDFs on a private canvas, a public canvas and her default canvas", async () => {
    priv = uniq("priv");
    pub = uniq("pub");
    onPriv = await fx.user.udfs.create({ slug, udf_body: body("priv"), collection_id: canvas("env-demo", DANA, priv) });
    onPub = await fx.user.udfs.create({
      slug,
      udf_body: body("pub"),
      collection_id: canvas("env-demo", DANA, pub, { public: true }),
    });
    dflt = await fx.user.udfs.create({ slug, udf_body: body("default") });
    expect(new Set([onPriv.id, onPub.id, dflt.id]).size).toBe(3);
  });

  it("reads by id: the team (user or service) sees all; others and anonymous callers only the public canvas's", async () => {
    for (const u of [onPriv, onPub, dflt]) {
      expect((await fx.basic.udfs.getById(u.id)).id).toBe(u.id);
      expect((await fx.service.udfs.getById(u.id)).id).toBe(u.id);
    }
    expect((await fx.other.udfs.getById(onPub.id)).udf_body).toBe(body("pub"));
    expect((await fx.anon.udfs.getById(onPub.id)).udf_body).toBe(body("pub"));
    for (const u of [onPriv, dflt]) {
      expect(await failure(fx.other.udfs.getById(u.id))).toMatchObject({ status: 404, detail: "UDF not found" });
      expect(await failure(fx.anon.udfs.getById(u.id))).toMatchObject({ status: 404, detail: "UDF not found" });
    }
    expect(await failure(fx.user.udfs.getById("no-such-udf"))).toMatchObject({ status: 404, detail: "UDF not found" });
  });

  it("reads the environment's UDF by canvas name and slug, and on the default canvas without a name", async () => {
    expect((await fx.service.udfs.getExecEnvBySlug(slug, priv)).id).toBe(onPriv.id);
    expect((await fx.user.udfs.getExecEnvBySlug(slug, pub)).id).toBe(onPub.id);
    expect((await fx.service.udfs.getExecEnvBySlug(slug)).id).toBe(dflt.id);
    expect(await failure(fx.service.udfs.getExecEnvBySlug(slug, "nope"))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.service.udfs.getExecEnvBySlug("nope", priv))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    expect(await failure(fx.other.udfs.getExecEnvBySlug(slug, priv))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.other.udfs.getExecEnvBySlug(slug))).toMatchObject({ status: 404, detail: "UDF not found" });
    expect(await failure(fx.anon.udfs.getExecEnvBySlug(slug))).toMatchObject({ status: 401 });
  });

  it("reads by owner handle and by owner email, with and without a canvas name", async () => {
    for (const c of [fx.user, fx.basic, fx.service]) {
      expect((await c.udfs.getByUserHandle("dana", slug, priv)).id).toBe(onPriv.id);
      expect((await c.udfs.getByUserHandle("dana", slug)).id).toBe(dflt.id);
      expect((await c.udfs.getByUserEmail("dana@demo.example", slug, pub)).id).toBe(onPub.id);
      expect((await c.udfs.getByUserEmail("dana@demo.example", slug)).id).toBe(dflt.id);
    }
  });

  it("GIVEN another team WHEN looking up by owner THEN only the public canvas's UDF is visible (404 otherwise)", async () => {
    expect((await fx.other.udfs.getByUserHandle("dana", slug, pub)).id).toBe(onPub.id);
    expect((await fx.other.udfs.getByUserEmail("dana@demo.example", slug, pub)).id).toBe(onPub.id);
    expect(await failure(fx.other.udfs.getByUserHandle("dana", slug, priv))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.other.udfs.getByUserEmail("dana@demo.example", slug, priv))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.other.udfs.getByUserHandle("dana", slug))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    expect(await failure(fx.other.udfs.getByUserEmail("dana@demo.example", slug))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
  });

  it("answers 404 for an unknown owner, canvas or slug, and 401 without credentials", async () => {
    expect(await failure(fx.user.udfs.getByUserHandle("nobody", slug))).toMatchObject({
      status: 404,
      detail: "User not found",
    });
    expect(await failure(fx.user.udfs.getByUserEmail("nobody@x.example", slug, pub))).toMatchObject({
      status: 404,
      detail: "User not found",
    });
    expect(await failure(fx.user.udfs.getByUserHandle("dana", slug, "nope"))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.user.udfs.getByUserHandle("dana", "nope", pub))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    expect(await failure(fx.user.udfs.getByUserEmail("dana@demo.example", "nope"))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    // Basil's canvas is not Dana's, even inside the same team.
    const bc = uniq("basils_cv");
    await fx.basic.udfs.create({ slug, udf_body: "{}", collection_id: canvas("env-demo", BASIL, bc) });
    expect(await failure(fx.user.udfs.getByUserHandle("dana", slug, bc))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.anon.udfs.getByUserHandle("dana", slug, pub))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
  });
});

describe("udfs (4.9): update and delete", () => {
  it("changes udf_body_hash exactly when the body changes, and last_updated with every change", async () => {
    const u = await fx.user.udfs.create({ slug: uniq("hash"), udf_body: body("v1") });
    clock.advance(60_000);
    const same = await fx.user.udfs.update(u.id, { udf_body: body("v1") });
    expect(same.udf_body_hash).toBe(u.udf_body_hash);
    expect(same.last_updated).toBe(u.last_updated);
    const renamed = await fx.user.udfs.update(u.id, { slug: uniq("renamed") });
    expect(renamed.udf_body_hash).toBe(u.udf_body_hash);
    expect(renamed.last_updated).toBe(clock.now().toISOString());
    clock.advance(60_000);
    const changed = await fx.user.udfs.update(u.id, { udf_body: body("v2") });
    expect(changed.udf_body_hash).not.toBe(u.udf_body_hash);
    expect(changed.last_updated).toBe(clock.now().toISOString());
    const back = await fx.user.udfs.update(u.id, { udf_body: body("v1") });
    expect(back.udf_body_hash).toBe(u.udf_body_hash);
    expect(await fx.user.udfs.getById(u.id)).toMatchObject({ slug: renamed.slug, udf_body: body("v1") });
  });

  it("GIVEN cached results WHEN the body changes THEN they are dropped, but not when only the slug changes", async () => {
    const u = await fx.user.udfs.create({ slug: uniq("cached"), udf_body: body("v1") });
    const now = clock.now().toISOString();
    fx.emu.env.store.run(
      "INSERT INTO udf_cache (udf_id, z, x, y, created_at) VALUES (?, NULL, NULL, NULL, ?), (?, 3, 1, 2, ?)",
      u.id,
      now,
      u.id,
      now,
    );
    await fx.user.udfs.update(u.id, { slug: uniq("cached"), udf_body: body("v1") });
    expect(cacheRows(u.id)).toBe(2);
    await fx.user.udfs.update(u.id, { udf_body: body("v2") });
    expect(cacheRows(u.id)).toBe(0);
  });

  it("moves a UDF between canvases and to the default canvas, refusing a slug clash in the target (409)", async () => {
    const a = canvas("env-demo", DANA, uniq("from"));
    const b = canvas("env-demo", DANA, uniq("to"));
    await fx.user.udfs.create({ slug: "taken", udf_body: "{}", collection_id: b });
    await fx.user.udfs.create({ slug: "other", udf_body: "{}", collection_id: b });
    const u = await fx.user.udfs.create({ slug: "taken", udf_body: "{}", collection_id: a });
    const clash = await failure(fx.user.udfs.update(u.id, { collection_id: b }));
    expect(clash).toMatchObject({
      status: 409,
      detail: expect.stringMatching(/^A UDF with slug "taken" already exists on canvas "to_\d+"$/),
    });
    const moved = await fx.user.udfs.update(u.id, { collection_id: b, slug: "moved" });
    expect(moved).toMatchObject({ collection_id: b, slug: "moved", position: 2 });
    expect((await fx.user.udfs.getExecEnvBySlug("moved", moved.collection_name!)).id).toBe(u.id);
    const home = await fx.user.udfs.update(u.id, { collection_id: null });
    expect(home).toMatchObject({ collection_id: null, collection_name: null });
    expect((await fx.user.udfs.getByUserHandle("dana", "moved")).id).toBe(u.id);
    const clashSlug = await failure(fx.user.udfs.update(u.id, { collection_id: b, slug: "other" }));
    expect(clashSlug.status).toBe(409);
    const foreign = await failure(
      fx.user.udfs.update(u.id, { collection_id: canvas("env-other", OLGA, uniq("foreign")) }),
    );
    expect(foreign).toMatchObject({ status: 404, detail: "Canvas not found" });
    expect((await fx.user.udfs.getById(u.id)).collection_id).toBeNull();
  });

  it("refuses updates from another team (404), a service token (403) and an invalid slug (422)", async () => {
    const u = await fx.user.udfs.create({ slug: uniq("guarded"), udf_body: "{}" });
    expect(await failure(fx.other.udfs.update(u.id, { udf_body: "x" }))).toMatchObject({
      status: 404,
      detail: "UDF not found",
    });
    expect(await failure(fx.service.udfs.update(u.id, { udf_body: "x" }))).toMatchObject({
      status: 403,
      code: "forbidden",
    });
    const bad = await failure(fx.user.udfs.update(u.id, { slug: "a b" }));
    expect(bad.detail).toEqual([
      { loc: ["body", "slug"], msg: "The slug may only contain letters, digits, '_' and '-'", type: "value_error" },
    ]);
    expect((await fx.user.udfs.getById(u.id)).udf_body).toBe("{}");
  });

  it("GIVEN a UDF with a shared token and cached results WHEN deleted THEN the record comes back and token, cache and UDF are gone", async () => {
    const u = await fx.user.udfs.create({ slug: uniq("doomed"), udf_body: body("d"), create_shared_token: true });
    fx.emu.env.store.run(
      "INSERT INTO udf_cache (udf_id, z, x, y, created_at) VALUES (?, 1, 0, 0, ?)",
      u.id,
      clock.now().toISOString(),
    );
    expect(await failure(fx.other.udfs.delete(u.id))).toMatchObject({ status: 404, detail: "UDF not found" });
    expect(await failure(fx.service.udfs.delete(u.id))).toMatchObject({ status: 403 });
    const { shared_token, ...record } = u;
    expect(await fx.user.udfs.delete(u.id)).toEqual(record);
    expect(await failure(fx.user.udfs.getById(u.id))).toMatchObject({ status: 404, detail: "UDF not found" });
    expect(fx.emu.env.store.get("SELECT token FROM udf_shared_tokens WHERE token = ?", shared_token!)).toBeUndefined();
    expect(cacheRows(u.id)).toBe(0);
    expect(await failure(fx.user.udfs.delete(u.id))).toMatchObject({ status: 404, detail: "UDF not found" });
  });
});
