/**
 * Untrusted text on a terminal, outside GitHub Actions: names from the repository (file and folder
 * names, YAML values, code), from a hostile platform (names of objects made by hand, error details)
 * and a UDF's output hold escape sequences (window title, clear screen), a lone CR and a
 * right-to-left override. Every command shows them as escapes; no raw control character reaches
 * stdout or stderr but svc-iac's own colours, when they are on.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runForgetCommand } from "../../src/cli/forget-command";
import { runInitCommand } from "../../src/cli/init-command";
import { runShowCommand } from "../../src/cli/show-command";
import { runTestCommand } from "../../src/cli/test-command";
import { runCaptured, runImportInProcess, runInProcess } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { startInjectingProxy, type InjectingProxy } from "../helpers/injecting-proxy";
import { appliedRepo, builtCli, copyRepo, emulatorEnv, outputsFileOf, platformView, stateDirOf } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

/** Sets the window title, clears the screen, returns to the start of the line, reverses what follows. */
const EVIL = "\x1b]0;pwned\x07\x1b[2J\rfake\u202etxt";
/** {@link EVIL} as svc-iac shows it. */
const SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\rfake\\u202etxt";
/** A name the platform accepts for a cronjob made by hand (any text). */
const EVIL_CRONJOB = `hand${EVIL}`;

/** svc-iac's own colours (render/ansi.ts). */
const OWN_COLOURS = /\x1b\[(?:0|1|2|31|32|33|36)m/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Fails naming the first raw control character of `text`, once svc-iac's own colours are taken out. */
function expectNoRawControl(text: string): void {
  const rest = text.replace(OWN_COLOURS, "");
  const at = rest.search(CONTROL);
  expect(at, `raw U+${rest.codePointAt(at)?.toString(16)} in: ${JSON.stringify(rest.slice(at - 80, at + 40))}`).toBe(
    -1,
  );
}

const fx = useEmulator();
let proxy: InjectingProxy;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  proxy = await startInjectingProxy(fx.emu.baseUrl);
  dir = await appliedRepo(fx.emu);
  env = { ...emulatorEnv(fx.emu), SVC_BASE_URL: proxy.url, FORCE_COLOR: "1" };
  // A cronjob made by hand on the platform, on a UDF of the project.
  const view = await platformView(fx.user);
  const stats = view.udfs.find((u) => u.slug === "stats" && u.collection_name === "listings")!;
  await fx.user.cronjobs.create({
    name: EVIL_CRONJOB,
    enabled: false,
    minute: [0],
    hour: [],
    day_of_month: [],
    month: [],
    day_of_week: [],
    udf: stats.id,
  });
}, 180_000);
afterAll(async () => {
  await proxy?.close();
});

describe("GIVEN a repository whose file names, canvas folder names and YAML values hold escape sequences", () => {
  it("WHEN validate, plan, apply and drift report its errors THEN each `file:line:column` line shows them as escapes, on one line", async () => {
    const repo = copyRepo("valid-full");
    writeFileSync(join(repo, `canvases/listings/${EVIL}.py`), "def udf():\n    return 1\n");
    writeFileSync(join(repo, "canvases/listings/n\nsvc.yaml:1:1: forged.py"), "def udf():\n    return 1\n");
    mkdirSync(join(repo, `canvases/c${EVIL}`));
    writeFileSync(join(repo, `canvases/c${EVIL}/canvas.yaml`), "access_scope: team\n");
    writeFileSync(
      join(repo, "cronjobs/daily-stats.yaml"),
      `udf: "udf.listings/${EVIL.replace("\x1b", "\\e").replace("\x1b", "\\e").replace("\x07", "\\a").replace("\r", "\\r")}"\n`,
    );
    for (const name of ["validate", "plan", "apply", "drift"] as const) {
      const r = await runInProcess(name, [repo, ...(name === "apply" ? ["--auto-approve"] : [])], env);
      expect(r.code, `${name}: ${r.log}`).toBe(1);
      expectNoRawControl(r.log);
      expect(r.stderr).toContain(`canvases/listings/${SHOWN}.py:1:1:`);
      expect(r.stderr).toContain(`canvases/c${SHOWN}`);
      // A line break in a file name cannot start an error line of its own.
      expect(r.stderr).toContain("canvases/listings/n\\nsvc.yaml:1:1: forged.py:1:1:");
      expect(r.stderr.split("\n").filter((l) => l.startsWith("svc.yaml:1:1: forged"))).toEqual([]);
    }
  });

  it("WHEN plan shows a change of code holding them, in colour THEN the diff shows them as escapes and keeps svc-iac's colours", async () => {
    const repo = copyRepo(dir);
    const stats = join(repo, "canvases/listings/stats.py");
    writeFileSync(stats, `${readFileSync(stats, "utf8")}\nBANNER = ${JSON.stringify(EVIL)}\n`);
    const r = await runInProcess("plan", [repo], env);
    expect(r.code, r.log).not.toBe(1);
    expectNoRawControl(r.log);
    expect(r.stdout).toContain(SHOWN);
    expect(r.stdout).toMatch(OWN_COLOURS);
  });
});

