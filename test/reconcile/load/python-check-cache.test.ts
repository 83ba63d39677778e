/**
 * The Python check keeps what passed (outside the repository, in SVC_CACHE_DIR, else the user's
 * cache folder): unchanged files are not parsed again, a changed or broken file always is, and a
 * cache that is missing, foreign, oversized or a link never hides a problem.
 */
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRepository } from "../../../src/reconcile/load";
import { PythonCheck } from "../../../src/reconcile/load/python-check";
import { cacheFolder } from "../../../src/cache-folder";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";
import { REAL_PYTHON } from "../../helpers/python";

/**
 * An interpreter at its own path (a script that runs the real one under its name, so Python's
 * `sys.executable` is the script: the loader's question and the checker both say so) that records,
 * per check, the files it was given.
 */
function recordingPython(): { python: string; checks: () => string[][] } {
  const dir = mkdtempSync(join(tmpdir(), "svc-python-"));
  const log = join(dir, "checks.log");
  const python = join(dir, "python");
  const record = `import json,sys; items=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]; print(json.dumps(sorted(i["file"] for i in items)))`;
  writeFileSync(
    python,
    [
      "#!/bin/bash",
      `if [ "$3" = "-c" ]; then exec -a "$0" "${REAL_PYTHON}" "$@"; fi`,
      `input="${dir}/input.$$"`,
      `cat > "$input"`,
      `"${REAL_PYTHON}" -c '${record}' "$input" >> "${log}"`,
      `exec -a "$0" "${REAL_PYTHON}" "$@" < "$input"`,
      "",
    ].join("\n"),
  );
  chmodSync(python, 0o755);
  const checks = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as string[])
      : [];
  return { python, checks };
}

const load = async (dir: string, extra: Record<string, string>) => {
  const r = await loadRepository(dir, { env: { ...FIXTURE_SECRETS, ...extra } });
  return r.ok ? [] : r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
};

function cacheFiles(cache: string): string[] {
  const folder = join(cache, "python-check");
  return existsSync(folder) ? readdirSync(folder).map((f) => join(folder, f)) : [];
}

