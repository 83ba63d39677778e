/**
 * Batch jobs run UDFs for real (python3 subprocess): scheduled and hand-started cronjob runs and
 * `POST /run` configs naming a UDF go through states on the emulator clock, leave the UDF's output
 * in their logs and results, and fail with the traceback when the UDF raises.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, type SvcClient } from "../../src/api/client";
import { ManualClock } from "../../src/emulator/clock";
import { startEmulator } from "../../src/emulator/emulator";
import { failure, useEmulator } from "../helpers/emulator";

// 2026-01-05 is a Monday.
const clock = new ManualClock("2026-01-05T05:58:00Z");
const fx = useEmulator({ clock, runTimeLimitMs: 3000 });

const HELPER = "def shout(s):\n    return s.upper() + '!'\n";
const GREET = `@fused.udf(cache_max_age="1h")
def udf(name: str = "world", times: int = 1):
    import loud
    import sys
    print(f"greeting {name}")
    print("careful", file=sys.stderr)
    return {"greeting": loud.shout(name), "times": times}
`;
const body = (code: string, headers: object[] = []) =>
  JSON.stringify({
    name: "greet",
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    headers,
    metadata: {},
    parameters: {},
  });

async function newUdf(client: SvcClient, slug: string, code: string, headers: object[] = []) {
  const canvas = await client.canvases.create({ name: `batch_${slug}` });
  return client.udfs.create({ slug, udf_body: body(code, headers), collection_id: canvas.id });
}

/**
 * Reads the job until it is terminal, moving the clock along: the job ends its real run time after
 * it started, on the emulator clock, and only once the UDF process has ended.
 */
async function settle(jobId: string) {
  for (let i = 0; i < 400; i++) {
    const j = await fx.service.jobs.get(jobId);
    if (["SUCCEEDED", "FAILED", "CANCELED"].includes(j.job_status ?? "")) return j;
    await new Promise((r) => setTimeout(r, 25));
    clock.advance(100);
  }
  throw new Error(`job ${jobId} did not finish`);
}

const messages = async (jobId: string) => (await fx.service.jobs.logs(jobId)).map((l) => l.message);

