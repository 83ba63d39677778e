import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CreateCronjobInput } from "../../src/api/cronjobs";
import { nextDue, type Schedule } from "../../src/emulator/areas/cronjobs";
import { ManualClock } from "../../src/emulator/clock";
import { useEmulator } from "../helpers/emulator";

// 2026-01-05 is a Monday (day_of_week 1).
const clock = new ManualClock("2026-01-05T05:58:00Z");
const fx = useEmulator({ clock });

function insertUdf(envId = "env-demo"): string {
  const id = randomUUID();
  const stamp = clock.now().toISOString();
  fx.emu.env.store.run(
    `INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, is_visible, position, created_at, last_updated)
     VALUES (?, ?, NULL, NULL, ?, ?, ?, 1, 0, ?, ?)`,
    id,
    envId,
    `udf_${id.slice(0, 8)}`,
    JSON.stringify({ code: "@fused.udf\ndef udf(city: str = 'sf'):\n    return city\n" }),
    `hash-${id}`,
    stamp,
    stamp,
  );
  return id;
}

const create = (over: Partial<CreateCronjobInput>) =>
  fx.user.cronjobs.create({
    name: "sched",
    enabled: true,
    minute: [0],
    hour: [6],
    day_of_month: [],
    month: [],
    day_of_week: [],
    udf: insertUdf(),
    ...over,
  });

/** Jobs the scheduler started for one cronjob, oldest first. */
async function runsOf(cronjobId: string) {
  const all = await fx.service.jobs.listExecEnv().toArray();
  return all.filter((j) => j.cronjob_id === cronjobId).reverse();
}

const at = (iso: string) => {
  clock.set(iso);
  fx.emu.tick();
};