describe("GIVEN a cache folder (SVC_CACHE_DIR)", () => {
  it("WHEN a repository is loaded twice unchanged THEN the second load starts no check, and the cache holds digests, no code", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, checks } = recordingPython();
    expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache })).toEqual([]);
    expect(checks()).toHaveLength(1);
    const parsed = checks()[0]!;
    expect(parsed).toContain("canvases/listings/stats.py");
    expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache })).toEqual([]);
    expect(checks()).toHaveLength(1);
    const [file] = cacheFiles(cache);
    const text = readFileSync(file!, "utf8");
    expect(text).not.toContain("def ");
    expect(text.split("\n").slice(1).filter(Boolean)).toHaveLength(parsed.length);
  });

  it("WHEN one file changes THEN only it is parsed; WHEN it breaks THEN its error shows on every load, never from the cache", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, checks } = recordingPython();
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf():\n    return 2\n");
    expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache })).toEqual([]);
    expect(checks()[1]).toEqual(["canvases/listings/stats.py"]);
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf(:\n");
    for (let run = 0; run < 2; run++) {
      expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache })).toEqual([
        "canvases/listings/stats.py:1:9: Python syntax error: invalid syntax",
      ]);
    }
    expect(checks().slice(2)).toEqual([["canvases/listings/stats.py"], ["canvases/listings/stats.py"]]);
    // Renaming the entrypoint of unchanged code is a new check too: the pass was for "udf".
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf():\n    return 2\n");
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    writeFileSync(join(dir, "canvases/listings/stats.yaml"), "entrypoint: main\n");
    expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache })).toEqual([
      "canvases/listings/stats.py:1:1: found no top-level function 'main', the UDF's entrypoint: its functions are udf (entrypoint: main is set at canvases/listings/stats.yaml:1)",
    ]);
  });

  it("WHEN the interpreter changes (a new modification time) THEN every file is parsed again", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, checks } = recordingPython();
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    const later = new Date(Date.now() + 60_000);
    utimesSync(python, later, later);
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    expect(checks()).toHaveLength(2);
    expect(checks()[1]).toEqual(checks()[0]);
  });

  it("WHEN the cache file is garbage, oversized or a link to another file THEN it counts as empty and the check runs", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, checks } = recordingPython();
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    const [file] = cacheFiles(cache);
    const good = readFileSync(file!, "utf8");
    const header = good.split("\n")[0];
    writeFileSync(file!, `${header}\nnot a digest\n\u0000\u0001`);
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    expect(checks()).toHaveLength(2);
    // Larger than the 32 MiB the cache reads: ignored, not read into memory.
    writeFileSync(file!, good + "0".repeat(33 * 2 ** 20));
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    expect(checks()).toHaveLength(3);
    // A link planted in the cache folder is not followed, and the write replaces the link, not its target.
    const elsewhere = join(mkdtempSync(join(tmpdir(), "svc-elsewhere-")), "passes.txt");
    writeFileSync(elsewhere, good);
    rmSync(file!);
    symlinkSync(elsewhere, file!);
    await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: cache });
    expect(checks()).toHaveLength(4);
    expect(readFileSync(elsewhere, "utf8")).toBe(good);
  });

  it("WHEN SVC_CACHE_DIR is set and empty THEN nothing is kept and every load parses", async () => {
    const dir = copyRepo("valid-full");
    const home = mkdtempSync(join(tmpdir(), "svc-home-"));
    const { python, checks } = recordingPython();
    for (let run = 0; run < 2; run++) await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: "", HOME: home });
    expect(checks()).toHaveLength(2);
    expect(readdirSync(home)).toEqual([]);
  });

  it("WHEN the cache folder cannot be written THEN the load still succeeds", async () => {
    const dir = copyRepo("valid-full");
    const blocked = join(mkdtempSync(join(tmpdir(), "svc-cache-")), "file");
    writeFileSync(blocked, "a file where the folder would go");
    const { python, checks } = recordingPython();
    expect(await load(dir, { SVC_PYTHON: python, SVC_CACHE_DIR: blocked })).toEqual([]);
    expect(checks()).toHaveLength(1);
  });
});

