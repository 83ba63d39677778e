/**
 * Real-time runs (spec 4.4) over HTTP with the project's client: UDF code runs for real in Python,
 * results are cached per code, parameters and tile, the invalidation endpoints change what the next
 * run returns, and the usage counters (2.8) count every run.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client";
import type { RunResult } from "../../src/api/realtime";
import { startEmulator } from "../../src/emulator/emulator";
import { ManualClock } from "../../src/emulator/clock";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-03-10T08:00:00Z");
const fx = useEmulator({ clock });
const CLIENT = "rt-demo-primary";

const text = (r: RunResult) => r.body.toString("utf8");
const value = (r: RunResult) => JSON.parse(text(r));

/** A UDF returning a fresh random id on every real run, so a cached answer is recognisable. */
const RANDOM = (extra = "") =>
  `@fused.udf(cache_max_age="10m")\ndef udf(city: str = "nyc"):\n    import uuid\n    ${extra}return {"city": city, "run": uuid.uuid4().hex}\n`;

let seq = 0;
async function savedUdf(code: string) {
  const body = {
    name: `saved_${++seq}`,
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    headers: [],
    metadata: {},
    parameters: {},
  };
  return (await fx.user.udfs.create({ slug: body.name, udf_body: JSON.stringify(body) })).id;
}

describe("POST /realtime/{client_id}/api/v1/run/udf", () => {
  it("GIVEN a body with a helper module WHEN run THEN its value comes back, with stdout in X-Svc-Metadata and a request id", async () => {
    const r = await fx.user.realtime.runUdf(CLIENT, {
      stepConfig: {
        name: "listing_stats",
        entrypoint: "udf",
        code: '@fused.udf(cache_max_age="1h")\ndef udf(city: str = "nyc", rooms: int = 1):\n    import stats\n    print("computing", city)\n    return stats.summary(city, rooms)\n',
        headers: [
          {
            module_name: "stats",
            source_file: "stats.py",
            source_code: "def summary(city, rooms):\n    return {'city': city, 'rooms': rooms, 'double': rooms * 2}\n",
          },
        ],
        parameters: { city: "sf", rooms: 3 },
      },
      format: "json",
    });
    expect(value(r)).toEqual({ city: "sf", rooms: 3, double: 6 });
    expect(r.contentType).toBe("application/json");
    expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.metadata).toMatchObject({ stdout: "computing sf\n", stderr: "", cached: false });
    const logDir = r.metadata!.log_directory as string;
    expect(readFileSync(join(logDir, "stdout.log"), "utf8")).toBe("computing sf\n");
  });

  it("GIVEN a saved UDF referenced by id WHEN run with parameters THEN the saved code runs with them", async () => {
    const id = await savedUdf("@fused.udf\ndef udf(n: int = 1):\n    return [n, n + 1]\n");
    const r = await fx.service.realtime.runUdf(CLIENT, {
      stepConfig: { udf_id: id, parameters: { n: 41 } },
      format: "json",
    });
    expect(value(r)).toEqual([41, 42]);
    const other = await failure(
      fx.other.realtime.runUdf("rt-other-primary", { stepConfig: { udf_id: id }, format: "json" }),
    );
    expect(other).toMatchObject({ status: 404, detail: "UDF not found" });
  });

  it("GIVEN format csv THEN a list of objects comes back as CSV", async () => {
    const r = await fx.user.realtime.runUdf(CLIENT, {
      stepConfig: { code: "@fused.udf\ndef udf():\n    return [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]\n" },
      format: "csv",
    });
    expect(r.contentType).toBe("text/csv; charset=utf-8");
    expect(text(r)).toBe("a,b\n1,x\n2,y\n");
  });

  it("GIVEN a UDF that raises WHEN run THEN 422 with the Python traceback in the detail", async () => {
    const e = await failure(
      fx.user.realtime.runUdf(CLIENT, {
        stepConfig: { name: "broken", code: "@fused.udf\ndef udf(city: str = 'nyc'):\n    raise KeyError(city)\n" },
        format: "json",
      }),
    );
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toContain("UDF execution failed: KeyError: 'nyc'");
    expect(e.detail).toContain('File "broken.py", line 3, in udf');
    expect(e.detail).toContain("raise KeyError(city)");
  });

  it("refuses a step_config that is not a UDF configuration, and an unknown format, with 422 naming the field", async () => {
    const notJson = await failure(fx.user.realtime.runUdf(CLIENT, { stepConfig: "{not json", format: "json" }));
    expect(notJson.detail[0]).toMatchObject({
      loc: ["body", "step_config"],
      msg: expect.stringContaining("JSON-serialized UDF configuration"),
    });
    const noCode = await failure(
      fx.user.realtime.runUdf(CLIENT, { stepConfig: { udf: { name: "x" } }, format: "json" }),
    );
    expect(noCode.detail).toEqual([
      { loc: ["body", "step_config", "udf"], msg: 'the UDF body has no "code" string', type: "value_error" },
    ]);
    const png = await failure(fx.user.realtime.runUdf(CLIENT, { stepConfig: { code: "" }, format: "png" }));
    expect(png.detail[0]).toMatchObject({ loc: ["body", "format"], msg: "Input should be 'json' or 'csv'" });
  });
});

