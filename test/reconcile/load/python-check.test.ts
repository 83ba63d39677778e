/**
 * Python is checked before it is deployed: `validate` parses every .py with Python's own parser,
 * in one process for the whole repository, and reports syntax errors, a missing entrypoint and
 * empty files at file:line:column; non-UTF-8 bytes and names differing only in case are refused.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import { loadRepository } from "../../../src/reconcile/load";
import { RepositoryJail } from "../../../src/repository/jail";
import { PythonCheck } from "../../../src/reconcile/load/python-check";
import { runInProcess } from "../../helpers/cli-run";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";
import { REAL_PYTHON } from "../../helpers/python";

const env = (extra: Record<string, string> = {}) => ({ ...FIXTURE_SECRETS, ...extra });
const messages = async (dir: string, extra: Record<string, string> = {}) => {
  const r = await loadRepository(dir, { env: env(extra) });
  return r.ok ? [] : r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
};

describe("GIVEN UDF files Python cannot run", () => {
  it("WHEN a file has a syntax error THEN validate exits 1 at its line and column, and nothing is sent", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf():\n    return [1, 2\n\nx = 3\n");
    const r = await runInProcess("validate", [dir], env({ SVC_BASE_URL: "http://127.0.0.1:9/v1", SVC_TOKEN: "t" }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/canvases\/listings\/stats\.py:2:12: Python syntax error: '\[' was never closed/);
  });

  it("WHEN a helper module listed in headers: has a syntax error THEN it is reported in the helper, once", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "shared/geo.py"), "def f(:\n    pass\n");
    const errors = await messages(dir);
    expect(errors.filter((e) => e.startsWith("shared/geo.py:1:7: Python syntax error"))).toHaveLength(1);
  });

  it("WHEN entrypoint: main names a function the code lacks THEN it says so and where the entrypoint is set", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "canvases/listings/loader.yaml"),
      readFileSync(join(dir, "canvases/listings/loader.yaml"), "utf8").replace("entrypoint: udf", "entrypoint: main"),
    );
    expect(await messages(dir)).toEqual([
      "canvases/listings/loader.py:1:1: found no top-level function 'main', the UDF's entrypoint: its functions are udf (entrypoint: main is set at canvases/listings/loader.yaml:2)",
    ]);
  });

  it("WHEN a file defines no function at all, or is empty THEN each is refused", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/stats.py"), "x = 1\n");
    writeFileSync(join(dir, "canvases/reports/weekly.py"), "  \n");
    expect(await messages(dir)).toEqual([
      `canvases/listings/stats.py:1:1: found no top-level function 'udf', the UDF's entrypoint: it defines no function at all (the default entrypoint; name another with entrypoint: in the UDF's <slug>.yaml)`,
      `canvases/reports/weekly.py:1:1: found an empty file, expected the UDF's Python code with a function "udf" (its entrypoint)`,
    ]);
  });

  it("WHEN a file holds a byte that is not UTF-8 THEN it is refused at that byte's line and column", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "canvases/listings/stats.py"),
      Buffer.concat([Buffer.from("def udf():\n    return 'caf"), Buffer.from([0xe9]), Buffer.from("'\n")]),
    );
    expect(await messages(dir)).toEqual([
      "canvases/listings/stats.py:2:16: canvases/listings/stats.py is not UTF-8 text: byte 0xe9 at line 2, column 16 is not valid UTF-8; save the file as UTF-8",
    ]);
  });

  it("WHEN two UDF files or two canvas folders differ only in case THEN both are refused, each naming the other", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/Stats.py"), "def udf():\n    return 1\n");
    mkdirSync(join(dir, "canvases/Reports"));
    writeFileSync(join(dir, "canvases/Reports/canvas.yaml"), "");
    const errors = await messages(dir);
    expect(errors).toContain(
      "canvases/listings/Stats.py:1:1: found UDF files canvases/listings/Stats.py and canvases/listings/stats.py, which differ only in case, expected UDF slugs that differ in more than case: a checkout on a case-insensitive file system keeps only one of them (canvases/listings/stats.py is the other); rename one",
    );
    expect(errors).toContain(
      "canvases/listings/stats.py:1:1: found UDF files canvases/listings/Stats.py and canvases/listings/stats.py, which differ only in case, expected UDF slugs that differ in more than case: a checkout on a case-insensitive file system keeps only one of them (canvases/listings/Stats.py is the other); rename one",
    );
    expect(errors.filter((e) => e.includes("canvas folders canvases/Reports and canvases/reports"))).toHaveLength(2);
  });
});

it("WHEN two cronjob files differ only in case THEN both are refused, each naming the other (a case-insensitive checkout keeps one)", async () => {
  const dir = copyRepo("valid-full");
  mkdirSync(join(dir, "cronjobs"), { recursive: true });
  for (const name of ["nightly", "Nightly"])
    writeFileSync(join(dir, `cronjobs/${name}.yaml`), 'schedule: "0 6 * * *"\nudf: listings/stats\n');
  const errors = await messages(dir);
  expect(errors).toContain(
    "cronjobs/Nightly.yaml:1:1: found cronjob files cronjobs/Nightly.yaml and cronjobs/nightly.yaml, which differ only in case, expected cronjob names that differ in more than case: a checkout on a case-insensitive file system keeps only one of them (cronjobs/nightly.yaml is the other); rename one",
  );
  expect(errors).toContain(
    "cronjobs/nightly.yaml:1:1: found cronjob files cronjobs/Nightly.yaml and cronjobs/nightly.yaml, which differ only in case, expected cronjob names that differ in more than case: a checkout on a case-insensitive file system keeps only one of them (cronjobs/Nightly.yaml is the other); rename one",
  );
});

it("WHEN one file nests past Python's parser (200,000 minus signs, a 100,000-term sum) THEN that file is refused and a syntax error in another file is still reported: the check cannot be switched off by a file", async () => {
  const dir = copyRepo("valid-full");
  writeFileSync(join(dir, "canvases/listings/deep.py"), `def udf():\n    pass\n\nx = ${"-".repeat(200_000)}1\n`);
  writeFileSync(join(dir, "canvases/listings/long.py"), `def udf():\n    pass\n\nx = 1${"+1".repeat(100_000)}\n`);
  writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf(:\n");
  const r = await runInProcess(
    "validate",
    [dir],
    env({
      SVC_BASE_URL: "http://127.0.0.1:9/v1",
      SVC_TOKEN: "t",
      SVC_CACHE_DIR: mkdtempSync(join(tmpdir(), "svc-cache-")),
    }),
  );
  expect(r.code).toBe(1);
  expect(r.stderr).not.toMatch(/could not run/);
  expect(r.stderr).toMatch(
    /canvases\/listings\/deep\.py:1:1: Python cannot parse this file: found code nested too deeply or too complex for Python's parser \((MemoryError|RecursionError)[^)]*\), expected code Python can parse/,
  );
  expect(r.stderr).toMatch(
    /canvases\/listings\/long\.py:1:1: Python cannot parse this file: found code nested too deeply/,
  );
  expect(r.stderr).toMatch(/canvases\/listings\/stats\.py:1:9: Python syntax error: invalid syntax/);
});

describe("GIVEN the interpreter", () => {
  /** A wrapper interpreter that records each start in `log`, then runs python3. */
  function countingPython(): { python: string; log: string } {
    const dir = mkdtempSync(join(tmpdir(), "svc-python-"));
    const log = join(dir, "starts.log");
    const python = join(dir, "python");
    writeFileSync(python, `#!/bin/bash\necho start >> "${log}"\nexec -a "$0" "${REAL_PYTHON}" "$@"\n`);
    chmodSync(python, 0o755);
    return { python, log };
  }

  it("WHEN a repository has many .py files THEN one interpreter process checks them all", async () => {
    const dir = copyRepo("valid-full");
    for (let i = 0; i < 30; i++)
      writeFileSync(join(dir, `canvases/listings/u${i}.py`), `def udf():\n    return ${i}\n`);
    writeFileSync(join(dir, "canvases/listings/u7.py"), "def udf(:\n");
    const { python, log } = countingPython();
    expect(await messages(dir, { SVC_PYTHON: python })).toEqual([
      "canvases/listings/u7.py:1:9: Python syntax error: invalid syntax",
    ]);
    // One start to ask the interpreter for its executable, one to check every file.
    expect(readFileSync(log, "utf8").trim().split("\n").length).toBeLessThanOrEqual(2);
  });

  it("WHEN nothing is kept (SVC_CACHE_DIR=) and the interpreter is a script THEN one start checks every file, and none asks which interpreter it is", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/u7.py"), "def udf(:\n");
    const { python, log } = countingPython();
    expect(await messages(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: "" })).toEqual([
      "canvases/listings/u7.py:1:9: Python syntax error: invalid syntax",
    ]);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["start"]);
  });

  it("WHEN the interpreter is a shim THEN it is started once per process: the next check starts the interpreter it said it started", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-python-"));
    const log = join(dir, "starts.log");
    const shim = join(dir, "python");
    // A shim as pyenv's: it starts the real interpreter, which then says it is that one.
    writeFileSync(shim, `#!/bin/sh\necho start >> "${log}"\nexec "${REAL_PYTHON}" "$@"\n`);
    chmodSync(shim, 0o755);
    const repo = copyRepo("valid-full");
    expect(await messages(repo, { SVC_PYTHON: shim, SVC_CACHE_DIR: "" })).toEqual([]);
    writeFileSync(join(repo, "canvases/listings/stats.py"), "def udf(:\n");
    expect(await messages(repo, { SVC_PYTHON: shim, SVC_CACHE_DIR: "" })).toEqual([
      "canvases/listings/stats.py:1:9: Python syntax error: invalid syntax",
    ]);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["start"]);
  });

  it("WHEN more than a thousand new .py files were sent and the first checker has said which interpreter it is THEN a second one parses the rest beside it, and the problems of both come in order of file", async () => {
    const { python, log } = countingPython();
    const check = new PythonCheck({ SVC_PYTHON: python, SVC_CACHE_DIR: "" });
    const push = (i: number, code: string) =>
      check.push({ file: `canvases/c/u${String(i).padStart(4, "0")}.py`, code, entrypoint: "udf" });
    for (let i = 0; i < 1000; i++) push(i, `def udf():\n    return ${i}\n`);
    // The first checker's first line (its interpreter), read by this process: the test waits for it, on no clock.
    const pool = () => (check as unknown as { checker?: { processes: { executable?: string }[] } }).checker;
    for (let i = 0; i < 600 && pool()?.processes[0]?.executable === undefined; i++)
      await new Promise((r) => setTimeout(r, 50));
    // Dealt in turn from here: u1001 to the second process, u1002 to the first.
    push(1000, "def udf():\n    return 0\n");
    push(1001, "def udf(:\n");
    push(1002, "def main():\n    return 1\n");
    for (let i = 1003; i < 1200; i++) push(i, `def udf():\n    return ${i}\n`);
    const { errors } = await check.finish();
    expect(errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`)).toEqual([
      "canvases/c/u1001.py:1:9: Python syntax error: invalid syntax",
      "canvases/c/u1002.py:1:1: found no top-level function 'udf', the UDF's entrypoint: its functions are main (the default entrypoint; name another with entrypoint: in the UDF's <slug>.yaml)",
    ]);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(
      availableParallelism() > 1 ? ["start", "start"] : ["start"],
    );
  });

  it("WHEN no interpreter can be found THEN validate warns once and goes on without the check", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf(:\n");
    const r = await runInProcess("validate", [dir], env({ SVC_PYTHON: "/nonexistent/python3" }));
    expect(r.code).toBe(0);
    expect(r.stderr.match(/No Python interpreter found/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/Set SVC_PYTHON to an interpreter, or SVC_PYTHON= \(empty\) to skip this check/);
  });

  it("WHEN SVC_PYTHON is set and empty THEN the check is skipped without a word, and empty files are still refused", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf(:\n");
    const r = await runInProcess("validate", [dir], env({ SVC_PYTHON: "" }));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    writeFileSync(join(dir, "canvases/listings/stats.py"), "");
    expect((await runInProcess("validate", [dir], env({ SVC_PYTHON: "" }))).code).toBe(1);
  });
});

describe("GIVEN the check fed as the files are read", () => {
  it("WHEN a file is pushed THEN Python receives it before the load ends, and every problem comes at the end, once", async () => {
    const folder = mkdtempSync(join(tmpdir(), "svc-python-"));
    const received = join(folder, "received.jsonl");
    const python = join(folder, "python");
    // An interpreter at its own path (the checker says so) that keeps a copy of what it is sent.
    writeFileSync(python, `#!/bin/bash\ntee "${received}" | (exec -a "$0" "${REAL_PYTHON}" "$@")\n`);
    chmodSync(python, 0o755);
    const check = new PythonCheck({ SVC_PYTHON: python });
    check.push({ file: "canvases/a/first.py", code: "def udf():\n    return 1\n", entrypoint: "udf" });
    const seen = async () => {
      for (let i = 0; i < 200; i++) {
        if (existsSync(received) && readFileSync(received, "utf8").includes("canvases/a/first.py")) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    expect(await seen()).toBe(true);
    // A helper that is also a UDF's main file is checked as both; its syntax error is reported once.
    check.push({ file: "canvases/a/second.py", code: "def udf(:\n" });
    check.push({ file: "canvases/a/second.py", code: "def udf(:\n", entrypoint: "udf" });
    check.push({ file: "canvases/a/second.py", code: "def udf(:\n" });
    const { errors, warning } = await check.finish();
    expect(warning).toBeUndefined();
    expect(errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`)).toEqual([
      "canvases/a/second.py:1:9: Python syntax error: invalid syntax",
    ]);
    expect(readFileSync(received, "utf8").trim().split("\n")).toHaveLength(3);
  });
});

describe("GIVEN a load that fails half-way", () => {
  /** The checker processes this process started that are still running. */
  const checkers = () =>
    execFileSync("ps", ["-o", "args=", "--ppid", String(process.pid)], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.includes("svc_check_python"));

  it("WHEN reading a file throws after Python files were read THEN the load fails and no checker is left running (its open input would hold the command for its 2-minute time-out)", async () => {
    const dir = copyRepo("valid-full");
    for (let i = 0; i < 40; i++)
      writeFileSync(join(dir, `canvases/listings/u${i}.py`), `def udf():\n    return ${i}\n`);
    const real = RepositoryJail.prototype.readText;
    let reads = 0;
    const spy = vi.spyOn(RepositoryJail.prototype, "readText").mockImplementation(function (
      this: RepositoryJail,
      file,
      opts,
    ) {
      if (file.endsWith(".py") && ++reads === 30)
        throw Object.assign(new Error(`EIO: i/o error, open '${file}'`), { code: "EIO" });
      return real.call(this, file, opts);
    });
    try {
      await expect(loadRepository(dir, { env: env({ SVC_CACHE_DIR: "" }) })).rejects.toThrow(/EIO/);
    } finally {
      spy.mockRestore();
    }
    // The interpreter's look-up may still be running: the checker must not start after it either.
    for (let i = 0; i < 30 && checkers().length; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    expect(checkers()).toEqual([]);
  });
});

describe("GIVEN the checker run by an interpreter without JSON's C module (_json)", () => {
  const script = join(__dirname, "../../../python/svc_check_python.py");
  const input = `${[
    { file: "canvases/a/ok.py", code: "def udf():\n    return 'é'\n", entrypoint: "udf" },
    { file: "canvases/a/broken.py", code: "def udf(:\n", entrypoint: "udf" },
    { file: "canvases/a/other.py", code: "def main():\n    pass\n", entrypoint: "udf" },
    { file: "canvases/a/naïve \u2028.py", code: "x = (\n" },
  ]
    .map((i) => JSON.stringify(i))
    .join("\n")}\n`;
  /** The checker's two lines (the interpreter, then the problems), parsed. */
  const run = (args: string[]) =>
    execFileSync(REAL_PYTHON, ["-I", "-S", ...args], { input, encoding: "utf8" })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));

  it("WHEN it checks files THEN it reads and writes the same JSON as with the C module, through the json module", () => {
    const withC = run([script]);
    // `import _json` fails when its entry in sys.modules is None.
    const without = run([
      "-c",
      `import sys; sys.modules["_json"] = None; sys.argv = [${JSON.stringify(script)}]; exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"))`,
    ]);
    expect(without).toEqual(withC);
    expect(
      withC[1].map((p: { file: string; line: number; message: string }) => `${p.file}:${p.line}: ${p.message}`),
    ).toEqual([
      "canvases/a/broken.py:1: Python syntax error: invalid syntax",
      "canvases/a/other.py:1: found no top-level function 'udf', the UDF's entrypoint: its functions are main",
      "canvases/a/naïve \u2028.py:1: Python syntax error: '(' was never closed",
    ]);
  });
});
