import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { bodyHash } from "../../src/emulator/catalog";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

/** A UDF body as the platform stores it: a JSON string. */
const body = (name: string, code = `@fused.udf\ndef udf():\n    return "${name}"\n`) =>
  JSON.stringify({
    name,
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    headers: [],
    metadata: {},
    parameters: {},
    table_schema: null,
    original_headers: null,
  });

const SERVICE_403 = "This endpoint acts on a user; a service account token cannot be used";
const udfRows = (canvasId: string) =>
  fx.emu.env.store.all<{ id: string }>("SELECT id FROM udfs WHERE collection_id = ?", canvasId);

describe("canvases: create and read (4.7)", () => {
  it("GIVEN a user WHEN creating a canvas with one UDF THEN the full canvas comes back with the spec's defaults", async () => {
    const c = await fx.user.canvases.create({
      name: "first_canvas",
      udfs: [{ slug: "loader", udf_body: body("loader") }],
      dashboard_body: '{"rows":[]}',
      preview_image_url: "https://img.example/first.png",
    });
    expect(c).toMatchObject({
      name: "first_canvas",
      access_scope: "team",
      username: "dana",
      allow_public_read: false,
      share_token: null,
      share_client_id: null,
      passcode: null,
      dashboard_body: '{"rows":[]}',
      preview_image_url: "https://img.example/first.png",
      owning_execution_environment: { id: "env-demo", name: "demo" },
      owning_user: { handle: "dana" },
    });
    expect(c.udfs).toHaveLength(1);
    expect(c.udfs[0]).toMatchObject({
      slug: "loader",
      udf_body: body("loader"),
      udf_body_hash: bodyHash(body("loader")),
      collection_id: c.id,
      collection_name: "first_canvas",
      is_visible: true,
      position: 0,
    });
    expect(await fx.user.canvases.getById(c.id)).toEqual(c);
  });

  it("GIVEN a canvas WHEN reading it by name, by team slug (user and service token) and by owner handle THEN each finds it", async () => {
    const c = await fx.user.canvases.create({ name: "findable" });
    expect((await fx.user.canvases.getByName("findable")).id).toBe(c.id);
    expect((await fx.user.canvases.getExecEnvBySlug("findable")).id).toBe(c.id);
    expect((await fx.service.canvases.getExecEnvBySlug("findable")).id).toBe(c.id);
    expect((await fx.basic.canvases.getBySlug("dana", "findable")).id).toBe(c.id);
    expect((await fx.service.canvases.getById(c.id)).id).toBe(c.id);
  });

  it("GIVEN names that do not exist or belong to someone else WHEN read by name THEN 404 with a clear detail", async () => {
    await fx.user.canvases.create({ name: "danas_only" });
    expect(await failure(fx.basic.canvases.getByName("danas_only"))).toMatchObject({
      status: 404,
      detail: 'You have no canvas named "danas_only"',
    });
    expect(await failure(fx.service.canvases.getExecEnvBySlug("nope"))).toMatchObject({
      status: 404,
      detail: 'The team has no canvas named "nope"',
    });
    expect(await failure(fx.other.canvases.getExecEnvBySlug("danas_only"))).toMatchObject({ status: 404 });
    expect(await failure(fx.user.canvases.getBySlug("nobody", "danas_only"))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.user.canvases.getById("no-such-id"))).toMatchObject({
      status: 404,
      code: "not_found",
      detail: "Canvas not found",
    });
  });

  it("GIVEN a name outside [A-Za-z0-9_] or none at all WHEN creating THEN 422 at body.name", async () => {
    for (const name of ["has-dash", "has space", ""]) {
      const e = await failure(fx.user.canvases.create({ name }));
      expect(e).toMatchObject({ status: 422, code: "validation_failed" });
      expect(e.detail).toEqual([
        {
          loc: ["body", "name"],
          msg: "Canvas names may only contain letters, digits and underscores ([A-Za-z0-9_]), and must not be empty",
          type: "string_pattern_mismatch",
        },
      ]);
    }
    const missing = await failure(fx.user.canvases.create({} as never));
    expect(missing.detail).toEqual([{ loc: ["body", "name"], msg: "Field required", type: "missing" }]);
    const scope = await failure(fx.user.canvases.create({ name: "bad_scope", access_scope: "world" as never }));
    expect(scope.detail[0]).toMatchObject({ loc: ["body", "access_scope"], type: "literal_error" });
    expect(await failure(fx.user.canvases.getByName("bad_scope"))).toMatchObject({ status: 404 });
  });

  it("GIVEN a taken name in the team WHEN creating or renaming onto it THEN 409, and the other team may use the name", async () => {
    await fx.user.canvases.create({ name: "taken_name" });
    expect(await failure(fx.basic.canvases.create({ name: "taken_name" }))).toMatchObject({
      status: 409,
      code: "conflict",
      detail: 'A canvas named "taken_name" already exists in this team',
    });
    const mine = await fx.user.canvases.create({ name: "to_rename" });
    expect(await failure(fx.user.canvases.update(mine.id, { name: "taken_name" }))).toMatchObject({
      status: 409,
      detail: 'A canvas named "taken_name" already exists in this team',
    });
    expect((await fx.user.canvases.getById(mine.id)).name).toBe("to_rename");
    expect((await fx.other.canvases.create({ name: "taken_name" })).name).toBe("taken_name");
  });

  it("GIVEN a passcode WHEN an error message would contain it THEN the client redacts it", async () => {
    await fx.user.canvases.create({ name: "secret_word_1", passcode: "secret_word_1" });
    const e = await failure(fx.user.canvases.create({ name: "secret_word_1", passcode: "secret_word_1" }));
    expect(e.status).toBe(409);
    expect(e.detail).toBe('A canvas named "[REDACTED]" already exists in this team');
    expect(e.message).not.toContain("secret_word_1");
  });
});