describe("batch jobs that run a UDF", () => {
  it("GIVEN a cronjob WHEN its minute passes THEN the scheduled run executes the UDF: status history, logs from stdout and stderr, the output in the results", async () => {
    const udf = await newUdf(fx.user, "greet", GREET, [
      { module_name: "loud", source_file: "loud.py", source_code: HELPER },
    ]);
    const cron = await fx.user.cronjobs.create({
      name: "greeter",
      enabled: true,
      minute: [0],
      hour: [6],
      day_of_month: [],
      month: [],
      day_of_week: [],
      udf: udf.id,
      udf_args: { name: "ada", times: "3" },
    });
    clock.set("2026-01-05T06:00:30Z");
    fx.emu.tick();
    const [run] = (await fx.service.jobs.listExecEnv().toArray()).filter((j) => j.cronjob_id === cron.id);
    expect(run).toMatchObject({ created_at: "2026-01-05T06:00:00.000Z", udf_id: udf.id });
    const done = await settle(run.id);
    expect(done.job_status).toBe("SUCCEEDED");

    const events = await fx.service.jobs.events(run.id);
    expect(events.map((e) => e.job_status)).toEqual(["PENDING", "RUNNING", "SUCCEEDED"]);
    expect(events[1].date_updated).toBe("2026-01-05T06:00:01.000Z");
    // It ended when the process did: its real run time after it started, on the emulator clock.
    const ended = Date.parse(events[2].date_updated) - Date.parse(events[1].date_updated);
    expect(ended).toBeGreaterThan(0);
    expect(ended).toBeLessThan(3000);

    const log = await messages(run.id);
    expect(log).toContain("greeting ada");
    expect(log).toContain("careful");
    expect(log.at(-1)).toBe("Job succeeded");

    const results = await fx.service.jobs.results(run.id);
    expect(results.map((r) => r.file_name)).toEqual(["_SUCCESS", "output.json"]);
    const output = results.find((r) => r.file_name === "output.json")!;
    expect(JSON.parse((await fx.user.files.download(output.url)).toString("utf8"))).toEqual({
      greeting: "ADA!",
      times: 3,
    });
    await fx.user.cronjobs.delete(cron.id);
  });

  it("WHEN a cronjob is run by hand THEN the UDF as saved now runs", async () => {
    const udf = await newUdf(fx.user, "hand", "@fused.udf\ndef udf():\n    return 'v1'\n");
    const cron = await fx.user.cronjobs.create({
      name: "by-hand",
      enabled: false,
      minute: [0],
      hour: [],
      day_of_month: [],
      month: [],
      day_of_week: [],
      udf: udf.id,
    });
    await fx.user.udfs.update(udf.id, {
      udf_body: body("@fused.udf\ndef udf():\n    print('second version')\n    return 'v2'\n"),
    });
    const { run } = await fx.user.cronjobs.run(cron.id);
    clock.advance(2000);
    expect((await settle(run.job_id)).job_status).toBe("SUCCEEDED");
    expect(await messages(run.job_id)).toContain("second version");
    await fx.user.cronjobs.delete(cron.id);
  });

  it("GIVEN POST /run with a saved UDF's id and arguments THEN the job runs it and records the UDF on the job", async () => {
    const udf = await newUdf(
      fx.user,
      "sum",
      "@fused.udf\ndef udf(a: int = 1, b: int = 2):\n    return [a, b, a + b]\n",
    );
    const run = await fx.service.jobs.submit({ udf_id: udf.id, udf_args: { a: 20, b: 22 } });
    expect(run.job_status).toBe("PENDING");
    clock.advance(1500);
    expect((await settle(run.job_id)).job_status).toBe("SUCCEEDED");
    expect(await fx.service.jobs.getRecord(run.job_id)).toMatchObject({
      udf_id: udf.id,
      udf_args: { a: 20, b: 22 },
      has_config: true,
    });
    const out = (await fx.service.jobs.results(run.job_id)).find((r) => r.file_name === "output.json")!;
    expect(JSON.parse((await fx.user.files.download(out.url)).toString("utf8"))).toEqual([20, 22, 42]);
  });

  it("GIVEN an inline UDF that raises THEN the job FAILS with the exception as its last status and the traceback in its logs", async () => {
    const code =
      "@fused.udf\ndef udf(reason: str = 'x'):\n    helper(reason)\n\ndef helper(reason):\n    raise ValueError(f'no rows for {reason}')\n";
    const run = await fx.user.jobs.submit({
      udf: { name: "broken", code, entrypoint: "udf", headers: [] },
      udf_args: { reason: "nyc" },
    });
    clock.advance(1500);
    const done = await settle(run.job_id);
    expect(done.job_status).toBe("FAILED");
    const events = await fx.service.jobs.events(run.job_id);
    expect(events.at(-1)?.job_status_description).toContain("ValueError: no rows for nyc");
    const log = (await messages(run.job_id)).join("\n");
    expect(log).toContain("Traceback");
    expect(log).toContain("in helper");
    expect(log).toContain("ValueError: no rows for nyc");
    expect(log).toContain("Job failed");
    expect(await fx.service.jobs.results(run.job_id)).toEqual([]);
  });

  it("GIVEN a UDF over the run time limit THEN its process is killed and the job fails saying so", async () => {
    const run = await fx.user.jobs.submit({
      udf: JSON.stringify({ code: "import time\n@fused.udf\ndef udf():\n    time.sleep(30)\n" }),
    });
    clock.advance(1500);
    const done = await settle(run.job_id);
    expect(done.job_status).toBe("FAILED");
    expect((await fx.service.jobs.events(run.job_id)).at(-1)?.job_status_description).toContain("time limit of 3 s");
  });

  it("GIVEN a running UDF WHEN the job is canceled THEN its process is killed and the job stays CANCELED", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "svc-cancel-")), "finished");
    const code =
      "import time\n@fused.udf\ndef udf(path: str = ''):\n    time.sleep(1)\n    open(path, 'w').write('done')\n    return 1\n";
    const run = await fx.user.jobs.submit({ udf: { code }, udf_args: { path: marker } });
    clock.advance(1500);
    expect((await fx.service.jobs.get(run.job_id)).job_status).toBe("RUNNING");
    expect((await fx.service.jobs.cancel(run.job_id)).job_status).toBe("CANCELED");
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(marker)).toBe(false);
    clock.advance(60_000);
    expect((await fx.service.jobs.get(run.job_id)).job_status).toBe("CANCELED");
    expect(await fx.service.jobs.results(run.job_id)).toEqual([]);
  });

  it("refuses a config with an unknown UDF id (404) or a UDF body without code (422), starting nothing", async () => {
    const before = (await fx.service.jobs.listExecEnv().toArray()).length;
    expect(await failure(fx.user.jobs.submit({ udf_id: "no-such-udf" }))).toMatchObject({
      status: 404,
      detail: "UDF no-such-udf not found in this execution environment",
    });
    expect(await failure(fx.user.jobs.submit({ udf: { entrypoint: "udf" } }))).toMatchObject({
      status: 422,
      detail: [{ loc: ["body", "config", "udf"], msg: "the UDF body has no code to run", type: "value_error" }],
    });
    expect(await failure(fx.user.jobs.submit({ udf: { code: "x" }, udf_args: [1] }))).toMatchObject({
      status: 422,
      detail: [{ loc: ["body", "config", "udf_args"] }],
    });
    expect((await fx.service.jobs.listExecEnv().toArray()).length).toBe(before);
  });
});

