/**
 * `svc-iac run ADDRESS`: a deployed UDF run once on the target's real-time instance of the
 * emulator (stdlib-only UDFs in python3), its result as a table, JSON or CSV, its time and
 * whether it came from the cache; a UDF error gives the platform's message and exit 1.
 */
import { runCaptured } from "../helpers/cli-run";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { runRunCommand } from "../../src/cli/run-command";
import { CliUsageError } from "../../src/cli/usage";
import { applyCommand } from "../../src/reconcile/commands";
import { useEmulator } from "../helpers/emulator";
import { builtCli, copyRepo } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

const exec = promisify(execFile);
const SECRET = "smoke-secret-value-5d1f0b";

const run = (argv: string[], env: Record<string, string>) => runCaptured(runRunCommand, argv, env);

describe("GIVEN the udf-tests repository applied, with a UDF returning rows and one raising", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const printed: string[] = [];
  const cli = async (...argv: string[]) => {
    const r = await run(argv, env);
    printed.push(r.stdout, r.stderr);
    return r;
  };

  beforeAll(async () => {
    dir = copyRepo("udf-tests");
    writeFileSync(
      join(dir, "canvases", "checks", "rows.py"),
      [
        "@fused.udf",
        "def udf(n: int = 2):",
        '    return [{"city": "Zürich", "n": i, "ok": i % 2 == 0} for i in range(n)]',
        "",
      ].join("\n"),
    );
    env = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
      SMOKE_KEY: SECRET,
    };
    const applied = await applyCommand({ dir, env });
    expect(applied.exitCode).toBe(0);
  });

  it("WHEN run prints rows THEN they are a table with a header rule, numbers right-aligned, then the time and that it was computed now", async () => {
    const r = await cli("udf.checks/rows", dir, "--param", "n=3");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^city {4}n {2}ok\n------ {2}- {2}-----\nZürich {2}0 {2}true\nZürich {2}1 {2}false\nZürich {2}2 {2}true\n/,
    );
    expect(r.stdout).toMatch(
      /Ran udf\.checks\/rows on real-time instance rt-demo-primary in [\d,]+ ms \(computed now, not from the cache\)\.\n$/,
    );
  });

  it("WHEN the same run is made again THEN the footer says the result came from the cache", async () => {
    const r = await cli("udf.checks/rows", dir, "--param", "n=3");
    expect(r.stdout).toMatch(/\(from the cache, computed \d{4}-\d\d-\d\dT[^)]+\)\.\n$/);
  });

  it("WHEN a UDF returns one object THEN it is a field / value table", async () => {
    const r = await cli("udf.checks/greet", dir, "--param", "name=ada", "--param", "repeat=2");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("greeting  hello ada hello ada\n");
    expect(r.stdout).toContain('letters   ["a","d"]\n');
  });

  it("WHEN --format json or csv THEN stdout holds the platform's output alone, the footer goes to stderr", async () => {
    const json = await cli("udf.checks/rows", dir, "--format", "json", "--param", "n=2");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      { city: "Zürich", n: 0, ok: true },
      { city: "Zürich", n: 1, ok: false },
    ]);
    expect(json.stderr).toMatch(/^Ran udf\.checks\/rows on real-time instance rt-demo-primary in/m);
    const csv = await cli("udf.checks/rows", dir, "--format", "csv", "--param", "n=2");
    expect(csv.code).toBe(0);
    expect(csv.stdout.replace(/\r/g, "")).toBe("city,n,ok\nZürich,0,True\nZürich,1,False\n");
  });

  it("WHEN the UDF raises THEN the platform's message is printed and the exit code is 1", async () => {
    const r = await cli("udf.checks/boom", dir, "--param", "reason=no rows for Oslo");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("udf.checks/boom failed on real-time instance rt-demo-primary:\n");
    expect(r.stderr).toContain("ValueError: no rows for Oslo");
  });

  it("WHEN the UDF's error holds terminal escape sequences THEN they are shown as escapes, never sent to the terminal", async () => {
    // A window title, a screen clear and a forged line, as a hostile UDF (or its data) would raise them.
    const r = await cli("udf.checks/boom", dir, "--param", "reason=\x1b]0;pwned\x07\x1b[2J\rfake: all good");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("\\x1b]0;pwned\\x07\\x1b[2J\\rfake: all good");
    expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });

  it("WHEN the address is not a UDF of the project THEN it says so, naming the close one, exit 1", async () => {
    const r = await cli("udf.checks/greeet", dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "udf.checks/greeet is neither declared in the repository nor recorded in the inventory of smoke (default). Did you mean udf.checks/greet?",
    );
    // A UDF renamed away: the others of its canvas share only "udf.checks/" with it, which counts for nothing.
    const renamed = await cli("udf.checks/rowcount", dir);
    expect(renamed.stderr).toContain(
      "udf.checks/rowcount is neither declared in the repository nor recorded in the inventory of smoke (default). UDFs:",
    );
    expect(renamed.stderr).not.toContain("Did you mean");
    const bad = await cli("canvas.checks", dir);
    expect(bad.stderr).toContain('"canvas.checks" is not a UDF address: expected udf.<canvas>/<slug>');
  });

  it("WHEN a parameter's value is not of its type THEN the error names the parameter, once", async () => {
    const r = await cli("udf.checks/rows", dir, "--param", "n=abc");
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toBe(
      "udf.checks/rows failed on real-time instance rt-demo-primary:\nUDF execution failed: Invalid parameter: parameter 'n' is 'abc'; expected an integer, as its annotation says\n",
    );
  });

  it("WHEN a parameter or format is malformed THEN it is a usage error", async () => {
    await expect(run(["udf.checks/rows", dir, "--param", "n"], env)).rejects.toThrow(
      new CliUsageError(
        'Invalid --param "n": expected name=value, the name a Python identifier (e.g. --param city=sf).',
      ),
    );
    await expect(run(["udf.checks/rows", dir, "--param", "n=1", "--param", "n=2"], env)).rejects.toThrow(
      /--param n is given twice/,
    );
    await expect(run(["udf.checks/rows", dir, "--format", "xml"], env)).rejects.toThrow(
      'Invalid --format "xml". Expected json or csv.',
    );
  });

  it("WHEN run is called through the built CLI THEN it runs the UDF the same way", async () => {
    const { stdout } = await exec(process.execPath, [builtCli(), "run", "udf.checks/greet", dir, "--format", "json"], {
      env: { ...minimalEnv(), ...env },
    });
    printed.push(stdout);
    expect(JSON.parse(stdout)).toMatchObject({ greeting: "hello world" });
  });

  it("THEN no output holds the secret value or the token", () => {
    for (const text of printed) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(fx.emu.tokens.user_token);
    }
  });
});
