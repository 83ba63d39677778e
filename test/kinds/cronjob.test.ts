import { describe, expect, it } from "vitest";
import { cronjobKind, cronjobState, type CronjobState } from "../../src/kinds/cronjob/resource";

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const check = (raw: unknown) => cronjobKind.check(raw);
const inputs = (raw: Record<string, unknown>) => {
  const r = check({ name: "nightly", udfId: "udf-1", ...raw });
  expect(r.failures).toEqual([]);
  return r.inputs;
};

describe("Cronjob check", () => {
  it("GIVEN a cron expression THEN the inputs hold the platform's arrays and the defaults", () => {
    expect(inputs({ schedule: "0 6 * * 1-5" })).toEqual({
      name: "nightly",
      minute: [0],
      hour: [6],
      dayOfMonth: [],
      month: [],
      dayOfWeek: [1, 2, 3, 4, 5],
      udfId: "udf-1",
      enabled: true,
    });
  });

  it("GIVEN the arrays THEN they are normalized the same way (a number minute, every hour, Sunday as 7)", () => {
    expect(inputs({ minute: 0, dayOfWeek: [5, 1, 2, 3, 4] })).toEqual(inputs({ schedule: "0 * * * MON-FRI" }));
    expect(inputs({ minute: [0], hour: [6], dayOfWeek: [7] }).dayOfWeek).toEqual([0]);
    expect(inputs({ minute: [0], hour: [] }).hour).toEqual(HOURS);
  });

  it("keeps description and udfArgs, and accepts its own output again (the engine re-checks)", () => {
    const once = inputs({ schedule: "0 6 * * *", udfArgs: { city: "nyc" }, description: "d", enabled: false });
    expect(once).toMatchObject({ udfArgs: { city: "nyc" }, description: "d", enabled: false });
    expect(check(once)).toEqual({ inputs: once, failures: [] });
  });

  it("GIVEN more than one minute value THEN check refuses it and says why", () => {
    expect(check({ name: "n", udfId: "u", schedule: "*/15 * * * *" }).failures).toEqual([
      {
        property: "schedule",
        reason:
          'Invalid schedule "*/15 * * * *". The minute field "*/15" runs 4 times an hour (0,15,30,45). The platform runs a cronjob at most once an hour, at exactly one minute; give one minute value (e.g. "0"), or declare several cronjobs, one per minute value.',
      },
    ]);
    expect(check({ name: "n", udfId: "u", minute: [0, 30] }).failures).toEqual([
      {
        property: "minute",
        reason:
          'Invalid minute [0,30]. The minute field runs 2 times an hour (0,30). The platform runs a cronjob at most once an hour, at exactly one minute; give one minute value (e.g. "0"), or declare several cronjobs, one per minute value.',
      },
    ]);
  });

  it("GIVEN both forms, or neither THEN check says exactly one is expected", () => {
    expect(check({ name: "n", udfId: "u", schedule: "0 6 * * *", minute: [0], hour: [6] }).failures).toEqual([
      {
        property: "schedule",
        reason:
          "Give either schedule (a cron expression) or the arrays minute, hour, dayOfMonth, month, dayOfWeek, not both; found schedule and minute, hour.",
      },
    ]);
    expect(check({ name: "n", udfId: "u" }).failures).toEqual([
      {
        property: "schedule",
        reason:
          'schedule is required: a cron expression such as "0 6 * * 1-5", or the arrays minute (one value), hour, dayOfMonth, month, dayOfWeek.',
      },
    ]);
    expect(check({ name: "n", udfId: "u", hour: [6] }).failures).toEqual([
      {
        property: "minute",
        reason: "minute is required with the array form: the one minute of the hour the cronjob runs at, e.g. [0].",
      },
    ]);
  });

  it("reports every bad input at once, with the value found and the expected form", () => {
    expect(check({ name: "", schedule: "0 6 * *", hour: undefined, udfArgs: "x", enabled: "yes" }).failures).toEqual([
      { property: "name", reason: 'Invalid name "". A cronjob name must not be empty.' },
      { property: "udfId", reason: "udfId is required: udfId is the id of the UDF to run (a `Udf` resource's `id`)." },
      {
        property: "udfArgs",
        reason: 'Invalid udfArgs "x". udfArgs is an object of arguments passed on each run, e.g. {"city": "nyc"}.',
      },
      { property: "enabled", reason: 'Invalid enabled "yes". enabled is true or false.' },
      {
        property: "schedule",
        reason:
          'Invalid schedule "0 6 * *". A cron expression has 5 fields "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"; found 4 in "0 6 * *".',
      },
    ]);
  });

  it("reports the minute count together with other failures", () => {
    expect(check({ name: "", udfId: "u", minute: [0, 30] }).failures.map((f) => f.property)).toEqual([
      "name",
      "minute",
    ]);
  });

  it("names array elements out of range with their position", () => {
    expect(check({ name: "n", udfId: "u", minute: [60], month: [0], dayOfWeek: [8] }).failures).toEqual([
      {
        property: "minute[0]",
        reason: "Invalid minute[0] 60. minute is a list of minute values 0-59, e.g. [0]; exactly one value.",
      },
      {
        property: "month[0]",
        reason: "Invalid month[0] 0. month is a list of month values 1-12, e.g. [1, 7]; [] means every month.",
      },
      {
        property: "dayOfWeek[0]",
        reason:
          "Invalid dayOfWeek[0] 8. dayOfWeek is a list of day of week values 0-7, e.g. [1, 2, 3, 4, 5] (0 or 7 = Sunday); [] means every day.",
      },
    ]);
  });
});

