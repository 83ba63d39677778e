import { describe, expect, it } from "vitest";
import { bodyHash, newId, type CanvasRow } from "../../src/emulator/catalog";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-01-05T06:00:00Z");
const fx = useEmulator({ clock });

// Canvases and UDFs are inserted straight into the store, so these tests do not depend on the
// canvas and UDF endpoints.
let seq = 0;
interface CanvasOpts {
  env?: string;
  owner?: string;
  scope?: "team" | "public";
  passcode?: string | null;
  name?: string;
}
function makeCanvas(o: CanvasOpts = {}): { id: string; name: string } {
  const id = newId();
  const name = o.name ?? `canvas_${++seq}`;
  const now = clock.now().toISOString();
  fx.emu.env.store.run(
    "INSERT INTO canvases (id, env_id, owner_user_id, name, access_scope, passcode, created_at, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    id,
    o.env ?? "env-demo",
    o.owner ?? "user-demo-1",
    name,
    o.scope ?? "public",
    o.passcode ?? null,
    now,
    now,
  );
  return { id, name };
}
function makeUdf(
  canvasId: string,
  slug: string,
  code = `def udf(city: str = "nyc", n: int = 3):\n    return city\n`,
  position = 0,
): string {
  const id = newId();
  const body = JSON.stringify({
    name: slug,
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    metadata: { "fused:description": `About ${slug}` },
  });
  const now = clock.now().toISOString();
  fx.emu.env.store.run(
    "INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, position, created_at, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    id,
    "env-demo",
    "user-demo-1",
    canvasId,
    slug,
    body,
    bodyHash(body),
    position,
    now,
    now,
  );
  return id;
}
const row = (id: string) => fx.emu.env.store.get<CanvasRow>("SELECT * FROM canvases WHERE id = ?", id)!;

/** Asserts that no secret shows in the error's path, message or serialized form. */
function expectScrubbed(e: any, ...secrets: string[]) {
  for (const s of secrets) {
    for (const text of [e.path, e.message, JSON.stringify(e)]) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(encodeURIComponent(s));
    }
  }
}

describe("canvas sharing state table (section 3)", () => {
  it("GIVEN an unshared canvas WHEN shared with a client_id THEN it is shared with a new fc_ token and that instance", async () => {
    const c = makeCanvas();
    expect(row(c.id).share_token).toBeNull();
    const shared = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-secondary" });
    expect(shared.id).toBe(c.id);
    expect(shared.share_token).toMatch(/^fc_[A-Za-z0-9_-]{20,}$/);
    expect(shared.share_client_id).toBe("rt-demo-secondary");
    expect(Array.isArray(shared.udfs)).toBe(true);
    expect(row(c.id)).toMatchObject({ share_token: shared.share_token, share_client_id: "rt-demo-secondary" });
  });

  it("GIVEN an unshared canvas WHEN shared without a client_id THEN 400 and it stays unshared", async () => {
    const c = makeCanvas();
    const e = await failure(fx.user.sharing.share({ collectionId: c.id }));
    expect(e).toMatchObject({
      status: 400,
      code: "bad_request",
      detail:
        "client_id is required when a canvas is shared for the first time: pass one of your team's real-time instances",
    });
    expect(row(c.id)).toMatchObject({ share_token: null, share_client_id: null });
  });

  it("GIVEN a shared canvas WHEN shared with new_token=true THEN the old token dies at once and a new one works", async () => {
    const c = makeCanvas();
    const first = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const old = first.share_token!;
    expect((await fx.anon.sharing.getByToken(old)).id).toBe(c.id);
    const rotated = await fx.user.sharing.share({ collectionId: c.id, newToken: true });
    expect(rotated.share_token).toMatch(/^fc_/);
    expect(rotated.share_token).not.toBe(old);
    expect(rotated.share_client_id).toBe("rt-demo-primary");
    expect(row(c.id).share_token).toBe(rotated.share_token);
    const e = await failure(fx.anon.sharing.getByToken(old));
    expect(e).toMatchObject({ status: 404, code: "not_found", detail: "Canvas token not found" });
    expect((await fx.anon.sharing.getByToken(rotated.share_token!)).id).toBe(c.id);
  });

  it("GIVEN a shared canvas WHEN shared again without new_token THEN the token is kept, and a given client_id replaces the instance", async () => {
    const c = makeCanvas();
    const first = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const again = await fx.user.sharing.share({ collectionId: c.id });
    expect(again).toMatchObject({ share_token: first.share_token, share_client_id: "rt-demo-primary" });
    const moved = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-secondary", newToken: false });
    expect(moved).toMatchObject({ share_token: first.share_token, share_client_id: "rt-demo-secondary" });
    expect(row(c.id)).toMatchObject({ share_token: first.share_token, share_client_id: "rt-demo-secondary" });
  });

  it("GIVEN a shared canvas WHEN unshared THEN token and client id are cleared, the token dies, and sharing again mints a different token", async () => {
    const c = makeCanvas();
    const first = await fx.service.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const un = await fx.user.sharing.unshare(c.id);
    expect(un).toMatchObject({ id: c.id, share_token: null, share_client_id: null });
    expect(row(c.id)).toMatchObject({ share_token: null, share_client_id: null });
    expect(await failure(fx.anon.sharing.getByToken(first.share_token!))).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
    });
    // Unshared again: client_id is required once more.
    expect(await failure(fx.user.sharing.share({ collectionId: c.id }))).toMatchObject({ status: 400 });
    const again = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    expect(again.share_token).not.toBe(first.share_token);
  });

  it("unsharing an unshared canvas is harmless and returns it unchanged", async () => {
    const c = makeCanvas();
    expect(await fx.service.sharing.unshare(c.id)).toMatchObject({
      id: c.id,
      share_token: null,
      share_client_id: null,
    });
  });
});