describe("GIVEN a hostile platform whose names and error details hold escape sequences", () => {
  it("WHEN plan and drift show a cronjob made by hand with such a name, in colour THEN it is shown as escapes", async () => {
    for (const [name, ...args] of [
      ["plan", dir, "--prune"],
      ["plan", dir],
      ["drift", dir],
    ] as const) {
      const r = await runInProcess(name, args, env);
      expect(r.code, `${name}: ${r.log}`).not.toBe(1);
      expectNoRawControl(r.log);
    }
    const drift = await runInProcess("drift", [dir], env);
    expect(drift.stdout).toContain(`hand${SHOWN}`);
  });

  it("WHEN a listing fails with such a detail THEN plan's error shows it as escapes", async () => {
    proxy.failWith(/^GET \/cronjob\/get-self$/, EVIL);
    const r = await runInProcess("plan", [dir], env);
    proxy.failWith(undefined);
    expect(r.code).toBe(1);
    expectNoRawControl(r.log);
    expect(r.stderr).toContain(SHOWN);
  });

  it("WHEN apply fails with such a detail THEN the progress and the apply report show it as escapes", async () => {
    const repo = copyRepo(dir);
    renameSync(join(repo, "cronjobs/daily-stats.yaml"), join(repo, "cronjobs/nightly-stats.yaml"));
    proxy.failWith(/^POST \/cronjob\/create$/, EVIL);
    const r = await runInProcess("apply", [repo, "--auto-approve", "--outputs", outputsFileOf(repo)], env);
    proxy.failWith(undefined);
    expect(r.code, r.log).toBe(1);
    expectNoRawControl(r.log);
    expect(r.log).toContain(SHOWN);
  });

  it("WHEN show reads the platform THEN the names it prints are escaped", async () => {
    proxy.failWith(/^GET \/cronjob\/get-self$/, EVIL);
    const failed = await runCaptured(runShowCommand, [dir], env);
    proxy.failWith(undefined);
    expectNoRawControl(failed.stdout + failed.stderr);
    expect(failed.stdout + failed.stderr).toContain(SHOWN);
    const r = await runCaptured(runShowCommand, [dir], env);
    expectNoRawControl(r.stdout + r.stderr);
    expect(r.stdout).toContain(`hand${SHOWN}`);
  });

  it("WHEN import drafts a repository from it THEN the names of what it skips are escaped", async () => {
    const to = join(mkdtempSync(join(tmpdir(), "svc-import-")), "repo");
    const r = await runImportInProcess([to, "--cronjobs", "--dry-run"], env);
    expectNoRawControl(r.log);
    // Quoted as JSON (its C0 characters as \u escapes); the override, which JSON keeps raw, escaped.
    expect(r.log).toContain('cronjob "hand\\u001b]0;pwned\\u0007\\u001b[2J\\rfake\\u202etxt"');
  });

  it("WHEN import reads a canvas whose name holds them THEN the name is shown escaped", async () => {
    // Each canvas of the team's listing is read by id: that answer lies about the name.
    const listings = (await fx.user.canvases.listExecEnvLite()).find((c) => c.name === "listings")!;
    const renamed = { ...(await fx.user.canvases.getById(listings.id)), name: `c${EVIL}` };
    proxy.answerWith(new RegExp(`^GET /collection/by-id/${listings.id}$`), renamed);
    const to = join(mkdtempSync(join(tmpdir(), "svc-import-")), "repo");
    let r: Awaited<ReturnType<typeof runImportInProcess>>;
    try {
      r = await runImportInProcess([to, "--all", "--dry-run"], env);
    } finally {
      proxy.answerWith(undefined);
    }
    expectNoRawControl(r.log);
    expect(r.log).toMatch(/c(\\x1b|\\u001b)\]0;pwned/);
  });

  it("WHEN forget drops an inventory address planted with them THEN the address is shown escaped", async () => {
    const repo = copyRepo(dir);
    const file = join(stateDirOf(repo), "inventory.json");
    const inventory = JSON.parse(readFileSync(file, "utf8"));
    const address = `cronjob.planted${EVIL}`;
    inventory.objects[address] = Object.values(inventory.objects)[0];
    writeFileSync(file, JSON.stringify(inventory));
    const r = await runCaptured(runForgetCommand, [repo, address], env);
    expectNoRawControl(r.stdout + r.stderr);
    expect(r.stdout + r.stderr).toContain(SHOWN);
  });
});

