/**
 * The UDF runner on its own: real bodies run unchanged in python3, with helper modules, tiles,
 * formats, exceptions, the time limit and a missing interpreter.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeUdfs, runUdf, tileBounds } from "../../src/emulator/udf-runner";

const body = (code: string, headers: { module_name: string; source_code: string }[] = []) => ({
  code,
  headers,
  name: "demo",
});

describe("runUdf", () => {
  it("GIVEN a body with a helper module WHEN run THEN the entrypoint's value comes back, with prints captured", async () => {
    const r = await runUdf({
      body: body(
        '@fused.udf(cache_max_age="10m")\ndef udf(city: str = "nyc", n: int = 2):\n    import utils\n    print("hello from", city)\n    return utils.rows(city, n)\n',
        [
          {
            module_name: "utils",
            source_code: "def rows(city, n):\n    return [{'city': city, 'i': i} for i in range(n)]\n",
          },
        ],
      ),
      parameters: { city: "sf", n: "3" },
    });
    expect(r).toMatchObject({
      ok: true,
      value: [
        { city: "sf", i: 0 },
        { city: "sf", i: 1 },
        { city: "sf", i: 2 },
      ],
      cacheMaxAgeSeconds: 600,
      contentType: "application/json",
    });
    expect(r.stdout).toBe("hello from sf\n");
  });

  it("GIVEN `import fused` and a decorator without arguments WHEN run THEN it works too", async () => {
    const r = await runUdf({
      body: body("import fused\n\n@fused.udf\ndef udf(flag: bool = False):\n    return {'flag': flag}\n"),
      parameters: { flag: "true" },
    });
    expect(r).toMatchObject({ ok: true, value: { flag: true }, cacheMaxAgeSeconds: null });
  });

  it("GIVEN a tile run THEN the entrypoint sees its tile's bounds and coordinates", async () => {
    const r = await runUdf({
      body: body(
        "@fused.udf\ndef udf(bounds: fused.types.Bounds = None, z: int = 0, x: int = 0, y: int = 0):\n    return {'bounds': bounds, 'zxy': [z, x, y]}\n",
      ),
      tile: tileBounds(1, 1, 0),
    });
    expect(r).toMatchObject({ ok: true, value: { bounds: [0, 0, 180, expect.closeTo(85.0511, 3)], zxy: [1, 1, 0] } });
  });

  it("GIVEN format csv and a list of objects THEN the output is CSV text", async () => {
    const r = await runUdf({
      body: body("@fused.udf\ndef udf():\n    return [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]\n"),
      format: "csv",
    });
    expect(r).toMatchObject({ ok: true, outputText: "a,b\n1,x\n2,y\n", contentType: "text/csv; charset=utf-8" });
  });

  it("GIVEN a DataFrame (a stand-in pandas on PYTHONPATH) THEN json asks for records and csv drops the index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-fake-pandas-"));
    mkdirSync(join(dir, "pandas"));
    writeFileSync(
      join(dir, "pandas", "__init__.py"),
      "class DataFrame:\n    columns = ['a']\n    def to_json(self, **kw):\n        return '{\"to_json\": ' + repr(sorted(kw.items())).replace(\"'\", '\"').replace('(', '[').replace(')', ']') + '}'\n    def to_csv(self, **kw):\n        return 'a\\n1\\n' if kw == {'index': False} else 'wrong'\n",
    );
    const code = "@fused.udf\ndef udf():\n    import pandas as pd\n    return pd.DataFrame()\n";
    const asJson = await runUdf({ body: body(code), env: { PYTHONPATH: dir } });
    expect(asJson).toMatchObject({
      ok: true,
      value: {
        to_json: [
          ["date_format", "iso"],
          ["orient", "records"],
        ],
      },
    });
    expect(await runUdf({ body: body(code), env: { PYTHONPATH: dir }, format: "csv" })).toMatchObject({
      ok: true,
      outputText: "a\n1\n",
    });
  });

  it("GIVEN a UDF that raises THEN the failure carries a traceback starting in the UDF's code", async () => {
    const r = await runUdf({
      body: body("@fused.udf\ndef udf():\n    import utils\n    return utils.boom()\n", [
        { module_name: "utils", source_code: "def boom():\n    raise ValueError('bad city')\n" },
      ]),
    });
    expect(r).toMatchObject({ ok: false, kind: "exception", message: "ValueError: bad city" });
    if (r.ok) return;
    expect(r.traceback).toContain('File "demo.py", line 4, in udf');
    expect(r.traceback).toContain('File "utils.py", line 2, in boom');
    expect(r.traceback).toContain("raise ValueError('bad city')");
    expect(r.traceback).not.toContain("svc_udf_runner");
  });

  it("GIVEN a run over the time limit THEN the process is killed and the failure says timeout", async () => {
    const r = await runUdf({
      body: body("@fused.udf\ndef udf():\n    import time\n    print('started', flush=True)\n    time.sleep(30)\n"),
      // Long enough for Python to start and print on a loaded machine; the run itself sleeps 30 s.
      timeoutMs: 3000,
    });
    expect(r).toMatchObject({ ok: false, kind: "timeout", stdout: "started\n" });
    expect(r.durationMs).toBeLessThan(10_000);
  });

  it("GIVEN fused.cache and fused.load THEN the first memoizes and the second says the emulator lacks it", async () => {
    const cached = await runUdf({
      body: body(
        "calls = []\n\n@fused.cache\ndef f(n):\n    calls.append(n)\n    return n\n\n@fused.udf\ndef udf():\n    f(1); f(1); f(2)\n    return calls\n",
      ),
    });
    expect(cached).toMatchObject({ ok: true, value: [1, 2] });
    const load = await runUdf({ body: body("@fused.udf\ndef udf():\n    return fused.load('other')\n") });
    expect(load).toMatchObject({
      ok: false,
      kind: "exception",
      message:
        "AttributeError: fused.load is not available in the svc-iac emulator (its fused shim provides udf, cache and types)",
    });
  });

  it("GIVEN credentials in the emulator's environment THEN UDF code cannot read them", async () => {
    process.env.SVC_TOKEN = "svc_pat_must-not-leak-5e1f";
    try {
      const r = await runUdf({ body: body("@fused.udf\ndef udf():\n    import os\n    return sorted(os.environ)\n") });
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.value).not.toContain("SVC_TOKEN");
        expect(r.outputText).not.toContain("must-not-leak");
      }
    } finally {
      delete process.env.SVC_TOKEN;
    }
  });

  it("GIVEN a missing interpreter THEN the failure says no-python", async () => {
    const r = await runUdf({ body: body("@fused.udf\ndef udf():\n    return 1\n"), python: "/nonexistent/python3" });
    expect(r).toMatchObject({ ok: false, kind: "no-python" });
    if (!r.ok) expect(r.message).toContain("--python");
  });
});

describe("describeUdfs", () => {
  it("reads each entrypoint's parameters, docstring and cache age without running the code", async () => {
    const d = await describeUdfs({
      bodies: [
        { code: "def udf(:\n" },
        {
          code: 'import nonexistent_module\n@fused.udf(cache_max_age="1h")\ndef udf(city: str = "nyc", limit: int = 500, *, scale: float, tags: list = None):\n    """Loads listings."""\n',
        },
      ],
    });
    expect(d).toMatchObject({
      ok: true,
      descriptions: [{ ok: false, kind: "exception", message: expect.stringContaining("SyntaxError") }, {}],
    });
    if (!d.ok) return;
    expect(d.descriptions[1]).toEqual({
      ok: true,
      doc: "Loads listings.",
      cacheMaxAgeSeconds: 3600,
      parameters: [
        { name: "city", annotation: "str", type: "string", required: false, default: "nyc" },
        { name: "limit", annotation: "int", type: "integer", required: false, default: 500 },
        { name: "scale", annotation: "float", type: "number", required: true },
        { name: "tags", annotation: "list", type: "array", required: false, default: null },
      ],
    });
  });
});

describe("stopping runs", () => {
  it("GIVEN a running UDF WHEN its signal is aborted THEN the process is killed and the run fails with kind stopped", async () => {
    const controller = new AbortController();
    const started = runUdf({
      body: body("@fused.udf\ndef udf():\n    import time\n    print('running', flush=True)\n    time.sleep(30)\n"),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 800);
    const r = await started;
    expect(r).toMatchObject({ ok: false, kind: "stopped", message: "The UDF run was stopped before it finished" });
    expect(r.durationMs).toBeLessThan(10_000);
    expect(
      await runUdf({ body: body("@fused.udf\ndef udf():\n    return 1\n"), signal: controller.signal }),
    ).toMatchObject({ ok: false, kind: "stopped" });
  });
});

/** Whether a process with this pid still exists (a zombie counts: nobody reaped it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills what a failing test left behind, so one failure does not leave sleepers on the machine. */
function cleanUp(pids: number[]): void {
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
}