describe("cronjob scheduler", () => {
  it("GIVEN a cronjob at 06:00 WHEN the clock passes 06:00 THEN exactly one batch job starts, once, and last_run is set", async () => {
    const c = await create({ udf_args: { city: "nyc" } });
    at("2026-01-05T05:59:30Z");
    expect(await runsOf(c.id)).toEqual([]);
    at("2026-01-05T06:00:10Z");
    let runs = await runsOf(c.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      created_at: "2026-01-05T06:00:00.000Z",
      udf_id: c.udf,
      udf_args: { city: "nyc" },
      has_config: false,
      user_id: null,
    });
    expect((await fx.user.cronjobs.get(c.id)).last_run).toBe("2026-01-05T06:00:00.000Z");
    fx.emu.tick();
    at("2026-01-05T06:59:59Z");
    runs = await runsOf(c.id);
    expect(runs).toHaveLength(1);
    expect((await fx.service.jobs.waitForTerminal(runs[0].id, { pollMs: 20, timeoutMs: 20_000 })).job_status).toBe(
      "SUCCEEDED",
    );
    await fx.user.cronjobs.delete(c.id);
  });

  it("GIVEN an hourly cronjob WHEN several hours pass between ticks THEN one run per due minute, each at its minute", async () => {
    const c = await create({ minute: [30], hour: [] });
    at("2026-01-05T10:45:00Z");
    const runs = await runsOf(c.id);
    expect(runs.map((r) => r.created_at)).toEqual([
      "2026-01-05T07:30:00.000Z",
      "2026-01-05T08:30:00.000Z",
      "2026-01-05T09:30:00.000Z",
      "2026-01-05T10:30:00.000Z",
    ]);
    expect((await fx.user.cronjobs.get(c.id)).last_run).toBe("2026-01-05T10:30:00.000Z");
    fx.emu.tick();
    expect(await runsOf(c.id)).toHaveLength(4);
    await fx.user.cronjobs.delete(c.id);
  });

  it("GIVEN a disabled cronjob THEN it never runs, and enabling it does not fire the minutes it missed", async () => {
    const c = await create({ enabled: false, minute: [0], hour: [] });
    at("2026-01-05T13:30:00Z");
    expect(await runsOf(c.id)).toEqual([]);
    expect((await fx.user.cronjobs.get(c.id)).last_run).toBeNull();
    await fx.user.cronjobs.update(c.id, { enabled: true });
    fx.emu.tick();
    expect(await runsOf(c.id)).toEqual([]);
    at("2026-01-05T14:00:00Z");
    expect((await runsOf(c.id)).map((r) => r.created_at)).toEqual(["2026-01-05T14:00:00.000Z"]);
    await fx.user.cronjobs.update(c.id, { enabled: false });
    at("2026-01-05T16:30:00Z");
    expect(await runsOf(c.id)).toHaveLength(1);
    await fx.user.cronjobs.delete(c.id);
  });

  it("GIVEN a deleted cronjob THEN its minute passes without a run", async () => {
    const c = await create({ minute: [45], hour: [] });
    await fx.user.cronjobs.delete(c.id);
    at("2026-01-05T18:00:00Z");
    expect(await runsOf(c.id)).toEqual([]);
  });

  it("GIVEN an edit WHEN a due minute passed before the edit but before any tick THEN the run still happens exactly once", async () => {
    const c = await create({ minute: [5], hour: [] });
    clock.set("2026-01-05T18:06:00Z");
    await fx.user.cronjobs.update(c.id, { name: "renamed" });
    fx.emu.tick();
    expect((await runsOf(c.id)).map((r) => r.created_at)).toEqual(["2026-01-05T18:05:00.000Z"]);
    await fx.user.cronjobs.delete(c.id);
  });

  it("honours day_of_week, day_of_month and month filters (UTC)", async () => {
    const tuesday = await create({ minute: [0], hour: [0], day_of_week: [2] });
    const tenth = await create({ minute: [15], hour: [12], day_of_month: [10] });
    const february = await create({ minute: [0], hour: [0], month: [2] });
    at("2026-01-12T00:00:00Z");
    expect((await runsOf(tuesday.id)).map((r) => r.created_at)).toEqual(["2026-01-06T00:00:00.000Z"]);
    expect((await runsOf(tenth.id)).map((r) => r.created_at)).toEqual(["2026-01-10T12:15:00.000Z"]);
    expect(await runsOf(february.id)).toEqual([]);
    for (const c of [tuesday, tenth, february]) await fx.user.cronjobs.delete(c.id);
  });

  it("GIVEN the UDF was deleted WHEN the cronjob comes due THEN the run is a FAILED job saying why", async () => {
    const c = await create({ minute: [0], hour: [] });
    fx.emu.env.store.run("DELETE FROM udfs WHERE id = ?", c.udf);
    at("2026-01-12T01:00:00Z");
    const [run] = await runsOf(c.id);
    clock.advance(60_000);
    expect((await fx.service.jobs.get(run.id)).job_status).toBe("FAILED");
    const events = await fx.service.jobs.events(run.id);
    expect(events.at(-1)?.job_status_description).toBe(`UDF ${c.udf} no longer exists in this execution environment`);
    await fx.user.cronjobs.delete(c.id);
  });
});

describe("nextDue", () => {
  const s = (over: Partial<Schedule>): Schedule => ({
    minute: [0],
    hour: [],
    day_of_month: [],
    month: [],
    day_of_week: [],
    ...over,
  });
  const t = (iso: string) => Date.parse(iso);

  it("finds the next matching minute strictly after the start and not after the end", () => {
    expect(nextDue(s({ minute: [30], hour: [6] }), t("2026-01-05T06:30:00Z"), t("2026-01-07T00:00:00Z"))).toBe(
      t("2026-01-06T06:30:00Z"),
    );
    expect(nextDue(s({ minute: [30], hour: [6] }), t("2026-01-05T06:29:59Z"), t("2026-01-05T06:30:00Z"))).toBe(
      t("2026-01-05T06:30:00Z"),
    );
    expect(
      nextDue(s({ minute: [30], hour: [6] }), t("2026-01-05T06:29:59Z"), t("2026-01-05T06:29:59.999Z")),
    ).toBeUndefined();
  });

  it("never matches a day that does not exist, and wraps years", () => {
    expect(
      nextDue(s({ day_of_month: [31], month: [2] }), t("2026-01-01T00:00:00Z"), t("2030-01-01T00:00:00Z")),
    ).toBeUndefined();
    expect(
      nextDue(s({ hour: [0], day_of_month: [1], month: [1] }), t("2026-01-01T00:00:00Z"), t("2028-01-01T00:00:00Z")),
    ).toBe(t("2027-01-01T00:00:00Z"));
  });
});