describe("tile runs", () => {
  it("GIVEN a tile run THEN the UDF sees its tile's bounds and coordinates, and a bad coordinate is 422", async () => {
    const code =
      "@fused.udf\ndef udf(bounds: fused.types.Bounds = None, z: int = 0, x: int = 0, y: int = 0):\n    return {'zxy': [z, x, y], 'bounds': [round(b, 4) for b in bounds]}\n";
    const r = await fx.user.realtime.runTile(CLIENT, { z: 2, x: 1, y: 1 }, { stepConfig: { code }, format: "json" });
    expect(value(r)).toEqual({ zxy: [2, 1, 1], bounds: [-90, 0, 0, 66.5133] });
    const e = await failure(
      fx.user.realtime.runTile(CLIENT, { z: 2, x: 4, y: 0 }, { stepConfig: { code }, format: "json" }),
    );
    expect(e.detail).toEqual([
      { loc: ["path", "x"], msg: "x must be a whole number from 0 to 3", type: "value_error" },
    ]);
  });
});

describe("caching", () => {
  it("GIVEN a run WHEN repeated THEN the cached result is served, until cache_max_age or the decorator's age says otherwise", async () => {
    const stepConfig = { code: RANDOM(), parameters: { city: "rome" } };
    const first = await fx.user.realtime.runUdf(CLIENT, { stepConfig, format: "json" });
    const again = await fx.user.realtime.runUdf(CLIENT, { stepConfig, format: "json" });
    expect(value(again)).toEqual(value(first));
    expect(again.metadata).toMatchObject({ cached: true, cached_at: "2026-03-10T08:00:00.000Z" });
    // Other parameters are another result.
    const paris = await fx.user.realtime.runUdf(CLIENT, {
      stepConfig: { ...stepConfig, parameters: { city: "paris" } },
      format: "json",
    });
    expect(value(paris).city).toBe("paris");
    // The request may ask for younger results only.
    clock.advance(5_000);
    const younger = await fx.user.realtime.runUdf(CLIENT, { stepConfig, format: "json", cacheMaxAge: 2 });
    expect(value(younger).run).not.toBe(value(first).run);
    // The decorator says 10 minutes: after that the result is computed again.
    clock.advance(9 * 60_000);
    expect(value(await fx.user.realtime.runUdf(CLIENT, { stepConfig, format: "json" })).run).toBe(value(younger).run);
    clock.advance(2 * 60_000);
    expect(value(await fx.user.realtime.runUdf(CLIENT, { stepConfig, format: "json" })).run).not.toBe(
      value(younger).run,
    );
  });

  it("GIVEN cached results of a saved UDF WHEN its cache is invalidated THEN the next run is fresh", async () => {
    const id = await savedUdf(RANDOM());
    const run = () => fx.user.realtime.runUdf(CLIENT, { stepConfig: { udf_id: id }, format: "json" }).then(value);
    const before = await run();
    expect(await run()).toEqual(before);
    await fx.user.realtime.deleteCache(CLIENT, id);
    expect((await run()).run).not.toBe(before.run);
  });

  it("GIVEN cached tiles WHEN one tile is invalidated THEN only that tile is computed again", async () => {
    const id = await savedUdf(
      "@fused.udf\ndef udf(x: int = 0, y: int = 0, z: int = 0):\n    import uuid\n    return {'tile': [z, x, y], 'run': uuid.uuid4().hex}\n",
    );
    const tile = (x: number) =>
      fx.user.realtime.runTile(CLIENT, { z: 3, x, y: 2 }, { stepConfig: { udf_id: id }, format: "json" }).then(value);
    const a = await tile(1);
    const b = await tile(2);
    expect(a.tile).toEqual([3, 1, 2]);
    expect(await tile(1)).toEqual(a);
    await fx.user.realtime.deleteCache(CLIENT, id, { z: 3, x: 1, y: 2 });
    expect((await tile(1)).run).not.toBe(a.run);
    expect(await tile(2)).toEqual(b);
    expect(
      await fx.user.realtime.batchDeleteCache(CLIENT, id, [
        { z: 3, x: 2, y: 2 },
        { z: 3, x: 7, y: 7 },
      ]),
    ).toEqual({ udf_id: id, tiles_requested: 2, objects_deleted: 1 });
    expect((await tile(2)).run).not.toBe(b.run);
  });
});