describe("canvases: listings", () => {
  it("GIVEN 7 canvases of one user WHEN listed with page size 3 THEN pages of 3, 3, 1 in creation order, full and lite", async () => {
    const names = Array.from({ length: 7 }, (_, i) => `page_${i}`);
    for (const name of names) await fx.basic.canvases.create({ name });
    const pages: string[][] = [];
    for await (const page of fx.basic.canvases.listSelf({ pageSize: 3 }).pages()) pages.push(page.map((c) => c.name));
    expect(pages).toEqual([names.slice(0, 3), names.slice(3, 6), names.slice(6)]);
    const litePages: number[] = [];
    for await (const page of fx.basic.canvases.listSelfLite({ pageSize: 3 }).pages()) litePages.push(page.length);
    expect(litePages).toEqual([3, 3, 1]);
    const fromSkip: string[][] = [];
    for await (const page of fx.basic.canvases.listSelf({ skip: 2, pageSize: 3 }).pages())
      fromSkip.push(page.map((c) => c.name));
    expect(fromSkip).toEqual([names.slice(2, 5), names.slice(5, 7)]);
    expect((await fx.basic.canvases.listSelf().toArray()).map((c) => c.name)).toEqual(names);
  });

  it("GIVEN a canvas WHEN listed lite THEN it has udf_ids and omits exactly dashboard_body, share_client_id, owning_user, owning_execution_environment", async () => {
    const c = await fx.user.canvases.create({
      name: "lite_shape",
      dashboard_body: "{}",
      udfs: [
        { slug: "a", udf_body: body("a") },
        { slug: "b", udf_body: body("b") },
      ],
    });
    const lite = (await fx.user.canvases.listSelfLite().toArray()).find((x) => x.id === c.id)!;
    expect(lite.udf_ids).toEqual(c.udfs.map((u) => u.id));
    const omitted = ["dashboard_body", "share_client_id", "owning_user", "owning_execution_environment", "udfs"];
    const expectedKeys = Object.keys(c)
      .filter((k) => !omitted.includes(k))
      .concat("udf_ids")
      .sort();
    expect(Object.keys(lite).sort()).toEqual(expectedKeys);
    const teamLite = (await fx.service.canvases.listExecEnvLite()).find((x) => x.id === c.id)!;
    expect(Object.keys(teamLite).sort()).toEqual(expectedKeys);
  });

  it("GIVEN canvases of both teams WHEN listing the environment THEN only the caller's team's canvases come back", async () => {
    const mine = await fx.user.canvases.create({ name: "env_listed" });
    const theirs = await fx.other.canvases.create({ name: "env_listed" });
    const ids = (await fx.service.canvases.listExecEnv()).map((c) => c.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect((await fx.service.canvases.listExecEnv()).find((c) => c.id === mine.id)?.udfs).toEqual([]);
    expect((await fx.other.canvases.listExecEnvLite()).map((c) => c.id)).toContain(theirs.id);
    expect((await fx.other.canvases.listExecEnvLite()).map((c) => c.id)).not.toContain(mine.id);
  });

  it("GIVEN one shared and one unshared canvas WHEN listing shared THEN only the shared one appears", async () => {
    const shared = await fx.user.canvases.create({ name: "is_shared" });
    const plain = await fx.user.canvases.create({ name: "not_shared" });
    // Sharing is another area's endpoint; mark the canvas shared behind the API.
    fx.emu.env.store.run(
      "UPDATE canvases SET share_token = ?, share_client_id = ? WHERE id = ?",
      "fc_demo/is_shared",
      "rt-demo-primary",
      shared.id,
    );
    for (const list of [
      await fx.user.canvases.listSelfShared().toArray(),
      await fx.user.canvases.listSelfSharedLite().toArray(),
      await fx.service.canvases.listExecEnvShared(),
    ]) {
      const ids = list.map((c) => c.id);
      expect(ids).toContain(shared.id);
      expect(ids).not.toContain(plain.id);
    }
    expect((await fx.service.canvases.listExecEnvShared()).find((c) => c.id === shared.id)).toMatchObject({
      share_token: "fc_demo/is_shared",
      share_client_id: "rt-demo-primary",
    });
  });

  it("GIVEN a bad skip or limit WHEN listing THEN 422 at the query parameter", async () => {
    const e = await failure(fx.user.canvases.listSelf({ pageSize: 0 }).toArray());
    expect(e).toMatchObject({ status: 422 });
    expect(e.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "greater_than_equal" });
  });
});