describe("batch UDF runs without python3", () => {
  const noPython = useEmulator({ clock: new ManualClock("2026-01-05T05:58:00Z"), python: "/nonexistent/python3" });

  it("THEN the job fails with a message saying python3 is needed, and the rest of the job API works", async () => {
    const run = await noPython.user.jobs.submit({ udf: { code: "@fused.udf\ndef udf():\n    return 1\n" } });
    noPython.emu.env.clock instanceof ManualClock && noPython.emu.env.clock.advance(1500);
    let j = await noPython.service.jobs.get(run.job_id);
    for (let i = 0; i < 200 && j.job_status !== "FAILED"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      j = await noPython.service.jobs.get(run.job_id);
    }
    expect(j.job_status).toBe("FAILED");
    const description = (await noPython.service.jobs.events(run.job_id)).at(-1)?.job_status_description;
    expect(description).toMatch(/Python interpreter was not found; UDF runs need python3/);
    expect((await noPython.service.jobs.logs(run.job_id)).map((l) => l.message)).toContain(`ERROR: ${description}`);
  });
});

describe("a batch UDF run when the emulator restarts", () => {
  it("GIVEN a job whose UDF was running WHEN the emulator restarts on its data dir THEN the job fails saying the run was lost", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-restart-"));
    const clock2 = new ManualClock("2026-01-05T05:58:00Z");
    const first = await startEmulator({ dataDir, clock: clock2 });
    const client = createClient({ baseUrl: first.baseUrl, token: first.tokens.user_token });
    const run = await client.jobs.submit({
      udf: { code: "import time\n@fused.udf\ndef udf():\n    time.sleep(1)\n    return 1\n" },
    });
    clock2.advance(1500);
    expect((await client.jobs.get(run.job_id)).job_status).toBe("RUNNING");
    await client.close();
    await first.close();

    const second = await startEmulator({ dataDir, clock: clock2 });
    const again = createClient({ baseUrl: second.baseUrl, token: second.tokens.user_token });
    try {
      expect((await again.jobs.get(run.job_id)).job_status).toBe("FAILED");
      expect((await again.jobs.events(run.job_id)).at(-1)?.job_status_description).toBe(
        "The emulator stopped while the UDF ran; the run was lost",
      );
    } finally {
      await again.close();
      await second.close();
    }
  });
});
