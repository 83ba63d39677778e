import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/emulator/clock";
import { cronjobKind } from "../../src/kinds/cronjob/resource";
import { useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

// 2026-01-05 is a Monday.
const clock = new ManualClock("2026-01-05T05:00:00Z");
const fx = useEmulator({ clock });
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:Cronjob::c";
const HOURS = Array.from({ length: 24 }, (_, h) => h);
let host: ProviderHost;
let __provider: string;
let udfA: string;
let udfB: string;

const newUdf = async (slug: string) =>
  (
    await fx.user.udfs.create({
      slug,
      udf_body: JSON.stringify({ name: slug, type: "geopandas_v2", entrypoint: "udf", code: "def udf(): return 1" }),
    })
  ).id;

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("Cronjob");
  udfA = await newUdf("cron_loader");
  udfB = await newUdf("cron_stats");
});
afterAll(async () => host?.stop());

describe("Cronjob through the dynamic-provider host", () => {
  it("runs check, create, read, diff, update and delete against the platform", async () => {
    const checked = await host.check(
      URN,
      {},
      { __provider, name: "weekday_refresh", schedule: "0 6 * * MON-FRI", udfId: udfA, udfArgs: { city: "nyc" } },
    );
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toEqual({
      name: "weekday_refresh",
      minute: [0],
      hour: [6],
      dayOfMonth: [],
      month: [],
      dayOfWeek: [1, 2, 3, 4, 5],
      udfId: udfA,
      udfArgs: { city: "nyc" },
      enabled: true,
      __provider,
    });

    // GIVEN the checked inputs WHEN created THEN the platform holds the translated arrays.
    const created = await host.create(URN, checked.inputs);
    expect(await fx.user.cronjobs.get(created.id)).toMatchObject({
      name: "weekday_refresh",
      enabled: true,
      minute: [0],
      hour: [6],
      day_of_month: [],
      month: [],
      day_of_week: [1, 2, 3, 4, 5],
      udf: udfA,
      udf_args: { city: "nyc" },
      description: null,
      last_run: null,
    });
    expect(created.properties).toMatchObject({ id: created.id, schedule: "0 6 * * 1-5", lastRun: null });

    // WHEN the schedule fires THEN read reports lastRun.
    clock.set("2026-01-05T06:00:30Z");
    fx.emu.tick();
    const read = await host.read(URN, created.id, created.properties);
    expect(read.properties).toMatchObject({
      id: created.id,
      lastRun: "2026-01-05T06:00:00.000Z",
      schedule: "0 6 * * 1-5",
    });

    // The same schedule written as arrays is no change: no false drift.
    const asArrays = (
      await host.check(URN, created.properties, {
        __provider,
        name: "weekday_refresh",
        minute: 0,
        hour: [6],
        dayOfWeek: [5, 4, 3, 2, 1],
        udfId: udfA,
        udfArgs: { city: "nyc" },
      })
    ).inputs;
    expect(await host.diff(URN, created.id, read.properties, asArrays)).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });

    // Every field updates in place.
    const next = (
      await host.check(URN, read.properties, {
        __provider,
        name: "hourly_stats",
        schedule: "30 * 1,15 JAN-JUN *",
        udfId: udfB,
        enabled: false,
        description: "paused for now",
      })
    ).inputs;
    expect(await host.diff(URN, created.id, read.properties, next)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await host.update(URN, created.id, read.properties, next);
    expect(updated.properties).toMatchObject({
      id: created.id,
      name: "hourly_stats",
      schedule: "30 * 1,15 1-6 *",
      enabled: false,
      description: "paused for now",
    });
    expect(updated.properties).not.toHaveProperty("udfArgs");
    expect(await fx.user.cronjobs.get(created.id)).toMatchObject({
      name: "hourly_stats",
      enabled: false,
      minute: [30],
      hour: HOURS,
      day_of_month: [1, 15],
      month: [1, 2, 3, 4, 5, 6],
      day_of_week: [],
      udf: udfB,
      udf_args: null,
      description: "paused for now",
    });

    await host.delete(URN, created.id, updated.properties);
    await expect(fx.user.cronjobs.get(created.id)).rejects.toMatchObject({ status: 404 });
    // Deleting again (already gone) is fine, and read reports it gone.
    await host.delete(URN, created.id, updated.properties);
    const gone = await host.read(URN, created.id, updated.properties);
    expect(gone.id).toBe("");
    expect(Object.keys(gone.properties).filter((k) => k !== "__provider")).toEqual([]);
  });

  it("adopts a cronjob that already exists by name and makes it match, instead of making a second one", async () => {
    const existing = await fx.user.cronjobs.create({
      name: "adopt_cron",
      enabled: false,
      minute: [5],
      hour: [1],
      day_of_month: [],
      month: [],
      day_of_week: [],
      udf: udfA,
    });
    const inputs = (await host.check(URN, {}, { __provider, name: "adopt_cron", schedule: "10 2 * * *", udfId: udfB }))
      .inputs;
    const created = await host.create(URN, inputs);
    expect(created.id).toBe(existing.id);
    expect(await fx.user.cronjobs.get(existing.id)).toMatchObject({
      enabled: true,
      minute: [10],
      hour: [2],
      udf: udfB,
    });
    expect((await fx.user.cronjobs.list()).filter((c) => c.name === "adopt_cron")).toHaveLength(1);
    await host.delete(URN, created.id, created.properties);
  });

  it("refuses two minute values and other bad inputs in check, all at once, and nothing reaches the platform", async () => {
    const before = (await fx.user.cronjobs.list()).length;
    const r = await host.check(
      URN,
      {},
      { __provider, name: "", schedule: "*/15 * * * *", udfId: udfA, enabled: "yes" },
    );
    expect(r.failures).toEqual([
      { property: "name", reason: 'Invalid name "". A cronjob name must not be empty.' },
      { property: "enabled", reason: 'Invalid enabled "yes". enabled is true or false.' },
      {
        property: "schedule",
        reason:
          'Invalid schedule "*/15 * * * *". The minute field "*/15" runs 4 times an hour (0,15,30,45). The platform runs a cronjob at most once an hour, at exactly one minute; give one minute value (e.g. "0"), or declare several cronjobs, one per minute value.',
      },
    ]);
    const missing = await host.check(URN, {}, { __provider });
    expect(missing.failures.map((f) => f.property)).toEqual(["name", "udfId", "schedule"]);
    const create = host.create(URN, { __provider, name: "x", schedule: "*/15 * * * *", udfId: udfA });
    await expect(create).rejects.toBeInstanceOf(HostError);
    await expect(create).rejects.toThrow(/runs at most once an hour|at most once an hour/);
    expect((await fx.user.cronjobs.list()).length).toBe(before);
  });

  it("GIVEN a team without billing THEN create fails with a message that says why, and shows no credential", async () => {
    // The host configures a provider once, so team `other` gets its own host.
    const otherHost = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
    try {
      await otherHost.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.other_user_token! });
      const inputs = (
        await otherHost.check(URN, {}, { __provider, name: "no_billing", schedule: "0 6 * * *", udfId: udfA })
      ).inputs;
      const err = await otherHost.create(URN, inputs).then(
        () => {
          throw new Error("expected create to fail");
        },
        (e: unknown) => e as HostError,
      );
      expect(err).toBeInstanceOf(HostError);
      expect(err.message).toContain(
        'Cannot create cronjob "no_billing": the platform refused it (403). Creating a cronjob needs billing enabled for the team, because scheduled runs use batch compute.',
      );
      expect(err.message).toContain("POST /cronjob/create failed with 403");
      expect(err.message).not.toContain(fx.emu.tokens.other_user_token);
      expect(err.message).not.toContain(fx.emu.tokens.user_token);
    } finally {
      await otherHost.stop();
    }
  });

  it("observes every cronjob of the environment in one listing, keyed by name, with normalized arrays", async () => {
    const c = await fx.user.cronjobs.create({
      name: "observed_cron",
      enabled: true,
      minute: [0],
      hour: [],
      day_of_month: [],
      month: [],
      day_of_week: [1, 2, 3, 4, 5],
      udf: udfA,
    });
    const all = await cronjobKind.observeAll({ client: fx.user });
    expect(all.find((o) => o.id === c.id)).toMatchObject({
      key: "observed_cron",
      state: { schedule: "0 * * * 1-5", hour: HOURS, udfId: udfA },
    });
    await fx.user.cronjobs.delete(c.id);
  });
});