describe("Cronjob diff", () => {
  const olds: CronjobState = {
    id: "c1",
    schedule: "0 6 * * 1-5",
    lastRun: null,
    ...inputs({ schedule: "0 6 * * 1-5", udfArgs: { a: 1 }, description: "d" }),
  };
  const same = { ...olds } as Record<string, unknown>;
  for (const k of ["id", "schedule", "lastRun"]) delete same[k];

  it("GIVEN an equivalent schedule in the other form THEN there is no change", () => {
    const d = cronjobKind.diff(
      olds,
      inputs({
        minute: [0],
        hour: [6],
        dayOfMonth: [],
        month: [],
        dayOfWeek: [1, 2, 3, 4, 5],
        udfArgs: { a: 1 },
        description: "d",
      }),
    );
    expect(d).toMatchObject({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(d.stables).toEqual([
      "dayOfMonth",
      "dayOfWeek",
      "description",
      "enabled",
      "hour",
      "minute",
      "month",
      "name",
      "udfArgs",
      "udfId",
    ]);
  });

  it("GIVEN platform arrays not normalized (hour [], Sunday 7) THEN there is no false drift", () => {
    const fromPlatform = { ...olds, hour: [], dayOfWeek: [], minute: [0] };
    expect(
      cronjobKind.diff(fromPlatform, inputs({ schedule: "0 * * * *", udfArgs: { a: 1 }, description: "d" })).changes,
    ).toBe(false);
  });

  it.each([
    ["name", { name: "renamed" }],
    ["minute", { schedule: "5 6 * * 1-5" }],
    ["hour", { schedule: "0 7 * * 1-5" }],
    ["dayOfMonth", { schedule: "0 6 1 * 1-5" }],
    ["month", { schedule: "0 6 * 3 1-5" }],
    ["dayOfWeek", { schedule: "0 6 * * 1-4" }],
    ["udfId", { udfId: "udf-2" }],
    ["udfArgs", { udfArgs: { a: 2 } }],
    ["enabled", { enabled: false }],
    ["description", { description: "e" }],
  ])("GIVEN a new %s THEN it updates in place", (field, change) => {
    const d = cronjobKind.diff(
      olds,
      inputs({ schedule: "0 6 * * 1-5", udfArgs: { a: 1 }, description: "d", ...change }),
    );
    expect(d).toMatchObject({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(d.fields.map((f) => [f.field, f.action])).toEqual([[field, "update"]]);
    expect(d.stables).not.toContain(field);
  });

  it("GIVEN udfArgs or description removed THEN that is a change (it will be cleared)", () => {
    const d = cronjobKind.diff(olds, inputs({ schedule: "0 6 * * 1-5" }));
    expect(d.fields.map((f) => f.field)).toEqual(["description", "udfArgs"]);
  });
});

describe("cronjobState", () => {
  it("maps a platform cronjob to state with a canonical schedule", () => {
    expect(
      cronjobState({
        id: "c1",
        name: "n",
        description: null,
        execution_environment_id: "e",
        enabled: true,
        minute: [0],
        hour: [],
        day_of_month: [],
        month: [],
        day_of_week: [5, 1, 2, 3, 4],
        udf: "u",
        udf_args: null,
        last_run: null,
      }),
    ).toEqual({
      id: "c1",
      name: "n",
      schedule: "0 * * * 1-5",
      minute: [0],
      hour: HOURS,
      dayOfMonth: [],
      month: [],
      dayOfWeek: [1, 2, 3, 4, 5],
      udfId: "u",
      enabled: true,
      lastRun: null,
    });
  });
});