describe("share and unshare: errors and scopes", () => {
  it("refuses a client_id that is not one of the team's instances (404), keeping the canvas unchanged", async () => {
    const c = makeCanvas();
    expect(await failure(fx.user.sharing.share({ collectionId: c.id, clientId: "rt-other-primary" }))).toMatchObject({
      status: 404,
      detail: 'Real-time instance "rt-other-primary" is not one of your team\'s instances',
    });
    expect(await failure(fx.user.sharing.share({ collectionId: c.id, clientId: "rt-nope" }))).toMatchObject({
      status: 404,
      detail: 'Real-time instance "rt-nope" is not one of your team\'s instances',
    });
    expect(row(c.id).share_token).toBeNull();
    const shared = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    await failure(fx.user.sharing.share({ collectionId: c.id, clientId: "rt-other-primary" }));
    expect(row(c.id)).toMatchObject({ share_token: shared.share_token, share_client_id: "rt-demo-primary" });
  });

  it("GIVEN another team's canvas WHEN sharing or unsharing THEN 404 and nothing changes", async () => {
    const theirs = makeCanvas({ env: "env-other", owner: "user-other-1" });
    expect(
      await failure(fx.user.sharing.share({ collectionId: theirs.id, clientId: "rt-demo-primary" })),
    ).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    await fx.other.sharing.share({ collectionId: theirs.id, clientId: "rt-other-primary" });
    expect(await failure(fx.user.sharing.unshare(theirs.id))).toMatchObject({
      status: 404,
      detail: "Canvas not found",
    });
    expect(row(theirs.id).share_token).toMatch(/^fc_/);
    expect(
      await failure(fx.user.sharing.share({ collectionId: "no-such-canvas", clientId: "rt-demo-primary" })),
    ).toMatchObject({ status: 404 });
  });

  it("GIVEN no credentials WHEN sharing or unsharing THEN 401", async () => {
    const c = makeCanvas();
    expect(await failure(fx.anon.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" }))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.sharing.unshare(c.id))).toMatchObject({ status: 401, detail: "Not authenticated" });
  });

  it("GIVEN no collection_id WHEN sharing THEN 422 with loc [query, collection_id]", async () => {
    const e = await failure(fx.user.sharing.share({ collectionId: undefined as never, clientId: "rt-demo-primary" }));
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toEqual([{ loc: ["query", "collection_id"], msg: "Field required", type: "missing" }]);
  });
});

describe("GET /collection/by-token/{canvas_token}", () => {
  it("GIVEN a shared public canvas WHEN read by token alone THEN canvas and UDFs come back, each UDF with a stable fsh_ token", async () => {
    const c = makeCanvas();
    const a = makeUdf(c.id, "alpha", undefined, 0);
    const b = makeUdf(c.id, "beta", undefined, 1);
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const got = await fx.anon.sharing.getByToken(share_token!);
    expect(got).toMatchObject({
      id: c.id,
      name: c.name,
      access_scope: "public",
      share_client_id: "rt-demo-primary",
      passcode: null,
    });
    expect(got.udfs.map((u) => [u.id, u.slug])).toEqual([
      [a, "alpha"],
      [b, "beta"],
    ]);
    for (const u of got.udfs) expect(u.metadata.shared_token).toMatch(/^fsh_/);
    expect(got.udfs[0].metadata.shared_token).not.toBe(got.udfs[1].metadata.shared_token);
    const again = await fx.anon.sharing.getByToken(share_token!);
    expect(again.udfs.map((u) => u.metadata.shared_token)).toEqual(got.udfs.map((u) => u.metadata.shared_token));
    const stored = fx.emu.env.store.all<{ udf_id: string }>(
      "SELECT udf_id FROM udf_shared_tokens WHERE udf_id IN (?, ?)",
      a,
      b,
    );
    expect(stored).toHaveLength(2);
  });

  it("GIVEN an unknown token WHEN read THEN 404 without the token in the error", async () => {
    const token = "fc_doesNotExistAtAll123";
    const e = await failure(fx.anon.sharing.getByToken(token));
    expect(e).toMatchObject({
      status: 404,
      code: "not_found",
      detail: "Canvas token not found",
      path: "/collection/by-token/{canvas_token}",
    });
    expectScrubbed(e, token);
  });

  it("GIVEN a canvas with a passcode WHEN read with the right, a wrong or no passcode THEN 200, 401, 401", async () => {
    const passcode = "open-sesame-42";
    const c = makeCanvas({ passcode });
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const token = share_token!;
    const ok = await fx.anon.sharing.getByToken(token, { passcode });
    expect(ok.id).toBe(c.id);
    expect(ok.passcode).toBeNull(); // never shown to token readers
    const wrong = await failure(fx.anon.sharing.getByToken(token, { passcode: "not-the-passcode" }));
    expect(wrong).toMatchObject({ status: 401, code: "unauthorized", detail: "The canvas passcode is incorrect" });
    expectScrubbed(wrong, token, "not-the-passcode");
    const missing = await failure(fx.anon.sharing.getByToken(token));
    expect(missing).toMatchObject({
      status: 401,
      detail:
        "This canvas is protected by a passcode: send it in the header Authorization: Svc-Canvas-Passcode <passcode>",
    });
    expectScrubbed(missing, token);
    // A Bearer token does not replace the passcode.
    expect(await failure(fx.user.sharing.getByToken(token))).toMatchObject({ status: 401 });
  });

  it("GIVEN a shared team canvas WHEN read without a session token THEN 401; with one THEN 200", async () => {
    const c = makeCanvas({ scope: "team" });
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const token = share_token!;
    const e = await failure(fx.anon.sharing.getByToken(token));
    expect(e).toMatchObject({
      status: 401,
      detail:
        "This canvas is shared with its team only: a session token is required in the query parameter svc_session_token",
    });
    const bogus = "svc_sess_madeUpSessionToken";
    const e2 = await failure(fx.anon.sharing.getByToken(token, { sessionToken: bogus }));
    expect(e2).toMatchObject({ status: 401, detail: "The session token is invalid, expired or revoked" });
    expectScrubbed(e2, token, bogus);
    const s = await fx.user.sessionTokens.create(token);
    const got = await fx.anon.sharing.getByToken(token, { sessionToken: s.session_token });
    expect(got).toMatchObject({ id: c.id, access_scope: "team" });
  });

  it("GIVEN a team token WHEN the canvas becomes public THEN the token keeps its team scope until rotated", async () => {
    const c = makeCanvas({ scope: "team" });
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    fx.emu.env.store.run("UPDATE canvases SET access_scope = 'public' WHERE id = ?", c.id);
    expect(await failure(fx.anon.sharing.getByToken(share_token!))).toMatchObject({ status: 401 });
    const rotated = await fx.user.sharing.share({ collectionId: c.id, newToken: true });
    expect((await fx.anon.sharing.getByToken(rotated.share_token!)).id).toBe(c.id);
  });

  it("GIVEN a name-based token fc_<team>/<canvas> WHEN read THEN it resolves while shared (URL-encoded slash)", async () => {
    const c = makeCanvas({ name: "my_named_canvas" });
    const named = "fc_demo/my_named_canvas";
    expect(await failure(fx.anon.sharing.getByToken(named))).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
    });
    await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    expect((await fx.anon.sharing.getByToken(named)).id).toBe(c.id);
    expect(await failure(fx.anon.sharing.getByToken("fc_other/my_named_canvas"))).toMatchObject({ status: 404 });
    await fx.user.sharing.unshare(c.id);
    const e = await failure(fx.anon.sharing.getByToken(named));
    expect(e).toMatchObject({ status: 404, path: "/collection/by-token/{canvas_token}" });
    expectScrubbed(e, named);
  });
});

