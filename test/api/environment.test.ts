import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { recordRealtimeUsage, USAGE_COUNTERS } from "../../src/emulator/areas/environment";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

const NOT_USER = "This endpoint acts on a user; a service account token cannot be used";

/** Inserts one day of counters: calls_total = n, and each other counter derived from n. */
function usageRow(envId: string, day: string, n: number) {
  fx.emu.env.store.run(
    `INSERT INTO realtime_usage (env_id, day, ${USAGE_COUNTERS.join(", ")}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    envId,
    day,
    n,
    n - 1,
    1,
    2,
    n * 100,
    (n - 1) * 90,
    10,
    3,
  );
}

const counters = (n: number, rows: number, datePrefix: string | null) => ({
  calls_total: n,
  calls_success: n - rows,
  calls_error: rows,
  calls_cached: 2 * rows,
  calls_total_time: n * 100,
  calls_success_time: (n - rows) * 90,
  calls_error_time: 10 * rows,
  ai_calls: 3 * rows,
  date_prefix: datePrefix,
});

describe("execution environment (4.6)", () => {
  it("GIVEN a user token THEN the environment lists its members and buckets", async () => {
    const env = await fx.user.environment.getSelf();
    expect(env).toEqual({
      id: "env-demo",
      name: "demo",
      users: [
        { id: "user-demo-1", name: "Dana Demo", handle: "dana", email: "dana@demo.example" },
        { id: "user-demo-2", name: "Basil Basic", handle: "basil", email: "basil@demo.example" },
      ],
      buckets: [{ url: "s3://demo-bucket", public_read: false }],
      github_repos: [],
    });
  });

  it("GIVEN a service token THEN the same environment comes back; another team sees its own", async () => {
    const viaService = await fx.service.environment.getSelf();
    expect(viaService).toMatchObject({ id: "env-demo", name: "demo" });
    expect(viaService.users).toHaveLength(2);
    const other = await fx.other.environment.getSelf();
    expect(other).toEqual({
      id: "env-other",
      name: "other",
      users: [{ id: "user-other-1", name: "Olga Other", handle: "olga", email: "olga@other.example" }],
      buckets: [{ url: "gs://other-bucket", public_read: false }],
      github_repos: [],
    });
  });

  it("GIVEN no credentials THEN both environment reads answer 401", async () => {
    expect(await failure(fx.anon.environment.getSelf())).toMatchObject({
      status: 401,
      code: "unauthorized",
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.environment.usage())).toMatchObject({
      status: 401,
      code: "unauthorized",
      detail: "Not authenticated",
    });
  });
});

describe("real-time usage counters (4.6, 2.8)", () => {
  it("GIVEN no recorded calls THEN all counters are zero and date_prefix is null", async () => {
    expect(await fx.other.environment.usage()).toEqual(counters(0, 0, null));
  });

  it("sums days by YYYY, YYYY-MM and YYYY-MM-DD prefix, and cumulatively without one", async () => {
    usageRow("env-demo", "2024-12-31", 5);
    usageRow("env-demo", "2025-01-15", 10);
    usageRow("env-demo", "2025-01-20", 20);
    usageRow("env-demo", "2025-02-01", 40);
    usageRow("env-other", "2025-01-15", 1000);

    expect(await fx.user.environment.usage()).toEqual(counters(75, 4, null));
    expect(await fx.user.environment.usage("2025")).toEqual(counters(70, 3, "2025"));
    expect(await fx.user.environment.usage("2025-01")).toEqual(counters(30, 2, "2025-01"));
    expect(await fx.service.environment.usage("2025-01-20")).toEqual(counters(20, 1, "2025-01-20"));
    expect(await fx.user.environment.usage("2023")).toEqual(counters(0, 0, "2023"));
    expect(await fx.other.environment.usage("2025-01")).toEqual(counters(1000, 1, "2025-01"));
  });

  it("GIVEN recordRealtimeUsage (for the real-time area) THEN calls accumulate on the day of the call", async () => {
    const at = new Date("2026-03-04T23:59:59Z");
    fx.emu.env.store.tx(() => {
      recordRealtimeUsage(fx.emu.env.store, "env-other", at, {
        calls_total: 1,
        calls_success: 1,
        calls_total_time: 120,
        calls_success_time: 120,
      });
      recordRealtimeUsage(fx.emu.env.store, "env-other", at, {
        calls_total: 1,
        calls_error: 1,
        calls_total_time: 30,
        calls_error_time: 30,
        ai_calls: 2,
      });
    });
    expect(await fx.other.environment.usage("2026-03-04")).toEqual({
      calls_total: 2,
      calls_success: 1,
      calls_error: 1,
      calls_cached: 0,
      calls_total_time: 150,
      calls_success_time: 120,
      calls_error_time: 30,
      ai_calls: 2,
      date_prefix: "2026-03-04",
    });
  });

  it.each(["25", "2025-1", "2025-13", "2025-01-32", "2025/01", "2025-01-15T00", ""])(
    "GIVEN date_prefix %j THEN 422 with loc [query, date_prefix]",
    async (bad) => {
      const e = await failure(fx.user.environment.usage(bad));
      expect(e).toBeInstanceOf(ApiError);
      expect(e).toMatchObject({ status: 422, code: "validation_failed" });
      expect(e.detail).toEqual([
        {
          loc: ["query", "date_prefix"],
          msg: "date_prefix must be YYYY, YYYY-MM or YYYY-MM-DD",
          type: "string_pattern_mismatch",
        },
      ]);
    },
  );
});

describe("service accounts (4.6, 2.9)", () => {
  it("lists the seeded account without a token", async () => {
    const list = await fx.user.environment.listServiceAccounts();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: "ci-bot", execution_environment_id: "env-demo" });
    expect(Object.keys(list[0]).sort()).toEqual(["created_at", "execution_environment_id", "id", "name"]);
    expect(await fx.other.environment.listServiceAccounts()).toEqual([]);
  });

  it("GIVEN a new account THEN its token is returned once, authenticates as the environment, and stops working right after delete", async () => {
    const sa = await fx.user.environment.createServiceAccount("deployer");
    expect(sa).toMatchObject({ name: "deployer", execution_environment_id: "env-demo" });
    expect(sa.token).toMatch(/^svc_sa_/);
    expect(Date.parse(sa.created_at)).not.toBeNaN();

    // Only the hash is stored.
    const cred = fx.emu.env.store.all<{ token_hash: string; kind: string }>(
      "SELECT token_hash, kind FROM credentials WHERE subject_id = ?",
      sa.id,
    );
    expect(cred).toHaveLength(1);
    expect(cred[0].kind).toBe("service");
    expect(JSON.stringify(fx.emu.env.store.all("SELECT * FROM credentials"))).not.toContain(sa.token);

    // Never retrievable later.
    const fetched = await fx.user.environment.getServiceAccount(sa.id);
    expect(fetched).toEqual({
      id: sa.id,
      execution_environment_id: "env-demo",
      name: "deployer",
      created_at: sa.created_at,
    });
    const listed = await fx.user.environment.listServiceAccounts();
    expect(listed.map((x) => x.name)).toEqual(["ci-bot", "deployer"]);
    expect(listed.every((x) => x.token === undefined)).toBe(true);

    const machine = fx.client({ serviceToken: sa.token });
    expect(await machine.environment.getSelf()).toMatchObject({ id: "env-demo", name: "demo" });

    const deleted = await fx.user.environment.deleteServiceAccount(sa.id);
    expect(deleted).toEqual(fetched);
    const e = await failure(machine.environment.getSelf());
    expect(e).toMatchObject({ status: 401, code: "unauthorized", detail: "Invalid or expired credentials" });
    expect(e.message).not.toContain(sa.token);
    expect(JSON.stringify(e)).not.toContain(sa.token);
    expect(fx.emu.env.store.all("SELECT * FROM credentials WHERE subject_id = ?", sa.id)).toEqual([]);
    expect((await fx.user.environment.listServiceAccounts()).map((x) => x.name)).toEqual(["ci-bot"]);
    expect(await failure(fx.user.environment.getServiceAccount(sa.id))).toMatchObject({
      status: 404,
      detail: "Service account not found",
    });
    expect(await failure(fx.user.environment.deleteServiceAccount(sa.id))).toMatchObject({
      status: 404,
      detail: "Service account not found",
    });
  });

  it("allows two accounts with the same name (decision: names need not be unique) with distinct ids and tokens", async () => {
    const a = await fx.user.environment.createServiceAccount("twin");
    const b = await fx.user.environment.createServiceAccount("twin");
    expect(a.id).not.toBe(b.id);
    expect(a.token).not.toBe(b.token);
    await fx.user.environment.deleteServiceAccount(a.id);
    // Deleting one twin leaves the other working.
    expect(await fx.client({ serviceToken: b.token }).environment.getSelf()).toMatchObject({ id: "env-demo" });
    expect(await failure(fx.client({ serviceToken: a.token }).environment.getSelf())).toMatchObject({ status: 401 });
    await fx.user.environment.deleteServiceAccount(b.id);
  });

  it("GIVEN a missing, empty or non-string name THEN 422 with loc [body, name] and no account created", async () => {
    const missing = await failure(
      fx.user.transport.send("POST /execution-env/self/service-account/new", { body: { json: {} } }),
    );
    expect(missing).toMatchObject({ status: 422, code: "validation_failed" });
    expect(missing.detail).toEqual([{ loc: ["body", "name"], msg: "Field required", type: "missing" }]);
    const empty = await failure(fx.user.environment.createServiceAccount("   "));
    expect(empty.detail).toEqual([{ loc: ["body", "name"], msg: "Should have at least 1 items", type: "too_short" }]);
    const num = await failure(fx.user.environment.createServiceAccount(7 as never));
    expect(num.detail).toEqual([{ loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" }]);
    expect((await fx.user.environment.listServiceAccounts()).map((x) => x.name)).toEqual(["ci-bot"]);
  });

  it("GIVEN another team's account THEN by-id and delete answer 404 and the account survives", async () => {
    const olgas = await fx.other.environment.createServiceAccount("olga-bot");
    expect(await failure(fx.user.environment.getServiceAccount(olgas.id))).toMatchObject({
      status: 404,
      code: "not_found",
      detail: "Service account not found",
    });
    expect(await failure(fx.user.environment.deleteServiceAccount(olgas.id))).toMatchObject({
      status: 404,
      detail: "Service account not found",
    });
    expect(await fx.client({ serviceToken: olgas.token }).environment.getSelf()).toMatchObject({ id: "env-other" });
    expect(await fx.other.environment.getServiceAccount(olgas.id)).toMatchObject({ name: "olga-bot" });
    await fx.other.environment.deleteServiceAccount(olgas.id);
  });

  it("GIVEN a service token (seeded or created) THEN every service-account endpoint answers 403", async () => {
    const sa = await fx.user.environment.createServiceAccount("no-manage");
    const machine = fx.client({ serviceToken: sa.token });
    for (const client of [fx.service, machine]) {
      const calls = [
        client.environment.listServiceAccounts(),
        client.environment.getServiceAccount(sa.id),
        client.environment.createServiceAccount("sneaky"),
        client.environment.deleteServiceAccount(sa.id),
      ];
      for (const e of await Promise.all(calls.map(failure)))
        expect(e).toMatchObject({ status: 403, code: "forbidden", detail: NOT_USER });
    }
    expect((await fx.user.environment.listServiceAccounts()).map((x) => x.name)).toEqual(["ci-bot", "no-manage"]);
    await fx.user.environment.deleteServiceAccount(sa.id);
  });

  it("GIVEN no credentials THEN every service-account endpoint answers 401", async () => {
    const calls = [
      fx.anon.environment.listServiceAccounts(),
      fx.anon.environment.getServiceAccount("x"),
      fx.anon.environment.createServiceAccount("x"),
      fx.anon.environment.deleteServiceAccount("x"),
    ];
    for (const e of await Promise.all(calls.map(failure)))
      expect(e).toMatchObject({ status: 401, detail: "Not authenticated" });
  });
});