describe("processes a UDF starts", () => {
  const SPAWN_DETACHED = [
    "@fused.udf",
    "def udf(pid_file: str = ''):",
    "    import os, subprocess, time",
    "    # a sleeper in its own session, holding the run's stdout",
    "    sleeper = subprocess.Popen(['sleep', '120'], start_new_session=True)",
    "    # a double fork: the grandchild is re-parented once its parent exits",
    "    r, w = os.pipe()",
    "    middle = os.fork()",
    "    if middle == 0:",
    "        os.setsid()",
    "        if os.fork() == 0:",
    "            os.write(w, str(os.getpid()).encode())",
    "            time.sleep(120)",
    "        os._exit(0)",
    "    os.close(w)",
    "    orphan = int(os.read(r, 32))",
    "    os.waitpid(middle, 0)",
    "    pids = [sleeper.pid, orphan]",
    "    if pid_file:",
    "        open(pid_file, 'w').write(' '.join(map(str, pids)))",
    "        time.sleep(60)",
    "    return pids",
    "",
  ].join("\n");

  it("GIVEN a UDF that leaves a sleeper in its own session and a double-forked orphan WHEN the run finishes THEN it returns at once and both pids are gone", async () => {
    const r = await runUdf({ body: body(SPAWN_DETACHED), timeoutMs: 20_000 });
    const pids = r.ok ? (r.value as number[]) : [];
    try {
      expect(r).toMatchObject({ ok: true });
      expect(pids).toHaveLength(2);
      expect(r.durationMs).toBeLessThan(15_000);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      cleanUp(pids);
    }
  });

  it("GIVEN the same UDF still running at the time limit WHEN it is killed THEN its detached sleeper and orphan are gone too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-udf-pids-"));
    const pidFile = join(dir, "pids");
    const r = await runUdf({ body: body(SPAWN_DETACHED), parameters: { pid_file: pidFile }, timeoutMs: 2_500 });
    const pids = readFileSync(pidFile, "utf8").split(" ").map(Number);
    try {
      expect(r).toMatchObject({ ok: false, kind: "timeout" });
      expect(pids).toHaveLength(2);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      cleanUp(pids);
    }
  });
});
