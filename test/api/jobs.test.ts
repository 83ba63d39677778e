import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-01-05T05:58:00Z");
const fx = useEmulator({ clock });

let n = 0;
/** A config unique to each call, so cache tests elsewhere never match it. */
const cfg = (extra: Record<string, unknown> = {}) => ({ steps: [{ type: "udf", name: `step-${++n}` }], ...extra });

describe("batch jobs (4.8)", () => {
  it("GIVEN a submitted job WHEN time passes THEN it goes PENDING → RUNNING → SUCCEEDED with history, heartbeats and logs", async () => {
    const t0 = clock.now().getTime();
    const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 25 } }), {
      instanceType: "r5.large",
      diskSizeGb: 50,
      region: "eu-west-1",
    });
    expect(run).toMatchObject({
      job_status: "PENDING",
      job_status_date: new Date(t0).toISOString(),
      instance_id: null,
      instance_type: "r5.large",
      disk_size_gb: 50,
      region: "eu-west-1",
      send_status_email: true,
      first_heartbeat: null,
      last_heartbeat: null,
    });
    clock.advance(1000);
    const running = await fx.user.jobs.get(run.job_id);
    expect(running).toMatchObject({
      job_status: "RUNNING",
      job_status_date: new Date(t0 + 1000).toISOString(),
      first_heartbeat: new Date(t0 + 1000).toISOString(),
    });
    expect(running.instance_id).toMatch(/^i-[0-9a-f]{16}$/);
    clock.advance(15_000);
    expect((await fx.service.jobs.getRecord(run.job_id)).last_heartbeat).toBe(new Date(t0 + 11_000).toISOString());
    expect(await fx.service.jobs.results(run.job_id)).toEqual([]);
    clock.advance(60_000);
    const done = await fx.service.jobs.get(run.job_id);
    expect(done).toMatchObject({
      job_status: "SUCCEEDED",
      job_status_date: new Date(t0 + 26_000).toISOString(),
      last_heartbeat: new Date(t0 + 26_000).toISOString(),
    });

    const events = await fx.service.jobs.events(run.job_id);
    expect(events.map((e) => [e.job_status, e.date_updated, e.job_id])).toEqual([
      ["PENDING", new Date(t0).toISOString(), run.job_id],
      ["RUNNING", new Date(t0 + 1000).toISOString(), run.job_id],
      ["SUCCEEDED", new Date(t0 + 26_000).toISOString(), run.job_id],
    ]);
    expect(events[2].job_status_description).toBe("Job completed successfully");

    const logs = await fx.service.jobs.logs(run.job_id);
    expect(logs[0]).toEqual({ timestamp_ms: t0, message: `Job ${run.job_id} submitted: submitted configuration` });
    expect(logs.at(-1)).toEqual({ timestamp_ms: t0 + 26_000, message: "Job succeeded" });
    expect(logs.map((l) => l.timestamp_ms)).toEqual([...logs.map((l) => l.timestamp_ms)].sort((a, b) => a - b));
    const later = await fx.service.jobs.logs(run.job_id, { sinceMs: t0 + 1000, region: "eu-west-1" });
    expect(later.every((l) => l.timestamp_ms > t0 + 1000)).toBe(true);
    expect(later.map((l) => l.message)).toEqual(logs.filter((l) => l.timestamp_ms > t0 + 1000).map((l) => l.message));
    expect(later.length).toBe(3);
    const tail = await fx.service.jobs.tail(run.job_id, { limit: 2 });
    expect(tail).toEqual([logs.at(-1), logs.at(-2)]);
    expect((await fx.service.jobs.tail(run.job_id)).length).toBe(logs.length);

    const results = await fx.service.jobs.results(run.job_id);
    expect(results.find((r) => r.file_name === "_SUCCESS")).toMatchObject({
      url: `s3://demo-bucket/jobs/${run.job_id}/_SUCCESS`,
      size: 0,
    });
    for (const r of results) expect(r.url.startsWith(`s3://demo-bucket/jobs/${run.job_id}/`)).toBe(true);
    expect(results.length).toBeGreaterThanOrEqual(2);
    const first = results.find((r) => r.file_name === "part-00000.json")!;
    expect(first.last_modified).toBe(new Date(t0 + 26_000).toISOString());
    // The outputs are real objects: the files endpoints list and read them.
    expect(await fx.user.files.list(`s3://demo-bucket/jobs/${run.job_id}/`)).toEqual(results.map((r) => r.url));
    const part = JSON.parse((await fx.user.files.download(first.url)).toString("utf8"));
    expect(part).toMatchObject({ job_id: run.job_id, part: 0 });
    expect(first.size).toBe(Buffer.byteLength(JSON.stringify(part)));
  });

  it("defaults instance type, disk, region and status email, and keeps send_status_email=false when asked", async () => {
    const a = await fx.service.jobs.submit(cfg());
    expect(a).toMatchObject({
      instance_type: "m5.xlarge",
      disk_size_gb: 100,
      region: "us-west-2",
      send_status_email: true,
    });
    const b = await fx.service.jobs.submit(cfg(), { sendStatusEmail: false });
    expect((await fx.service.jobs.getRecord(b.job_id)).send_status_email).toBe(false);
  });

  it("GIVEN config.emulator.fail WHEN the job ends THEN it is FAILED with the error in history and logs, and has no results", async () => {
    const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 5, fail: true, error: "ZeroDivisionError" } }));
    clock.advance(10_000);
    expect((await fx.user.jobs.get(run.job_id)).job_status).toBe("FAILED");
    const events = await fx.user.jobs.events(run.job_id);
    expect(events.at(-1)).toMatchObject({ job_status: "FAILED", job_status_description: "ZeroDivisionError" });
    expect((await fx.user.jobs.logs(run.job_id)).map((l) => l.message)).toContain("ERROR: ZeroDivisionError");
    expect(await fx.user.jobs.results(run.job_id)).toEqual([]);
  });

  it("GIVEN a running job WHEN canceled THEN it is CANCELED with a history entry; canceling again or a finished job gives 400", async () => {
    const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 600 } }));
    clock.advance(2000);
    const canceled = await fx.service.jobs.cancel(run.job_id);
    expect(canceled).toMatchObject({
      job_id: run.job_id,
      job_status: "CANCELED",
      job_status_date: clock.now().toISOString(),
    });
    const events = await fx.user.jobs.events(run.job_id);
    expect(events.map((e) => e.job_status)).toEqual(["PENDING", "RUNNING", "CANCELED"]);
    expect(events[2].job_status_description).toBe("Canceled on request; instance terminated");
    clock.advance(3_600_000);
    expect((await fx.user.jobs.get(run.job_id)).job_status).toBe("CANCELED");
    expect(await failure(fx.user.jobs.cancel(run.job_id))).toMatchObject({
      status: 400,
      code: "bad_request",
      detail: `Job ${run.job_id} is already canceled`,
    });

    const quick = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 1 } }));
    clock.advance(5000);
    expect(await failure(fx.user.jobs.cancel(quick.job_id))).toMatchObject({
      status: 400,
      detail: `Job ${quick.job_id} has already finished with status SUCCEEDED; only a running or pending job can be canceled`,
    });
    expect((await fx.user.jobs.get(quick.job_id)).job_status).toBe("SUCCEEDED");
  });

  it("cancels a job that is still PENDING", async () => {
    const run = await fx.user.jobs.submit(cfg());
    expect(await fx.user.jobs.cancel(run.job_id)).toMatchObject({ job_status: "CANCELED", instance_id: null });
    clock.advance(120_000);
    expect((await fx.user.jobs.events(run.job_id)).map((e) => e.job_status)).toEqual(["PENDING", "CANCELED"]);
  });

  describe("cache_max_age", () => {
    it("GIVEN an identical config within cache_max_age THEN the same job comes back and nothing new starts", async () => {
      const config = { steps: [{ a: 1, b: 2 }], name: "cached" };
      const first = await fx.user.jobs.submit(config, { cacheMaxAge: 600 });
      const before = (await fx.service.jobs.listExecEnv().toArray()).length;
      clock.advance(30_000);
      const again = await fx.service.jobs.submit({ name: "cached", steps: [{ b: 2, a: 1 }] }, { cacheMaxAge: 600 });
      expect(again.job_id).toBe(first.job_id);
      expect(again.job_status).toBe("RUNNING");
      expect((await fx.service.jobs.listExecEnv().toArray()).length).toBe(before);

      const different = await fx.user.jobs.submit({ ...config, name: "other" }, { cacheMaxAge: 600 });
      expect(different.job_id).not.toBe(first.job_id);
      const noCache = await fx.user.jobs.submit(config);
      expect(noCache.job_id).not.toBe(first.job_id);
      clock.advance(60_000);
      const expired = await fx.user.jobs.submit(config, { cacheMaxAge: 10 });
      expect([first.job_id, noCache.job_id]).not.toContain(expired.job_id);
    });

    it("does not reuse a canceled job", async () => {
      const config = cfg();
      const first = await fx.user.jobs.submit(config, { cacheMaxAge: 600 });
      await fx.user.jobs.cancel(first.job_id);
      const again = await fx.user.jobs.submit(config, { cacheMaxAge: 600 });
      expect(again.job_id).not.toBe(first.job_id);
      expect(again.job_status).toBe("PENDING");
    });
  });

  describe("listings", () => {
    it("GIVEN jobs of two users and a service account THEN /job/self lists only the user's, newest first, across pages", async () => {
      const mine = [];
      for (let i = 0; i < 3; i++) {
        mine.push((await fx.basic.jobs.submit(cfg())).job_id);
        clock.advance(1000);
      }
      await fx.user.jobs.submit(cfg());
      const listed = await fx.basic.jobs.listSelf({ pageSize: 2 }).toArray();
      expect(listed.map((j) => j.id)).toEqual([...mine].reverse());
      expect(listed.every((j) => j.user_id === "user-demo-2")).toBe(true);
      const pages = [];
      for await (const p of fx.basic.jobs.listSelf({ pageSize: 2 }).pages()) pages.push(p.length);
      expect(pages).toEqual([2, 1]);
    });

    it("GIVEN a service token WHEN listing /job/self THEN 403", async () => {
      const e = await failure(fx.service.jobs.listSelf().toArray());
      expect(e).toMatchObject({
        status: 403,
        code: "forbidden",
        detail: "This endpoint acts on a user; a service account token cannot be used",
      });
    });

    it("lists every job of the environment newest first, including service-account jobs, and none of another team's", async () => {
      clock.advance(1000);
      const s = await fx.service.jobs.submit(cfg());
      const env = await fx.user.jobs.listExecEnv().toArray();
      expect(env[0]).toMatchObject({
        id: s.job_id,
        service_account_id: expect.any(String),
        user_id: null,
        has_config: true,
      });
      const dates = env.map((j) => j.created_at as string);
      expect(dates).toEqual([...dates].sort().reverse());
      expect(await fx.other.jobs.listExecEnv().toArray()).toEqual([]);
    });
  });

  describe("config", () => {
    it("returns the submitted config inline", async () => {
      const config = cfg({ nested: { deep: [1, 2, { x: null }] } });
      const run = await fx.user.jobs.submit(config);
      expect(await fx.service.jobs.getConfig(run.job_id)).toEqual(config);
    });

    it("follows the redirect to cloud storage for a large config", async () => {
      const config = cfg({ blob: "x".repeat(300 * 1024) });
      const run = await fx.user.jobs.submit(config);
      const raw = await fx.user.transport.send("GET /job/by-id/{job_id}/config", {
        params: { job_id: run.job_id },
        okStatuses: [307],
      });
      expect(raw.status).toBe(307);
      expect(raw.headers.location).toMatch(/\/_emulator\/job-config\//);
      expect(await fx.user.jobs.getConfig(run.job_id)).toEqual(config);
    });

    it("GIVEN a job without a stored config THEN 400 says so", async () => {
      const run = await fx.user.jobs.submit(cfg());
      fx.emu.env.store.run("UPDATE jobs SET config = NULL WHERE id = ?", run.job_id);
      const e = await failure(fx.user.jobs.getConfig(run.job_id));
      expect(e).toMatchObject({
        status: 400,
        code: "bad_request",
        detail: `Job ${run.job_id} has no stored configuration`,
      });
    });
  });

  describe("errors", () => {
    it("refuses a missing or non-object config, and a malformed emulator hint, with 422 and loc", async () => {
      const missing = await failure(fx.user.jobs.submit(undefined as never));
      expect(missing).toMatchObject({
        status: 422,
        detail: [{ loc: ["body", "config"], msg: "Field required", type: "missing" }],
      });
      const wrong = await failure(fx.user.jobs.submit([1] as never));
      expect(wrong).toMatchObject({ status: 422, detail: [{ loc: ["body", "config"] }] });
      const hint = await failure(fx.user.jobs.submit({ emulator: { duration_s: -1 } }));
      expect(hint).toMatchObject({
        status: 422,
        detail: [{ loc: ["body", "config", "emulator", "duration_s"], type: "value_error" }],
      });
      const disk = await failure(fx.user.jobs.submit(cfg(), { diskSizeGb: 0 }));
      expect(disk).toMatchObject({
        status: 422,
        detail: [{ loc: ["query", "disk_size_gb"], type: "greater_than_equal" }],
      });
    });

    it("GIVEN another team's job THEN every job endpoint answers 404 and the job is untouched", async () => {
      const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 600 } }));
      const detail = `Job ${run.job_id} not found in this execution environment`;
      const j = fx.other.jobs;
      for (const p of [
        j.get(run.job_id),
        j.cancel(run.job_id),
        j.results(run.job_id),
        j.getRecord(run.job_id),
        j.getConfig(run.job_id),
        j.events(run.job_id),
        j.logs(run.job_id),
        j.tail(run.job_id),
        j.waitForTerminal(run.job_id),
      ]) {
        expect(await failure(p)).toMatchObject({ status: 404, code: "not_found", detail });
      }
      expect((await fx.user.jobs.get(run.job_id)).job_status).toBe("PENDING");
      expect(await failure(fx.user.jobs.getRecord("no-such-job"))).toMatchObject({
        status: 404,
        detail: "Job no-such-job not found in this execution environment",
      });
    });

    it("GIVEN a region other than the job's WHEN reading logs THEN 404 names both regions", async () => {
      const run = await fx.user.jobs.submit(cfg(), { region: "us-east-1" });
      const detail = `No logs for job ${run.job_id} in region eu-central-1; the job runs in us-east-1`;
      expect(await failure(fx.user.jobs.logs(run.job_id, { region: "eu-central-1" }))).toMatchObject({
        status: 404,
        detail,
      });
      expect(await failure(fx.user.jobs.tail(run.job_id, { region: "eu-central-1" }))).toMatchObject({
        status: 404,
        detail,
      });
      expect((await fx.user.jobs.tail(run.job_id, { region: "us-east-1", limit: 1 })).length).toBe(1);
    });

    it("GIVEN no credentials THEN submit and status answer 401", async () => {
      expect(await failure(fx.anon.jobs.submit(cfg()))).toMatchObject({ status: 401, detail: "Not authenticated" });
      expect(await failure(fx.anon.jobs.get("x"))).toMatchObject({ status: 401, detail: "Not authenticated" });
    });
  });

  describe("waitForTerminal", () => {
    it("polls until the job reaches a terminal status", async () => {
      const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 30 } }));
      const timer = setTimeout(() => clock.advance(60_000), 50);
      const done = await fx.user.jobs.waitForTerminal(run.job_id, { pollMs: 10, timeoutMs: 5000 });
      clearTimeout(timer);
      expect(done).toMatchObject({ job_id: run.job_id, job_status: "SUCCEEDED" });
    });

    it("gives up with a timeout error when the job does not finish in time", async () => {
      const run = await fx.user.jobs.submit(cfg({ emulator: { duration_s: 30 } }));
      const e = await failure(fx.user.jobs.waitForTerminal(run.job_id, { pollMs: 10, timeoutMs: 60 }));
      expect(e).toMatchObject({ code: "timeout", path: `/run/by-id/${run.job_id}` });
      expect(e.message).toContain("last status PENDING");
    });
  });
});