describe("usage counters (2.8)", () => {
  it("GIVEN runs on two days THEN every run is counted (cached ones too) and date_prefix selects the day", async () => {
    clock.set("2026-04-01T10:00:00Z");
    const before = await fx.user.environment.usage();
    const code = RANDOM();
    await fx.user.realtime.runUdf(CLIENT, { stepConfig: { code }, format: "json" });
    await fx.user.realtime.runUdf(CLIENT, { stepConfig: { code }, format: "json" });
    await failure(
      fx.user.realtime.runUdf(CLIENT, { stepConfig: { code: "@fused.udf\ndef udf():\n    1 / 0\n" }, format: "json" }),
    );
    clock.set("2026-04-02T10:00:00Z");
    await fx.user.realtime.runUdf(CLIENT, { stepConfig: { code, parameters: { city: "oslo" } }, format: "json" });

    const day1 = await fx.user.environment.usage("2026-04-01");
    expect(day1).toMatchObject({
      calls_total: 3,
      calls_success: 2,
      calls_error: 1,
      calls_cached: 1,
      date_prefix: "2026-04-01",
    });
    expect(day1.calls_total_time).toBe(day1.calls_success_time + day1.calls_error_time);
    expect(day1.calls_error_time).toBeGreaterThan(0);
    expect(await fx.user.environment.usage("2026-04-02")).toMatchObject({
      calls_total: 1,
      calls_success: 1,
      calls_cached: 0,
    });
    const after = await fx.user.environment.usage();
    expect(after.calls_total - before.calls_total).toBe(4);
    expect(after.calls_cached - before.calls_cached).toBe(1);
    expect((await fx.other.environment.usage("2026-04")).calls_total).toBe(0);
  });
});