describe("GET /udf/shared/by-token/{token} (4.9)", () => {
  it("GIVEN an fsh_ token from a shared canvas WHEN read THEN the UDF; after the UDF is deleted THEN 404", async () => {
    const c = makeCanvas();
    const id = makeUdf(c.id, "gamma");
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const fsh = (await fx.anon.sharing.getByToken(share_token!)).udfs[0].metadata.shared_token;
    const udf = await fx.anon.sharing.getSharedUdf(fsh);
    expect(udf).toMatchObject({ id, slug: "gamma", collection_id: c.id, collection_name: c.name });
    fx.emu.env.store.run("DELETE FROM udfs WHERE id = ?", id);
    const e = await failure(fx.anon.sharing.getSharedUdf(fsh));
    expect(e).toMatchObject({
      status: 404,
      detail: "Shared UDF token not found",
      path: "/udf/shared/by-token/{token}",
    });
    expectScrubbed(e, fsh);
  });
});

describe("OpenAPI description on the UDF host", () => {
  it("GIVEN a shared canvas WHEN its .api.json is read THEN every UDF is an endpoint with its parameters", async () => {
    const c = makeCanvas();
    makeUdf(
      c.id,
      "loader",
      `def udf(city: str = "nyc", n: int = 3, ratio: float = 0.5, flag: bool = True, bbox=None):\n    ...\n`,
      0,
    );
    makeUdf(c.id, "stats", `def udf(x: int):\n    return x\n`, 1);
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const doc = await fx.anon.sharing.openApi(share_token!);
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe(c.name);
    expect(doc.servers![0].url).toBe(`${fx.emu.udfBaseUrl}/${share_token}`);
    // loader takes a tile (bbox), so it also has a tile operation without that parameter.
    expect(Object.keys(doc.paths).sort()).toEqual(["/loader", "/loader/tiles/{z}/{x}/{y}", "/stats"]);
    const tile = (doc.paths["/loader/tiles/{z}/{x}/{y}"] as any).get;
    expect(tile.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "path:z",
      "path:x",
      "path:y",
      "query:city",
      "query:n",
      "query:ratio",
      "query:flag",
      "query:format",
    ]);
    const loader = (doc.paths["/loader"] as any).get;
    expect(loader.description).toBe("About loader");
    expect(loader.parameters.slice(0, 5)).toEqual([
      { name: "city", in: "query", required: false, schema: { type: "string", default: "nyc" } },
      { name: "n", in: "query", required: false, schema: { type: "integer", default: 3 } },
      { name: "ratio", in: "query", required: false, schema: { type: "number", default: 0.5 } },
      { name: "flag", in: "query", required: false, schema: { type: "boolean", default: true } },
      { name: "bbox", in: "query", required: false, schema: { type: "string" } },
    ]);
    expect((doc.paths["/stats"] as any).get.parameters[0]).toEqual({
      name: "x",
      in: "query",
      required: true,
      schema: { type: "integer" },
    });
  });

  it("serves the .api HTML page, and resolves name-based tokens there too", async () => {
    const c = makeCanvas({ name: "page_canvas" });
    makeUdf(c.id, "viewer");
    await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const html = await fx.anon.sharing.openApiPage("fc_demo/page_canvas");
    expect(html).toContain("<h1>page_canvas</h1>");
    expect(html).toContain("GET /viewer");
    expect(html).toContain('href="./fc_demo%2Fpage_canvas.api.json"');
    const doc = await fx.anon.sharing.openApi("fc_demo/page_canvas");
    expect(Object.keys(doc.paths)).toEqual(["/viewer"]);
  });

  it("applies the by-token access rule: unknown token 404, team canvas needs a session token", async () => {
    const unknown = "fc_unknownTokenForTheDoc";
    const e = await failure(fx.anon.sharing.openApi(unknown));
    expect(e).toMatchObject({ status: 404, detail: "Canvas token not found" });
    expectScrubbed(e, unknown);
    const c = makeCanvas({ scope: "team" });
    makeUdf(c.id, "secret_udf");
    const { share_token } = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    const e2 = await failure(fx.anon.sharing.openApiPage(share_token!));
    expect(e2).toMatchObject({ status: 401 });
    expectScrubbed(e2, share_token!);
    const s = await fx.service.sessionTokens.create(share_token!);
    const doc = await fx.anon.sharing.openApi(share_token!, { sessionToken: s.session_token });
    expect(Object.keys(doc.paths)).toEqual(["/secret_udf"]);
  });
});