describe("canvases: public reads", () => {
  it("GIVEN public and publicly readable canvases WHEN read without credentials THEN they are served, with no passcode", async () => {
    const pub = await fx.user.canvases.create({
      name: "pub_canvas",
      access_scope: "public",
      passcode: "hunter22",
      udfs: [{ slug: "p", udf_body: body("p") }],
    });
    const apr = await fx.user.canvases.create({ name: "apr_canvas", allow_public_read: true });
    expect(pub.passcode).toBe("hunter22");
    const anonPub = await fx.anon.canvases.getById(pub.id);
    expect(anonPub).toMatchObject({ id: pub.id, access_scope: "public", passcode: null });
    expect(anonPub.udfs.map((u) => u.udf_body)).toEqual([body("p")]);
    expect((await fx.anon.canvases.getById(apr.id)).allow_public_read).toBe(true);
    expect((await fx.anon.canvases.getBySlug("dana", "pub_canvas")).id).toBe(pub.id);
    expect((await fx.other.canvases.getById(pub.id)).passcode).toBeNull();
    expect((await fx.anon.canvases.getPublicById(apr.id)).id).toBe(apr.id);
    expect((await fx.anon.canvases.getPublicByUserAndName("dana", "pub_canvas")).id).toBe(pub.id);
    const all = await fx.anon.canvases.listPublic();
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining([pub.id, apr.id]));
    expect(all.find((c) => c.id === pub.id)!.udfs[0].udf_body).toBe(body("p"));
    const lite = await fx.anon.canvases.listPublicLite();
    expect(lite.find((c) => c.id === pub.id)!.udf_ids).toEqual([pub.udfs[0].id]);
  });

  it("GIVEN a team canvas WHEN read anonymously or by another team THEN 404, never 403", async () => {
    const team = await fx.user.canvases.create({ name: "team_only" });
    for (const p of [
      fx.anon.canvases.getById(team.id),
      fx.other.canvases.getById(team.id),
      fx.anon.canvases.getBySlug("dana", "team_only"),
      fx.other.canvases.getBySlug("dana", "team_only"),
    ]) {
      expect(await failure(p)).toMatchObject({ status: 404, code: "not_found", detail: "Canvas not found" });
    }
    for (const p of [
      fx.user.canvases.getPublicById(team.id),
      fx.anon.canvases.getPublicByUserAndName("dana", "team_only"),
    ]) {
      expect(await failure(p)).toMatchObject({ status: 404, detail: "Public canvas not found" });
    }
    expect((await fx.anon.canvases.listPublic()).map((c) => c.id)).not.toContain(team.id);
    expect((await fx.anon.canvases.listPublicLite()).map((c) => c.id)).not.toContain(team.id);
  });
});

