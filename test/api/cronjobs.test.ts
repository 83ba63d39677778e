import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CreateCronjobInput } from "../../src/api/cronjobs";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator, type EmulatorFixture } from "../helpers/emulator";

const clock = new ManualClock("2026-01-05T05:58:00Z");
const fx = useEmulator({ clock });

/** Inserts a UDF row straight into the store (the UDF area is not a dependency of these tests). */
function insertUdf(f: EmulatorFixture, envId = "env-demo", slug = "hello"): string {
  const id = randomUUID();
  const stamp = clock.now().toISOString();
  f.emu.env.store.run(
    `INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, is_visible, position, created_at, last_updated)
     VALUES (?, ?, NULL, NULL, ?, ?, ?, 1, 0, ?, ?)`,
    id,
    envId,
    slug,
    JSON.stringify({ name: slug, code: "def udf(x: int = 0):\n    return x\n" }),
    `hash-${id}`,
    stamp,
    stamp,
  );
  return id;
}

function input(udf: string, over: Partial<CreateCronjobInput> = {}): CreateCronjobInput {
  return {
    name: "nightly",
    enabled: true,
    minute: [15],
    hour: [2],
    day_of_month: [],
    month: [],
    day_of_week: [],
    udf,
    ...over,
  };
}

const SPEC_FIELDS = [
  "id",
  "name",
  "description",
  "execution_environment_id",
  "enabled",
  "minute",
  "hour",
  "day_of_month",
  "month",
  "day_of_week",
  "udf",
  "udf_args",
  "last_run",
].sort();

