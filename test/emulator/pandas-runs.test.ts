/**
 * UDFs that return real pandas DataFrames, run by the emulator's runner in an interpreter that has
 * pandas (Debian's python3-pandas, which `.ci/run` installs): the runner itself needs only the
 * standard library and serializes a DataFrame as records (json) or without its index (csv).
 * Without such an interpreter on this machine the tests are skipped, and their title says so.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runUdf } from "../../src/emulator/udf-runner";
import { useEmulator } from "../helpers/emulator";

/** The first of `python3` and Debian's own `/usr/bin/python3` that imports pandas. */
const pandasPython = ["python3", "/usr/bin/python3"].find(
  (p) => spawnSync(p, ["-c", "import pandas"], { stdio: "ignore" }).status === 0,
);
const title = pandasPython
  ? `with pandas (${pandasPython})`
  : "with pandas: SKIPPED, no python3 here imports pandas (apt-get install python3-pandas)";

const FRAME = [
  "@fused.udf",
  'def udf(city: str = "nyc"):',
  "    import pandas as pd",
  '    return pd.DataFrame({"city": [city, "sf"], "n": [1, 2], "at": pd.to_datetime(["2026-01-02", "2026-03-04"])})',
  "",
].join("\n");

describe.skipIf(!pandasPython)(`UDF runs ${title}`, () => {
  const fx = useEmulator({ python: pandasPython });

  it("GIVEN a UDF returning a DataFrame WHEN run as json THEN the value is its records, dates in ISO 8601", async () => {
    const r = await runUdf({
      body: { code: FRAME, headers: [], name: "frame" },
      parameters: { city: "la" },
      python: pandasPython,
    });
    expect(r).toMatchObject({
      ok: true,
      contentType: "application/json",
      value: [
        { city: "la", n: 1, at: "2026-01-02T00:00:00.000" },
        { city: "sf", n: 2, at: "2026-03-04T00:00:00.000" },
      ],
    });
  });

  it("WHEN run as csv THEN the text is the table without pandas' index column", async () => {
    const r = await runUdf({ body: { code: FRAME, headers: [], name: "frame" }, format: "csv", python: pandasPython });
    expect(r).toMatchObject({ ok: true, outputText: "city,n,at\nnyc,1,2026-01-02\nsf,2,2026-03-04\n" });
  });

  it("GIVEN the emulator over HTTP WHEN a real-time run returns a DataFrame THEN json and csv answers carry the table", async () => {
    const run = (format: string) =>
      fx.user.realtime.runUdf(fx.emu.clientId!, {
        stepConfig: { name: "frame", entrypoint: "udf", code: FRAME, headers: [], parameters: { city: "austin" } },
        format,
      });
    const asJson = await run("json");
    expect(asJson.contentType).toBe("application/json");
    expect(JSON.parse(asJson.body.toString("utf8"))).toEqual([
      { city: "austin", n: 1, at: "2026-01-02T00:00:00.000" },
      { city: "sf", n: 2, at: "2026-03-04T00:00:00.000" },
    ]);
    const asCsv = await run("csv");
    expect(asCsv.contentType).toBe("text/csv; charset=utf-8");
    expect(asCsv.body.toString("utf8")).toBe("city,n,at\naustin,1,2026-01-02\nsf,2,2026-03-04\n");
  });
});