describe("run time limit", () => {
  // Python must start and write its pid well within the limit, on a loaded machine too.
  const limited = useEmulator({ runTimeLimitMs: 4000 });

  it("GIVEN a run over the limit THEN 422 says so and the Python process is gone", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "svc-run-")), "pid");
    const code =
      "@fused.udf\ndef udf(pid_file: str = ''):\n    import os, time\n    open(pid_file, 'w').write(str(os.getpid()))\n    time.sleep(60)\n";
    const e = await failure(
      limited.user.realtime.runUdf(CLIENT, { stepConfig: { code, parameters: { pid_file: pidFile } }, format: "json" }),
    );
    expect(e).toMatchObject({ status: 422, detail: "The UDF run exceeded the time limit of 4 s and was stopped" });
    const pid = Number(readFileSync(pidFile, "utf8"));
    await ended(pid);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(await limited.user.environment.usage()).toMatchObject({ calls_total: 1, calls_error: 1 });
  });
});

describe("how long a run's answer is awaited", () => {
  it("GIVEN a client whose requests time out after 400 ms THEN a 1.2 s run still answers, and a run's own timeoutMs applies", async () => {
    const client = createClient({
      baseUrl: fx.emu.baseUrl,
      token: fx.emu.tokens.user_token,
      timeoutMs: 400,
      retry: { maxAttempts: 1 },
    });
    try {
      const code =
        '@fused.udf\ndef udf(tag: str = ""):\n    import time\n    time.sleep(1.2)\n    return {"tag": tag}\n';
      const slow = await client.realtime.runUdf(CLIENT, {
        stepConfig: { code, parameters: { tag: "awaited" } },
        format: "json",
      });
      expect(value(slow)).toEqual({ tag: "awaited" });
      const cut = await failure(
        client.realtime.runUdf(CLIENT, {
          stepConfig: { code, parameters: { tag: "cut" } },
          format: "json",
          timeoutMs: 300,
        }),
      );
      expect(cut).toMatchObject({
        code: "timeout",
        message: expect.stringMatching(/no answer from http:\/\/127\.0\.0\.1:\d+ within 300 ms/),
      });
    } finally {
      await client.close();
    }
  });
});

describe("closing the emulator", () => {
  it("GIVEN a run in progress WHEN the emulator closes THEN its Python process is killed", async () => {
    const emu = await startEmulator();
    const client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token, retry: { maxAttempts: 1 } });
    const pidFile = join(mkdtempSync(join(tmpdir(), "svc-run-")), "pid");
    const code =
      "@fused.udf\ndef udf(pid_file: str = ''):\n    import os, time\n    open(pid_file, 'w').write(str(os.getpid()))\n    time.sleep(60)\n";
    const pending = client.realtime
      .runUdf(CLIENT, { stepConfig: { code, parameters: { pid_file: pidFile } }, format: "json" })
      .catch((e) => e);
    const deadline = Date.now() + 20_000;
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "") {
      if (Date.now() > deadline) throw new Error("the UDF never started");
      await new Promise((r) => setTimeout(r, 50));
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    await emu.close();
    await pending;
    await client.close();
    await ended(pid);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});

describe("without Python", () => {
  const noPython = useEmulator({ python: "/nonexistent/bin/python3" });

  it("GIVEN no interpreter THEN runs answer 501 saying so, and the rest of the API works", async () => {
    const e = await failure(
      noPython.user.realtime.runUdf(CLIENT, {
        stepConfig: { code: "@fused.udf\ndef udf():\n    return 1\n" },
        format: "json",
      }),
    );
    expect(e).toMatchObject({ status: 501 });
    expect(e.detail).toBe(
      "UDF runs are not available: The Python interpreter was not found; UDF runs need python3 (choose one with --python PATH)",
    );
    expect((await noPython.user.realtime.listInstances()).length).toBeGreaterThan(0);
    expect((await noPython.user.environment.usage()).calls_total).toBe(0);
  });
});

/**
 * Waits until process `pid` is gone (killed and reaped), for at most 10 s: the check after it fails
 * when it is still there. Not a timing assertion: a killed process is gone in milliseconds.
 */
async function ended(pid: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