describe("canvases: update and delete", () => {
  it("GIVEN a canvas WHEN updated THEN given fields change, left-out fields and UDFs stay, null clears", async () => {
    const c = await fx.user.canvases.create({
      name: "upd_me",
      dashboard_body: "d1",
      passcode: "pass1234",
      preview_image_url: "https://i/1",
      udfs: [{ slug: "keep", udf_body: body("keep") }],
    });
    const u = await fx.user.canvases.update(c.id, {
      name: "upd_renamed",
      access_scope: "public",
      preview_image_url: null,
    });
    expect(u).toMatchObject({
      id: c.id,
      name: "upd_renamed",
      access_scope: "public",
      dashboard_body: "d1",
      passcode: "pass1234",
      preview_image_url: null,
    });
    const back = await fx.user.canvases.getById(c.id);
    expect(back).toMatchObject({
      name: "upd_renamed",
      access_scope: "public",
      dashboard_body: "d1",
      preview_image_url: null,
    });
    expect(back.udfs.map((x) => [x.id, x.collection_name])).toEqual([[c.udfs[0].id, "upd_renamed"]]);
    expect(await failure(fx.user.canvases.getByName("upd_me"))).toMatchObject({ status: 404 });
  });

  it("GIVEN udfs on update THEN they become the complete set: absent UDFs deleted, slugs updated, new ones created, ids kept or moved", async () => {
    const c = await fx.user.canvases.create({
      name: "replace_set",
      udfs: ["a", "b", "c"].map((s) => ({ slug: s, udf_body: body(s) })),
    });
    const [a, b, cc] = c.udfs;
    const donor = await fx.user.canvases.create({ name: "donor", udfs: [{ slug: "moved", udf_body: body("moved") }] });
    const newB = body("b", "def udf():\n    return 2\n");
    const u = await fx.user.canvases.update(c.id, {
      name: "replace_set",
      udfs: [
        { slug: "d", udf_body: body("d") },
        { id: a.id },
        { slug: "b", udf_body: newB, is_visible: false },
        { id: donor.udfs[0].id },
      ],
    });
    const back = await fx.user.canvases.getById(c.id);
    expect(back).toEqual(u);
    expect(back.udfs.map((x) => [x.slug, x.position, x.is_visible])).toEqual([
      ["d", 0, true],
      ["a", 1, true],
      ["b", 2, false],
      ["moved", 3, true],
    ]);
    expect(back.udfs.find((x) => x.slug === "a")!.id).toBe(a.id);
    const b2 = back.udfs.find((x) => x.slug === "b")!;
    expect(b2).toMatchObject({ id: b.id, udf_body: newB, udf_body_hash: bodyHash(newB) });
    expect(back.udfs.find((x) => x.slug === "moved")!.id).toBe(donor.udfs[0].id);
    expect(udfRows(c.id).map((r) => r.id)).not.toContain(cc.id);
    expect(fx.emu.env.store.get("SELECT id FROM udfs WHERE id = ?", cc.id)).toBeUndefined();
    expect((await fx.user.canvases.getById(donor.id)).udfs).toEqual([]);

    await fx.user.canvases.update(c.id, { name: "replace_set", dashboard_body: "x" });
    expect((await fx.user.canvases.getById(c.id)).udfs.map((x) => x.slug)).toEqual(["d", "a", "b", "moved"]);
    await fx.user.canvases.update(c.id, { name: "replace_set", udfs: [] });
    expect((await fx.user.canvases.getById(c.id)).udfs).toEqual([]);
    expect(udfRows(c.id)).toEqual([]);
  });

  it("GIVEN bad udfs elements THEN 404 for another team's UDF id and 422 for duplicates or missing fields, and nothing changes", async () => {
    const theirs = await fx.other.canvases.create({ name: "theirs_udf", udfs: [{ slug: "t", udf_body: body("t") }] });
    const c = await fx.user.canvases.create({ name: "bad_elements", udfs: [{ slug: "x", udf_body: body("x") }] });
    expect(
      await failure(fx.user.canvases.update(c.id, { name: "bad_elements", udfs: [{ id: theirs.udfs[0].id }] })),
    ).toMatchObject({
      status: 404,
      detail: `UDF "${theirs.udfs[0].id}" not found`,
    });
    const dup = await failure(
      fx.user.canvases.update(c.id, {
        name: "bad_elements",
        udfs: [
          { slug: "y", udf_body: "1" },
          { slug: "y", udf_body: "2" },
        ],
      }),
    );
    expect(dup.detail).toEqual([
      {
        loc: ["body", "udfs", 1, "slug"],
        msg: 'Duplicate slug "y": slugs are unique within a canvas',
        type: "value_error",
      },
    ]);
    const missing = await failure(
      fx.user.canvases.update(c.id, { name: "bad_elements", udfs: [{ slug: "z" } as never] }),
    );
    expect(missing.detail).toEqual([
      {
        loc: ["body", "udfs", 0, "udf_body"],
        msg: "Field required (or give the id of an existing UDF)",
        type: "missing",
      },
    ]);
    expect((await fx.user.canvases.getById(c.id)).udfs.map((u) => u.slug)).toEqual(["x"]);
    expect((await fx.other.canvases.getById(theirs.id)).udfs).toHaveLength(1);
  });

  it("GIVEN a canvas with UDFs WHEN deleted THEN 204, the canvas and its UDFs are gone, and a second delete is 404", async () => {
    const c = await fx.user.canvases.create({ name: "to_delete", udfs: [{ slug: "gone", udf_body: body("gone") }] });
    await fx.user.canvases.delete(c.id);
    expect(await failure(fx.user.canvases.getById(c.id))).toMatchObject({ status: 404 });
    expect(fx.emu.env.store.get("SELECT id FROM udfs WHERE id = ?", c.udfs[0].id)).toBeUndefined();
    expect(await failure(fx.user.canvases.delete(c.id))).toMatchObject({
      status: 404,
      method: "DELETE",
      detail: "Canvas not found",
    });
    expect((await fx.user.canvases.create({ name: "to_delete" })).name).toBe("to_delete");
  });

  it("GIVEN another team's canvas WHEN updating or deleting it THEN 404 and it is unchanged", async () => {
    const theirs = await fx.other.canvases.create({ name: "olgas" });
    expect(await failure(fx.user.canvases.update(theirs.id, { name: "stolen" }))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(await failure(fx.user.canvases.delete(theirs.id))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect((await fx.other.canvases.getById(theirs.id)).name).toBe("olgas");
  });
});

describe("canvases: credentials", () => {
  it("GIVEN a service token WHEN calling user-scoped canvas endpoints THEN 403", async () => {
    const c = await fx.user.canvases.create({ name: "svc_target" });
    const calls = [
      fx.service.canvases.listSelf().toArray(),
      fx.service.canvases.listSelfLite().toArray(),
      fx.service.canvases.listSelfShared().toArray(),
      fx.service.canvases.listSelfSharedLite().toArray(),
      fx.service.canvases.getByName("svc_target"),
      fx.service.canvases.create({ name: "by_service" }),
      fx.service.canvases.update(c.id, { name: "svc_target" }),
      fx.service.canvases.delete(c.id),
    ];
    for (const call of calls) {
      const e = await failure(call);
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ status: 403, code: "forbidden", detail: SERVICE_403 });
    }
    expect((await fx.user.canvases.getById(c.id)).name).toBe("svc_target");
  });

  it("GIVEN no credentials WHEN calling user or environment canvas endpoints THEN 401", async () => {
    for (const call of [
      fx.anon.canvases.listSelf().toArray(),
      fx.anon.canvases.listExecEnv(),
      fx.anon.canvases.create({ name: "anon" }),
      fx.anon.canvases.getExecEnvBySlug("x"),
    ]) {
      expect(await failure(call)).toMatchObject({ status: 401, code: "unauthorized", detail: "Not authenticated" });
    }
  });
});

describe("single-value query parameters given twice (spec 7: 400 with a detail string)", () => {
  it("GIVEN collection_id twice on POST /collection/share THEN 400 names the parameter, and neither canvas is shared", async () => {
    const a = await fx.user.canvases.create({ name: "repeat_param_a" });
    const b = await fx.user.canvases.create({ name: "repeat_param_b" });
    const q = new URLSearchParams([
      ["collection_id", a.id],
      ["collection_id", b.id],
      ["client_id", fx.emu.clientId!],
    ]);
    const res = await fetch(`${fx.emu.baseUrl}/collection/share?${q}`, {
      method: "POST",
      headers: { authorization: `Bearer ${fx.emu.tokens.user_token}` },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: 'Query parameter "collection_id" was given 2 times; it takes one value',
    });
    for (const c of [a, b]) expect((await fx.user.canvases.getById(c.id)).share_token).toBeNull();
  });

  it("GIVEN limit twice on a listing THEN 400 instead of the first value", async () => {
    const res = await fetch(`${fx.emu.baseUrl}/collection/self?limit=1&limit=300`, {
      headers: { authorization: `Bearer ${fx.emu.tokens.user_token}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'Query parameter "limit" was given 2 times; it takes one value',
    );
  });
});
