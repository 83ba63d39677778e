/**
 * The shared-UDF host over HTTP with the project's client: a deploy by the reconciler is served
 * fresh through a shared URL while an unchanged UDF is served from cache; team canvases open with a
 * session token that dies on rotation; passcodes; fsh_ tokens; the OpenAPI document validates.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/api/realtime";
import type { Canvas } from "../../src/api/schemas";
import { applyCommand } from "../../src/reconcile/commands";
import { failure, useEmulator } from "../helpers/emulator";
import { commandOptions, copyRepo } from "../helpers/repo";

const fx = useEmulator();
const value = (r: RunResult) => JSON.parse(r.body.toString("utf8"));

let dir: string;
let live: Canvas;
let team: Canvas;

async function apply(): Promise<void> {
  const result = await applyCommand(commandOptions(dir, fx.emu));
  expect(result.exitCode).toBe(0);
}

async function canvas(name: string): Promise<Canvas> {
  return (await fx.user.canvases.listExecEnv()).find((c) => c.name === name)!;
}

beforeAll(async () => {
  dir = copyRepo("shared-deploy");
  await apply();
  live = await canvas("live");
  team = await canvas("team_only");
});

describe("runs through a canvas token", () => {
  it("GIVEN a public shared canvas WHEN its UDF is run with no Authorization header THEN the value comes back, parameters converted", async () => {
    const r = await fx.anon.sharing.runShared(live.share_token!, "greeting", {
      parameters: { name: "Ada", excited: "true" },
    });
    expect(value(r)).toMatchObject({ text: "Hello, Ada!", version: 1 });
    expect(r.requestId).toEqual(expect.any(String));
    expect(r.metadata).toMatchObject({ cached: false });
    const e = await failure(fx.anon.sharing.runShared(live.share_token!, "missing"));
    expect(e).toMatchObject({ status: 404, detail: 'UDF "missing" not found on this canvas' });
  });

  it("GIVEN a cached result WHEN the body changes and the reconciler applies THEN the next run through the shared URL is fresh", async () => {
    const run = () => fx.anon.sharing.runShared(live.share_token!, "greeting", { parameters: { name: "Grace" } });
    const first = await run();
    const cached = await run();
    expect(value(cached)).toEqual(value(first));
    expect(cached.metadata).toMatchObject({ cached: true });

    const file = join(dir, "canvases/live/greeting.py");
    writeFileSync(file, readFileSync(file, "utf8").replace('"version": 1', '"version": 2'));
    await apply();

    const after = await run();
    expect(value(after)).toMatchObject({ text: "Hello, Grace.", version: 2 });
    expect(after.metadata).toMatchObject({ cached: false });
    expect((await canvas("live")).share_token).toBe(live.share_token);
  });

  it("GIVEN an fsh_ token WHEN its UDF is run THEN it runs without an Authorization header, with a session token for a team-scoped one", async () => {
    const shared = await fx.anon.sharing.getByToken(live.share_token!);
    // The reconciler minted greeting's token (shared_token: true) with the default team scope.
    const fsh = shared.udfs.find((u) => u.slug === "greeting")!.metadata.shared_token;
    expect(await failure(fx.anon.sharing.runSharedUdf(fsh, { parameters: { name: "Alan" } }))).toMatchObject({
      status: 401,
    });
    const session = await fx.user.sessionTokens.create(live.share_token!);
    const r = await fx.anon.sharing.runSharedUdf(fsh, {
      parameters: { name: "Alan" },
      sessionToken: session.session_token,
    });
    expect(value(r)).toMatchObject({ text: "Hello, Alan." });
    const publicToken = (
      await fx.user.udfs.create({
        slug: "public_echo",
        udf_body: JSON.stringify({ code: "@fused.udf\ndef udf(n: int = 0):\n    return n * 2\n" }),
        create_shared_token: true,
        shared_token_access_scope: "public",
      })
    ).shared_token!;
    expect(value(await fx.anon.sharing.runSharedUdf(publicToken, { parameters: { n: 21 } }))).toBe(42);
    expect(await failure(fx.anon.sharing.runSharedUdf("fsh_unknown"))).toMatchObject({
      status: 404,
      detail: "Shared UDF token not found",
    });
  });

  it("refuses a bad format, cache_max_age or POST body with 422 naming the field, and runs a POST body's parameters", async () => {
    const url = `${fx.emu.udfBaseUrl}/${live.share_token}/greeting`;
    const png = await fetch(`${url}?format=png`);
    expect(png.status).toBe(422);
    expect(await png.json()).toEqual({
      detail: [{ loc: ["query", "format"], msg: "Input should be 'json' or 'csv'", type: "literal_error" }],
    });
    const age = await fetch(`${url}?cache_max_age=soon`);
    expect(((await age.json()) as any).detail[0].loc).toEqual(["query", "cache_max_age"]);
    const list = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" });
    expect(list.status).toBe(422);
    expect(((await list.json()) as any).detail[0]).toMatchObject({
      loc: ["body"],
      msg: "The body must be a JSON object of UDF parameters",
    });
    const post = await fetch(`${url}?name=Query`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Body", excited: true }),
    });
    expect(await post.json()).toMatchObject({ text: "Hello, Body!" });
    const csv = await failure(
      fx.anon.sharing.runShared(live.share_token!, "greeting", { format: "csv", parameters: { name: "Csv" } }),
    );
    expect(csv).toMatchObject({ status: 422, detail: expect.stringContaining("format csv needs a table") });
  });

  it("bills shared runs to the canvas owner's environment", async () => {
    const before = await fx.user.environment.usage();
    await fx.anon.sharing.runShared(live.share_token!, "greeting", { parameters: { name: "Billing" } });
    await fx.anon.sharing.runShared(live.share_token!, "greeting", { parameters: { name: "Billing" } });
    const after = await fx.user.environment.usage();
    expect(after.calls_total - before.calls_total).toBe(2);
    expect(after.calls_cached - before.calls_cached).toBe(1);
  });
});

describe("team canvases and tokens", () => {
  it("GIVEN a team canvas THEN a run needs a session token; a tile run sees its tile; rotation kills token and session token at once", async () => {
    const tile = { z: 1, x: 1, y: 0 };
    const noSession = await failure(fx.anon.sharing.runShared(team.share_token!, "tiles", { tile }));
    expect(noSession).toMatchObject({ status: 401 });
    const session = await fx.service.sessionTokens.create(team.share_token!);
    const r = await fx.anon.sharing.runShared(team.share_token!, "tiles", {
      tile,
      sessionToken: session.session_token,
      parameters: { label: "a" },
    });
    expect(value(r)).toEqual({ label: "a", tile: [1, 1, 0], west: 0 });

    const rotated = await fx.user.sharing.share({ collectionId: team.id, newToken: true });
    expect(
      await failure(
        fx.anon.sharing.runShared(team.share_token!, "tiles", { tile, sessionToken: session.session_token }),
      ),
    ).toMatchObject({ status: 404 });
    const stale = await failure(
      fx.anon.sharing.runShared(rotated.share_token!, "tiles", { tile, sessionToken: session.session_token }),
    );
    expect(stale).toMatchObject({
      status: 401,
      detail: "The session token is invalid, expired or revoked",
      path: "/{canvas_token}/tiles/tiles/1/1/0?svc_session_token=%7Bsvc_session_token%7D",
    });
    // Tokens never show in errors.
    for (const secret of [rotated.share_token!, session.session_token, team.share_token!]) {
      expect(JSON.stringify({ ...stale, message: stale.message })).not.toContain(secret);
      expect(JSON.stringify({ ...stale, message: stale.message })).not.toContain(encodeURIComponent(secret));
    }
    const fresh = await fx.service.sessionTokens.create(rotated.share_token!);
    expect(
      value(
        await fx.anon.sharing.runShared(rotated.share_token!, "tiles", { tile, sessionToken: fresh.session_token }),
      ),
    ).toMatchObject({ tile: [1, 1, 0] });
    team = { ...team, share_token: rotated.share_token };
  });

  it("GIVEN a passcode on the canvas THEN runs need it in the header", async () => {
    await fx.user.canvases.update(live.id, { name: "live", access_scope: "public", passcode: "open-sesame-1234" });
    const run = (passcode?: string) =>
      fx.anon.sharing.runShared(live.share_token!, "greeting", { passcode, parameters: { name: "Pass" } });
    expect(await failure(run())).toMatchObject({ status: 401 });
    expect(await failure(run("wrong"))).toMatchObject({ status: 401, detail: "The canvas passcode is incorrect" });
    expect(value(await run("open-sesame-1234"))).toMatchObject({ text: "Hello, Pass." });
    await fx.user.canvases.update(live.id, { name: "live", access_scope: "public", passcode: "" });
  });

  it("GIVEN an unshared canvas THEN its token stops at once", async () => {
    const token = (await canvas("team_only")).share_token!;
    await fx.user.sharing.unshare(team.id);
    expect(await failure(fx.anon.sharing.runShared(token, "tiles", { tile: { z: 0, x: 0, y: 0 } }))).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
    });
  });
});

describe("OpenAPI document of a shared canvas", () => {
  it("GIVEN the canvas WHEN .api.json is read THEN it is a valid OpenAPI 3.1 document with the entrypoint's parameters", async () => {
    const doc = await fx.anon.sharing.openApi(live.share_token!);
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    const op = (doc.paths["/greeting"] as any).get;
    expect(op.description).toBe("Greets someone");
    expect(op.parameters).toEqual([
      { name: "name", in: "query", required: false, schema: { type: "string", default: "world" } },
      { name: "excited", in: "query", required: false, schema: { type: "boolean", default: false } },
      expect.objectContaining({ name: "format", in: "query" }),
    ]);
    // The server URL and a parameter from the document run the UDF.
    const url = `${doc.servers![0].url}/greeting?name=Doc`;
    expect(url.startsWith(fx.emu.udfBaseUrl)).toBe(true);
    const res = await fetch(url);
    expect(await res.json()).toMatchObject({ text: "Hello, Doc." });
  });

  it("GIVEN a team canvas THEN the document validates too and declares the session token; the .api page has a run form", async () => {
    await fx.user.sharing.share({ collectionId: team.id, clientId: "rt-demo-primary" });
    const token = (await canvas("team_only")).share_token!;
    const session = await fx.service.sessionTokens.create(token);
    const doc = await fx.anon.sharing.openApi(token, { sessionToken: session.session_token });
    expect((await new Validator().validate(doc)).valid).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(["/tiles", "/tiles/tiles/{z}/{x}/{y}"]);
    expect((doc as any).components.securitySchemes.sessionToken).toMatchObject({
      type: "apiKey",
      in: "query",
      name: "svc_session_token",
    });
    const page = await fx.anon.sharing.openApiPage(token, { sessionToken: session.session_token });
    expect(page).toContain("<h1>team_only</h1>");
    expect(page).toContain(`<form method="get" action="${fx.emu.udfBaseUrl}/${encodeURIComponent(token)}/tiles">`);
    expect(page).toContain('<input name="label" type="text" value="cell">');
  });
});
