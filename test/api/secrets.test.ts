import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

const PAID_ONLY = "User secrets require a paid plan; the basic tier cannot use them";
const NOT_USER = "This endpoint acts on a user; a service account token cannot be used";

describe("secrets (4.2)", () => {
  it("GIVEN a paid user WHEN creating, reading, listing, replacing and deleting secrets THEN each step is visible", async () => {
    expect(await fx.user.secrets.create("API_KEY", "alpha-value-1")).toEqual({ key: "API_KEY" });
    expect(await fx.user.secrets.create("DB_PASSWORD", "bravo-value-2")).toEqual({ key: "DB_PASSWORD" });
    expect(await fx.user.secrets.list()).toEqual(["API_KEY", "DB_PASSWORD"]);
    expect(await fx.user.secrets.get("API_KEY")).toEqual({ key: "API_KEY", value: "alpha-value-1" });

    expect(await fx.user.secrets.put("API_KEY", "alpha-value-CHANGED")).toEqual({ key: "API_KEY" });
    expect(await fx.user.secrets.get("API_KEY")).toEqual({ key: "API_KEY", value: "alpha-value-CHANGED" });

    await fx.user.secrets.delete("API_KEY");
    expect(await fx.user.secrets.list()).toEqual(["DB_PASSWORD"]);
    const gone = await failure(fx.user.secrets.get("API_KEY"));
    expect(gone).toMatchObject({ status: 404, code: "not_found", detail: 'Secret "API_KEY" not found' });
    await fx.user.secrets.delete("DB_PASSWORD");
    expect(await fx.user.secrets.list()).toEqual([]);
  });

  it("answers POST with status 201 and lists keys sorted", async () => {
    const res = await fx.user.transport.send("POST /secrets/self/user", {
      body: { json: { key: "zeta", value: "z-value" } },
      secrets: ["z-value"],
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({ key: "zeta" });
    await fx.user.secrets.create("alpha", "a-value");
    await fx.user.secrets.put("Mid", "m-value");
    expect(await fx.user.secrets.list()).toEqual(["Mid", "alpha", "zeta"]);
    for (const k of ["zeta", "alpha", "Mid"]) await fx.user.secrets.delete(k);
  });

  it("GIVEN PUT on an absent key THEN the secret is created (upsert)", async () => {
    expect(await fx.user.secrets.put("NEW_ONE", "fresh-value")).toEqual({ key: "NEW_ONE" });
    expect(await fx.user.secrets.get("NEW_ONE")).toEqual({ key: "NEW_ONE", value: "fresh-value" });
    await fx.user.secrets.delete("NEW_ONE");
  });

  it("keeps keys with slashes, spaces and unicode intact in the path", async () => {
    const key = "team/prod key ü";
    await fx.user.secrets.put(key, "odd-key-value");
    expect(await fx.user.secrets.list()).toEqual([key]);
    expect(await fx.user.secrets.get(key)).toEqual({ key, value: "odd-key-value" });
    await fx.user.secrets.delete(key);
    expect(await fx.user.secrets.list()).toEqual([]);
  });

  it("GIVEN an existing key WHEN POSTing it again THEN 409 and the error never shows either value", async () => {
    const original = "s3cr3t-original-value";
    const attempted = "s3cr3t-ATTEMPTED-value";
    await fx.user.secrets.create("DUP", original);
    const e = await failure(fx.user.secrets.create("DUP", attempted));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 409,
      code: "conflict",
      method: "POST",
      path: "/secrets/self/user",
      detail: 'A secret with key "DUP" already exists; use PUT /secrets/self/user/{key} to change its value',
    });
    for (const text of [e.message, JSON.stringify(e), String(e.stack)]) {
      expect(text).not.toContain(attempted);
      expect(text).not.toContain(original);
    }
    expect(await fx.user.secrets.get("DUP")).toEqual({ key: "DUP", value: original });
    await fx.user.secrets.delete("DUP");
  });

  it("GIVEN a PUT whose value is not a string THEN 422 with loc [body, value] and nothing stored", async () => {
    const e = await failure(
      fx.user.transport.send("PUT /secrets/self/user/{key}", { params: { key: "K" }, body: { json: { value: 42 } } }),
    );
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toEqual([{ loc: ["body", "value"], msg: "Input should be a valid string", type: "string_type" }]);
    expect(await fx.user.secrets.list()).toEqual([]);
  });

  it("GIVEN a POST without key or value THEN 422 naming each missing field", async () => {
    const e = await failure(fx.user.transport.send("POST /secrets/self/user", { body: { json: {} } }));
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toEqual([
      { loc: ["body", "key"], msg: "Field required", type: "missing" },
      { loc: ["body", "value"], msg: "Field required", type: "missing" },
    ]);
    const empty = await failure(fx.user.secrets.create("", "some-value"));
    expect(empty.detail).toEqual([{ loc: ["body", "key"], msg: "Should have at least 1 items", type: "too_short" }]);
    const long = await failure(fx.user.secrets.put("k".repeat(257), "long-key-value"));
    expect(long).toMatchObject({ status: 422, code: "validation_failed" });
    expect(long.detail).toEqual([
      { loc: ["path", "key"], msg: "Should have at most 256 characters", type: "string_too_long" },
    ]);
    expect(await fx.user.secrets.list()).toEqual([]);
  });

  it("GIVEN DELETE of an absent key THEN it succeeds ({ok: true}) and nothing changes (decision: idempotent delete)", async () => {
    await fx.user.secrets.put("KEEP", "keep-value");
    const res = await fx.user.transport.send("DELETE /secrets/self/user/{key}", { params: { key: "NEVER_THERE" } });
    expect(JSON.parse(res.body.toString())).toEqual({ ok: true });
    await fx.user.secrets.delete("NEVER_THERE");
    expect(await fx.user.secrets.list()).toEqual(["KEEP"]);
    await fx.user.secrets.delete("KEEP");
  });

  it("stores values encrypted: the raw sqlite row holds neither the plaintext nor its base64", async () => {
    const plain = "very-distinct-plaintext-9f3a";
    await fx.user.secrets.put("ENC", plain);
    const rows = fx.emu.env.store.all<Record<string, unknown>>("SELECT * FROM user_secrets WHERE key = 'ENC'");
    expect(rows).toHaveLength(1);
    const raw = JSON.stringify(rows);
    expect(raw).not.toContain(plain);
    expect(raw).not.toContain(Buffer.from(plain).toString("base64"));
    expect(String(rows[0].value_enc)).toMatch(/^v1:/);
    expect(fx.emu.env.keys.decrypt(String(rows[0].value_enc))).toBe(plain);
    // The same value written twice is sealed differently (random IV).
    await fx.user.secrets.put("ENC", plain);
    const again = fx.emu.env.store.get<{ value_enc: string }>("SELECT value_enc FROM user_secrets WHERE key = 'ENC'")!;
    expect(again.value_enc).not.toBe(rows[0].value_enc);
    await fx.user.secrets.delete("ENC");
  });

  it("GIVEN two users THEN each sees only their own secrets", async () => {
    await fx.user.secrets.put("SHARED_NAME", "dana-value");
    await fx.other.secrets.put("SHARED_NAME", "olga-value");
    expect(await fx.user.secrets.get("SHARED_NAME")).toEqual({ key: "SHARED_NAME", value: "dana-value" });
    expect(await fx.other.secrets.get("SHARED_NAME")).toEqual({ key: "SHARED_NAME", value: "olga-value" });
    await fx.other.secrets.put("OLGA_ONLY", "olga-2");
    expect(await fx.user.secrets.list()).toEqual(["SHARED_NAME"]);
    expect(await failure(fx.user.secrets.get("OLGA_ONLY"))).toMatchObject({
      status: 404,
      detail: 'Secret "OLGA_ONLY" not found',
    });
    await fx.user.secrets.delete("OLGA_ONLY");
    expect(await fx.other.secrets.get("OLGA_ONLY")).toEqual({ key: "OLGA_ONLY", value: "olga-2" });
    await fx.user.secrets.delete("SHARED_NAME");
    expect(await fx.other.secrets.list()).toEqual(["OLGA_ONLY", "SHARED_NAME"]);
  });

  it("GIVEN a basic-tier user THEN every secrets endpoint answers 403 saying a paid plan is required", async () => {
    const calls = [
      fx.basic.secrets.list(),
      fx.basic.secrets.get("X"),
      fx.basic.secrets.create("X", "basic-value"),
      fx.basic.secrets.put("X", "basic-value"),
      fx.basic.secrets.delete("X"),
    ];
    for (const e of await Promise.all(calls.map(failure))) {
      expect(e).toMatchObject({ status: 403, code: "forbidden", detail: PAID_ONLY });
      expect(e.message).not.toContain("basic-value");
    }
    expect(fx.emu.env.store.get("SELECT COUNT(*) AS n FROM user_secrets WHERE key = 'X'")).toEqual({ n: 0 });
  });

  it("GIVEN a service token THEN every secrets endpoint answers 403", async () => {
    const calls = [
      fx.service.secrets.list(),
      fx.service.secrets.get("X"),
      fx.service.secrets.create("X", "svc-value"),
      fx.service.secrets.put("X", "svc-value"),
      fx.service.secrets.delete("X"),
    ];
    for (const e of await Promise.all(calls.map(failure)))
      expect(e).toMatchObject({ status: 403, code: "forbidden", detail: NOT_USER });
  });

  it("GIVEN no credentials THEN 401, and an unknown token is 401 too", async () => {
    expect(await failure(fx.anon.secrets.list())).toMatchObject({
      status: 401,
      code: "unauthorized",
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.secrets.create("K", "anon-value"))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    const bogus = fx.client({ token: "svc_pat_not-a-real-token" });
    const e = await failure(bogus.secrets.get("K"));
    expect(e).toMatchObject({ status: 401, detail: "Invalid or expired credentials" });
    expect(JSON.stringify(e)).not.toContain("svc_pat_not-a-real-token");
  });
});
