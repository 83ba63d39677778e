/**
 * A plan reads the platform while it reads the repository: once svc.yaml is read, it connects and
 * starts the team's canvas reads (when the project's fingerprint key exists), and the loader lets
 * their answers in between its file reads. The reads are made once, and a repository with errors
 * still shows only its errors: nothing the early connection says or fails with comes first.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { planCommand } from "../../../src/reconcile/commands";
import { RepositoryJail } from "../../../src/repository/jail";
import { useEmulator } from "../../helpers/emulator";
import { startInjectingProxy, type InjectingProxy } from "../../helpers/injecting-proxy";
import { appliedRepo, commandOptions, emulatorEnv, writeUdfs } from "../../helpers/repo";

const fx = useEmulator();
let proxy: InjectingProxy;
let dir: string;
/** Enough files that reading them takes many of the loader's turns. */
const NEW_UDFS = 1500;

beforeAll(async () => {
  dir = await appliedRepo(fx.emu);
  writeUdfs(dir, "listings", NEW_UDFS, "extra");
  proxy = await startInjectingProxy(fx.emu.baseUrl);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
});

const env = (extra: Record<string, string> = {}) =>
  emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url, SVC_CACHE_DIR: "", ...extra });

describe("GIVEN an applied repository with 1,500 new UDF files", () => {
  it("WHEN plan runs THEN the team's canvases are asked for while the files are still being read, each once", async () => {
    const reads = vi.spyOn(RepositoryJail.prototype, "readText");
    let readWhenListed = -1;
    proxy.before(/^GET \/collection\/exec-env\/lite$/, 1, async () => {
      readWhenListed = reads.mock.calls.length;
    });
    proxy.answers.length = 0;
    try {
      const r = await planCommand(commandOptions(dir, fx.emu, { env: env() }));
      expect(r.exitCode).toBe(0);
      expect(r.command === "plan" && r.plan?.actions.filter((a) => a.action === "create")).toHaveLength(NEW_UDFS);
      expect(readWhenListed).toBeGreaterThan(0);
      expect(readWhenListed).toBeLessThan(NEW_UDFS);
    } finally {
      reads.mockRestore();
    }
    const requests = proxy.answers.map((a) => a.request);
    expect(requests.filter((q) => q === "GET /collection/exec-env/lite")).toHaveLength(1);
    const canvasReads = requests.filter((q) => q.startsWith("GET /collection/by-id/"));
    expect(new Set(canvasReads).size).toBe(canvasReads.length);
  });

  it("WHEN a UDF file is broken and no token is set THEN only the file's error is reported, and nothing is written", async () => {
    writeFileSync(join(dir, "canvases/listings/extra_07.py"), "def udf(:\n");
    try {
      const noToken = env({ SVC_TOKEN: "" });
      proxy.answers.length = 0;
      const r = await planCommand(commandOptions(dir, fx.emu, { env: noToken }));
      expect(r.exitCode).toBe(1);
      expect("errors" in r && r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`)).toEqual([
        "canvases/listings/extra_07.py:1:9: Python syntax error: invalid syntax",
      ]);
      expect("message" in r ? r.message : undefined).toBeUndefined();
      // A file the loader itself refuses (not Python's check): what connecting says (the base URL lacks /v1) is not shown.
      writeFileSync(join(dir, "canvases/listings/extra_08.yaml"), "bogus: 1\n");
      const logged: string[] = [];
      const withToken = await planCommand(
        commandOptions(dir, fx.emu, {
          env: env({ SVC_BASE_URL: proxy.url.replace(/\/v1$/, "") }),
          log: (l) => logged.push(l),
        }),
      );
      expect(withToken.exitCode).toBe(1);
      expect("errors" in withToken && withToken.errors.map((e) => e.file)).toEqual([
        "canvases/listings/extra_07.py",
        "canvases/listings/extra_08.yaml",
      ]);
      expect(logged.join("\n")).not.toMatch(/version segment/);
      // The reads that may have begun early only read.
      expect(proxy.answers.filter((a) => !a.request.startsWith("GET "))).toEqual([]);
    } finally {
      writeFileSync(join(dir, "canvases/listings/extra_07.py"), "@fused.udf\ndef udf():\n    return 7\n");
      rmSync(join(dir, "canvases/listings/extra_08.yaml"), { force: true });
    }
  });
});