describe("GIVEN a UDF whose output and error hold escape sequences", () => {
  it("WHEN svc-iac test runs its tests THEN the output and the error are shown as escapes", async () => {
    const repo = copyRepo("udf-tests");
    const greet = join(repo, "canvases/checks/greet.py");
    writeFileSync(
      greet,
      readFileSync(greet, "utf8")
        .replace('"hello world"', "'x'")
        .replace(/"greeting": [^\n]*/, `"greeting": ${JSON.stringify(EVIL)},`),
    );
    const boom = join(repo, "canvases/checks/boom.py");
    writeFileSync(boom, `@fused.udf\ndef udf(reason: str = ${JSON.stringify(EVIL)}):\n    raise ValueError(reason)\n`);
    writeFileSync(join(repo, "canvases/checks/boom.yaml"), "tests:\n  - name: fails\n    expect: {ok: true}\n");
    const testEnv = { ...emulatorEnv(fx.emu), SMOKE_KEY: "k" };
    const applied = await runInProcess("apply", [repo, "--auto-approve", "--outputs", outputsFileOf(repo)], testEnv);
    expect(applied.code, applied.log).toBe(0);
    const r = await runCaptured(runTestCommand, [repo], testEnv);
    expect(r.code).toBe(1);
    expectNoRawControl(r.stdout + r.stderr);
    expect(r.stdout + r.stderr).toContain(SHOWN);
  });
});

describe("GIVEN a command line that holds escape sequences (a branch name pasted into a flag)", () => {
  it("WHEN the built command stops on it, in its own process THEN its last error line shows them as escapes", async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [builtCli(), "plan", dir, `--target=${EVIL}`], {
        env: { ...minimalEnv(), ...env },
      });
      let out = "";
      child.stdout.on("data", (c) => (out += String(c)));
      child.stderr.on("data", (c) => (out += String(c)));
      child.on("close", (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(1);
    expectNoRawControl(r.out);
    expect(r.out).toContain(SHOWN);
  }, 60_000);
});

describe("GIVEN folder names that hold escape sequences", () => {
  it("WHEN init writes a repository there THEN the folder is shown escaped", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "svc-init-"));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let log = "";
    stdout.on("data", (c) => (log += String(c)));
    stderr.on("data", (c) => (log += String(c)));
    const code = await runInitCommand([`r${EVIL}`, "--project", "demo"], { stdout, stderr, cwd });
    expect(code, log).toBe(0);
    expectNoRawControl(log);
    expect(log).toContain(`r${SHOWN}`);
  });

  it("WHEN the emulator starts with such a data folder THEN its log line and its JSON show it escaped", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "svc-emu-")), `d${EVIL}`);
    const child = spawn(process.execPath, [builtCli(), "emulator", "--data-dir", data], {
      env: { ...minimalEnv() },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += String(c)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on("data", (c) => {
          err += String(c);
          if (err.includes("listening on")) resolve();
        });
        child.on("exit", () => reject(new Error(`emulator exited: ${err}`)));
      });
    } finally {
      child.kill("SIGTERM");
    }
    expectNoRawControl(out + err);
    expect(err).toContain(`d${SHOWN}`);
    expect(JSON.parse(out).data_dir).toBe(data);
  }, 60_000);
});