describe("GIVEN an interpreter that is a shim (a script that starts the real one)", () => {
  /**
   * An interpreter at its own path (as {@link recordingPython}) whose answer to the loader's
   * question (which interpreter it is) waits until the test creates `go`: the test's own clock.
   * What each check is sent is kept in `received`.
   */
  function gatedPython(): { python: string; go: string; received: string; asked: () => number } {
    const dir = mkdtempSync(join(tmpdir(), "svc-python-"));
    const python = join(dir, "python");
    const go = join(dir, "go");
    const received = join(dir, "received.jsonl");
    const log = join(dir, "asked.log");
    writeFileSync(
      python,
      [
        "#!/bin/bash",
        `if [ "$3" = "-c" ]; then echo asked >> "${log}"; while [ ! -e "${go}" ]; do sleep 0.05; done; exec -a "$0" "${REAL_PYTHON}" "$@"; fi`,
        `tee -a "${received}" | (exec -a "$0" "${REAL_PYTHON}" "$@")`,
        "",
      ].join("\n"),
    );
    chmodSync(python, 0o755);
    const asked = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").length : 0);
    return { python, go, received, asked };
  }

  const until = async (ok: () => boolean) => {
    for (let i = 0; i < 600 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
    return ok();
  };
  const sent = (received: string, file: string) =>
    existsSync(received) && readFileSync(received, "utf8").includes(file);

  it("WHEN files are new THEN Python parses the first one at once, the command is never asked which interpreter it is, and the passes are kept under the one the checker ran in", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, received, asked } = gatedPython();
    const check = new PythonCheck({ SVC_PYTHON: python, SVC_CACHE_DIR: cache }, dir);
    check.push({ file: "canvases/a/first.py", code: "def udf():\n    return 1\n", entrypoint: "udf" });
    expect(await until(() => sent(received, "first.py"))).toBe(true);
    // `go` is never made: a question to the command would never be answered.
    expect(await check.finish()).toEqual({ errors: [] });
    expect(asked()).toBe(0);
    const [file] = cacheFiles(cache);
    expect(readFileSync(file!, "utf8").split("\n")[0]).toContain(JSON.stringify(python));
  });

  it("WHEN the cache's passes count until the command confirms its interpreter THEN a changed file is parsed before it answers, and an unchanged one not at all", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const { python, go, received, asked } = gatedPython();
    const env = { SVC_PYTHON: python, SVC_CACHE_DIR: cache };
    // The first check in a process of its own: a process asks a command once, and this one must ask.
    const first = `const { PythonCheck } = require(${JSON.stringify(join(__dirname, "../../../dist/reconcile/load/python-check.js"))});
      const check = new PythonCheck(process.env, ${JSON.stringify(dir)});
      check.push({ file: "canvases/a/same.py", code: "def udf():\\n    return 1\\n", entrypoint: "udf" });
      check.finish().then((r) => process.stdout.write(JSON.stringify(r)));`;
    expect(
      JSON.parse(execFileSync(process.execPath, ["-e", first], { env: { ...process.env, ...env }, encoding: "utf8" })),
    ).toEqual({ errors: [] });
    const second = new PythonCheck(env, dir);
    second.push({ file: "canvases/a/same.py", code: "def udf():\n    return 1\n", entrypoint: "udf" });
    second.push({ file: "canvases/a/changed.py", code: "def udf(:\n", entrypoint: "udf" });
    // The question waits for `go`; the changed file is with Python already.
    expect(await until(() => sent(received, "changed.py"))).toBe(true);
    writeFileSync(go, "");
    const { errors } = await second.finish();
    expect(errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`)).toEqual([
      "canvases/a/changed.py:1:9: Python syntax error: invalid syntax",
    ]);
    expect(readFileSync(received, "utf8").match(/same\.py/g)).toHaveLength(1);
    expect(asked()).toBe(1);
  });

  it("WHEN the cache's passes were made by another interpreter than the one the command now names THEN the files they skipped are parsed at the end", async () => {
    const dir = copyRepo("valid-full");
    const cache = mkdtempSync(join(tmpdir(), "svc-cache-"));
    const first = recordingPython();
    await load(dir, { SVC_PYTHON: first.python, SVC_CACHE_DIR: cache });
    // Another shim: the passes' interpreter (the first) is unchanged on disk, so they count at first.
    const second = recordingPython();
    writeFileSync(join(dir, "canvases/listings/stats.py"), "def udf(:\n");
    expect(await load(dir, { SVC_PYTHON: second.python, SVC_CACHE_DIR: cache })).toEqual([
      "canvases/listings/stats.py:1:9: Python syntax error: invalid syntax",
    ]);
    // The changed file went at once; every other one once the command named another interpreter.
    expect(second.checks().flat().sort()).toEqual(first.checks()[0]);
    const [file] = cacheFiles(cache);
    expect(readFileSync(file!, "utf8").split("\n")[0]).toContain(JSON.stringify(second.python));
  });
});

describe("GIVEN no SVC_CACHE_DIR", () => {
  it("THEN the cache is $XDG_CACHE_HOME/svc-iac, else ~/.cache/svc-iac, else none", () => {
    expect(cacheFolder({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/x/svc-iac");
    expect(cacheFolder({ HOME: "/h" })).toBe("/h/.cache/svc-iac");
    expect(cacheFolder({})).toBeUndefined();
    expect(cacheFolder({ SVC_CACHE_DIR: " ", HOME: "/h" })).toBeUndefined();
  });
});
