/**
 * `svc-iac run` on the embedded emulator (no SVC_BASE_URL): it runs UDFs in the python3 on PATH,
 * which may lack a package the platform has. The error then says so and how to get past it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtCli } from "../../helpers/repo";

/** A repository of one canvas whose UDF imports a module no Python has. */
function repoImportingMissingModule(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-run-embedded-")), "repo");
  mkdirSync(join(dir, "canvases", "demo"), { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), "project: demo\n");
  writeFileSync(join(dir, "canvases", "demo", "canvas.yaml"), "");
  writeFileSync(
    join(dir, "canvases", "demo", "hello.py"),
    "@fused.udf\ndef udf():\n    import no_such_module_5f2a.sub\n    return 1\n",
  );
  return dir;
}

describe("GIVEN a UDF applied on the embedded emulator that imports a module its python3 lacks", () => {
  it("WHEN it is run THEN the error names the module, says the embedded emulator's python3 lacks it, and how to install it or reach the platform", () => {
    const dir = repoImportingMissingModule();
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", SVC_CACHE_DIR: "" };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [builtCli(), ...args], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    const applied = cli("apply", "--auto-approve");
    expect(applied.status, applied.stderr).toBe(0);
    const r = cli("run", "udf.demo/hello");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("ModuleNotFoundError: No module named 'no_such_module_5f2a'");
    expect(r.stderr).toContain(
      'The embedded emulator runs UDFs in the python3 found on PATH, which has no module "no_such_module_5f2a"',
    );
    expect(r.stderr).toContain("python3 -m pip install no_such_module_5f2a");
    expect(r.stderr).toContain("set SVC_BASE_URL");
  }, 120_000);
});

describe("GIVEN a repository declaring 30 UDFs", () => {
  it("WHEN run is given an address that matches none THEN it suggests the nearest and names 10 UDFs, counting the rest, not all of them", () => {
    const dir = repoImportingMissingModule();
    for (let i = 0; i < 29; i++)
      writeFileSync(
        join(dir, "canvases", "demo", `u${String(i).padStart(2, "0")}.py`),
        "@fused.udf\ndef udf():\n    return 1\n",
      );
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", SVC_CACHE_DIR: "" };
    const r = spawnSync(process.execPath, [builtCli(), "run", "udf.demo/helo"], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Did you mean udf.demo/hello?");
    expect(r.stderr).toContain("udf.demo/u08 and 20 more (svc-iac show --offline lists them).");
    expect(r.stderr).not.toContain("udf.demo/u09");
  }, 120_000);
});

describe("GIVEN a UDF applied on the embedded emulator where no python3 is on PATH", () => {
  it("WHEN it is run THEN the 501 says how to get a Python for the embedded emulator or reach the platform, not an option it lacks", () => {
    const dir = repoImportingMissingModule();
    const env = {
      PATH: mkdtempSync(join(tmpdir(), "svc-no-python-")),
      HOME: process.env.HOME ?? "",
      SVC_CACHE_DIR: "",
      SVC_PYTHON: "",
    };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [builtCli(), ...args], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    expect(cli("apply", "--auto-approve").status).toBe(0);
    const r = cli("run", "udf.demo/hello");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("failed with 501");
    expect(r.stderr).toContain(
      "The embedded emulator runs UDFs in the python3 found on PATH (Python 3.9 or newer): install one there, or run the UDF on the platform (set SVC_BASE_URL).",
    );
  }, 120_000);
});