describe("cronjobs (4.3)", () => {
  it("GIVEN a UDF WHEN a cronjob is created THEN it has exactly the spec fields and reads back by id, by UDF and in the listing", async () => {
    const udf = insertUdf(fx);
    const created = await fx.user.cronjobs.create(
      input(udf, { description: "refresh", udf_args: { city: "nyc" }, day_of_week: [1, 3] }),
    );
    expect(Object.keys(created).sort()).toEqual(SPEC_FIELDS);
    expect(created).toMatchObject({
      name: "nightly",
      description: "refresh",
      execution_environment_id: "env-demo",
      enabled: true,
      minute: [15],
      hour: [2],
      day_of_month: [],
      month: [],
      day_of_week: [1, 3],
      udf,
      udf_args: { city: "nyc" },
      last_run: null,
    });
    expect(await fx.user.cronjobs.get(created.id)).toEqual(created);
    expect(await fx.service.cronjobs.listByUdf(udf)).toEqual([created]);
    expect((await fx.service.cronjobs.list()).map((c) => c.id)).toContain(created.id);
  });

  it("defaults description and udf_args to null, and lists nothing for an unknown UDF", async () => {
    const created = await fx.service.cronjobs.create(input(insertUdf(fx)));
    expect(created).toMatchObject({ description: null, udf_args: null });
    expect(await fx.user.cronjobs.listByUdf("no-such-udf")).toEqual([]);
  });

  it("GIVEN a cronjob WHEN a subset of fields is updated THEN only those change", async () => {
    const udf = insertUdf(fx);
    const c = await fx.user.cronjobs.create(input(udf));
    const other = insertUdf(fx, "env-demo", "second");
    const updated = await fx.user.cronjobs.update(c.id, {
      enabled: false,
      hour: [1, 23],
      udf: other,
      udf_args: { n: 2 },
    });
    expect(updated).toMatchObject({
      id: c.id,
      name: "nightly",
      enabled: false,
      minute: [15],
      hour: [1, 23],
      udf: other,
      udf_args: { n: 2 },
    });
    expect(await fx.user.cronjobs.get(c.id)).toEqual(updated);
    expect(await fx.user.cronjobs.listByUdf(udf)).toEqual([]);
  });

  it("GIVEN a cronjob WHEN it is deleted THEN the deleted cronjob comes back and it is gone", async () => {
    const c = await fx.user.cronjobs.create(input(insertUdf(fx)));
    expect(await fx.user.cronjobs.delete(c.id)).toEqual(c);
    const e = await failure(fx.user.cronjobs.get(c.id));
    expect(e).toMatchObject({ status: 404, code: "not_found", detail: `Cronjob ${c.id} not found` });
    expect((await fx.user.cronjobs.list()).map((x) => x.id)).not.toContain(c.id);
    expect(await failure(fx.user.cronjobs.delete(c.id))).toMatchObject({
      status: 404,
      detail: `Cronjob ${c.id} not found`,
    });
  });

  it("WHEN a cronjob is run by hand THEN a batch job starts and the answer holds the cronjob and the run", async () => {
    const udf = insertUdf(fx);
    const c = await fx.user.cronjobs.create(input(udf, { enabled: false, udf_args: { x: 1 } }));
    const out = await fx.user.cronjobs.run(c.id);
    expect(out.cronjob).toMatchObject({ id: c.id, last_run: clock.now().toISOString() });
    expect(out.run).toMatchObject({ job_status: "PENDING", execution_environment_id: "env-demo" });
    expect((await fx.user.cronjobs.get(c.id)).last_run).toBe(clock.now().toISOString());
    const record = await fx.service.jobs.getRecord(out.run.job_id);
    expect(record).toMatchObject({
      cronjob_id: c.id,
      udf_id: udf,
      udf_args: { x: 1 },
      user_id: "user-demo-1",
      has_config: false,
    });
    const e = await failure(fx.service.jobs.getConfig(out.run.job_id));
    expect(e).toMatchObject({
      status: 400,
      code: "bad_request",
      detail: `Job ${out.run.job_id} has no stored configuration; it was started by cronjob ${c.id}, which runs a saved UDF`,
    });
    clock.advance(60_000);
    // The UDF really runs (python3): the job ends once its process has.
    expect((await fx.service.jobs.waitForTerminal(out.run.job_id, { pollMs: 20, timeoutMs: 20_000 })).job_status).toBe(
      "SUCCEEDED",
    );
  });

  it("GIVEN the cronjob's UDF was deleted WHEN it is run by hand THEN 404 names the UDF", async () => {
    const udf = insertUdf(fx);
    const c = await fx.user.cronjobs.create(input(udf));
    fx.emu.env.store.run("DELETE FROM udfs WHERE id = ?", udf);
    const e = await failure(fx.user.cronjobs.run(c.id));
    expect(e).toMatchObject({ status: 404, detail: `UDF ${udf} not found in this execution environment` });
    expect((await fx.user.cronjobs.get(c.id)).last_run).toBeNull();
  });

  it("GIVEN a team without billing WHEN it creates a cronjob THEN 403 says billing is required", async () => {
    const udf = insertUdf(fx, "env-other");
    const e = await failure(fx.other.cronjobs.create(input(udf)));
    expect(e).toMatchObject({
      status: 403,
      code: "forbidden",
      detail: "Team other has no billing enabled; cronjobs run on batch compute, which requires billing",
    });
    expect(await fx.other.cronjobs.list()).toEqual([]);
  });

  it("GIVEN a UDF outside the caller's environment WHEN creating or updating THEN 404 names the UDF", async () => {
    const foreign = insertUdf(fx, "env-other");
    const e = await failure(fx.user.cronjobs.create(input(foreign)));
    expect(e).toMatchObject({ status: 404, detail: `UDF ${foreign} not found in this execution environment` });
    const missing = await failure(fx.user.cronjobs.create(input("nope")));
    expect(missing).toMatchObject({ status: 404, detail: "UDF nope not found in this execution environment" });
    const c = await fx.user.cronjobs.create(input(insertUdf(fx)));
    expect(await failure(fx.user.cronjobs.update(c.id, { udf: foreign }))).toMatchObject({
      status: 404,
      detail: `UDF ${foreign} not found in this execution environment`,
    });
    expect((await fx.user.cronjobs.get(c.id)).udf).toBe(c.udf);
  });

  it("GIVEN another team's cronjob WHEN read, updated, deleted or run THEN 404 and it is unchanged", async () => {
    const c = await fx.user.cronjobs.create(input(insertUdf(fx)));
    const detail = `Cronjob ${c.id} not found`;
    expect(await failure(fx.other.cronjobs.get(c.id))).toMatchObject({ status: 404, detail });
    expect(await failure(fx.other.cronjobs.update(c.id, { name: "mine" }))).toMatchObject({ status: 404, detail });
    expect(await failure(fx.other.cronjobs.delete(c.id))).toMatchObject({ status: 404, detail });
    expect(await failure(fx.other.cronjobs.run(c.id))).toMatchObject({ status: 404, detail });
    expect(await fx.other.cronjobs.listByUdf(c.udf)).toEqual([]);
    expect(await fx.user.cronjobs.get(c.id)).toEqual(c);
  });

  it("GIVEN no credentials THEN every cronjob endpoint answers 401", async () => {
    for (const p of [
      fx.anon.cronjobs.list(),
      fx.anon.cronjobs.get("x"),
      fx.anon.cronjobs.create(input("x")),
      fx.anon.cronjobs.run("x"),
    ]) {
      expect(await failure(p)).toMatchObject({ status: 401, detail: "Not authenticated" });
    }
  });

  describe("validation (spec 8)", () => {
    const udf = () => insertUdf(fx);
    const issue = async (over: Partial<CreateCronjobInput>) => {
      const e = await failure(fx.user.cronjobs.create(input(udf(), over)));
      expect(e).toMatchObject({ status: 422, code: "validation_failed" });
      return e.detail as { loc: (string | number)[]; type: string; msg: string }[];
    };

    it("refuses a minute list that is empty, has two values or is out of 0-59, at loc body.minute", async () => {
      for (const minute of [[], [1, 2], [60], [-1]]) {
        const d = await issue({ minute });
        expect(d).toEqual([
          { loc: ["body", "minute"], msg: "minute must hold exactly one value from 0 to 59", type: "value_error" },
        ]);
      }
    });

    it("refuses hour, day_of_month, month and day_of_week values out of range, with the index in loc", async () => {
      expect(await issue({ hour: [1, 24] })).toEqual([
        { loc: ["body", "hour", 1], msg: "Input should be less than or equal to 23", type: "less_than_equal" },
      ]);
      expect(await issue({ hour: [-1] })).toEqual([
        { loc: ["body", "hour", 0], msg: "Input should be greater than or equal to 0", type: "greater_than_equal" },
      ]);
      expect(await issue({ day_of_month: [1, 15, 0] })).toEqual([
        {
          loc: ["body", "day_of_month", 2],
          msg: "Input should be greater than or equal to 1",
          type: "greater_than_equal",
        },
      ]);
      expect(await issue({ day_of_month: [32] })).toEqual([
        { loc: ["body", "day_of_month", 0], msg: "Input should be less than or equal to 31", type: "less_than_equal" },
      ]);
      expect(await issue({ month: [0] })).toEqual([
        { loc: ["body", "month", 0], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" },
      ]);
      expect(await issue({ month: [12, 13] })).toEqual([
        { loc: ["body", "month", 1], msg: "Input should be less than or equal to 12", type: "less_than_equal" },
      ]);
      expect(await issue({ day_of_week: [0, 7] })).toEqual([
        { loc: ["body", "day_of_week", 1], msg: "Input should be less than or equal to 6", type: "less_than_equal" },
      ]);
    });

    it("reports every missing required field with type missing", async () => {
      const e = await failure(fx.user.cronjobs.create({} as CreateCronjobInput));
      expect(e.status).toBe(422);
      const missing = (e.detail as { loc: string[]; type: string }[]).map((d) => [d.loc.join("."), d.type]);
      expect(missing.sort()).toEqual(
        ["name", "enabled", "minute", "hour", "day_of_month", "month", "day_of_week", "udf"]
          .map((f) => [`body.${f}`, "missing"])
          .sort(),
      );
    });

    it("refuses wrong types and invalid values on update too, leaving the cronjob as it was", async () => {
      const c = await fx.user.cronjobs.create(input(udf()));
      const e = await failure(fx.user.cronjobs.update(c.id, { minute: [70] }));
      expect(e).toMatchObject({ status: 422, detail: [{ loc: ["body", "minute"], type: "value_error" }] });
      const t = await failure(fx.user.cronjobs.update(c.id, { enabled: "yes" as never, hour: [5, 30] }));
      expect(t.detail).toEqual([
        { loc: ["body", "enabled"], msg: "Input should be a valid boolean", type: "boolean_type" },
        { loc: ["body", "hour", 1], msg: "Input should be less than or equal to 23", type: "less_than_equal" },
      ]);
      expect(await fx.user.cronjobs.get(c.id)).toEqual(c);
    });
  });
});
