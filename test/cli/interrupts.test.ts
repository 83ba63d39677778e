/**
 * Ctrl-C during apply, with real signals: the built command and the emulator each run as their own
 * process (the emulator slowed down so the apply is still going when the signal comes). The first
 * SIGINT starts no new step, lets the steps in flight finish, saves them, releases the lock and says
 * what was done and what was not (exit 130); the next apply converges. A second SIGINT stops at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCli, writeUdfs } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

let main: string;
let emulator: ChildProcess;
let platform: Record<string, string>;

beforeAll(async () => {
  main = builtCli();
  emulator = spawn(process.execPath, [main, "emulator", "--port", "0", "--faults", "latency=300"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const first = await new Promise<string>((resolve, reject) => {
    let out = "";
    emulator.stdout!.on("data", (c) => {
      out += String(c);
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    emulator.on("exit", () => reject(new Error("the emulator exited")));
  });
  const ready = JSON.parse(first) as { base_url: string; udf_base_url: string; user_token: string };
  platform = { SVC_BASE_URL: ready.base_url, SVC_UDF_BASE_URL: ready.udf_base_url, SVC_TOKEN: ready.user_token };
}, 120_000);
afterAll(() => {
  emulator?.kill("SIGTERM");
});

/** A repository of one canvas with `count` UDFs. */
function repoWith(project: string, count: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-interrupt-")), "repo");
  mkdirSync(join(dir, "canvases", project), { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), `project: ${project}\n`);
  writeFileSync(join(dir, "canvases", project, "canvas.yaml"), "");
  writeUdfs(dir, project, count);
  return dir;
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `svc-iac ...args`; `signals` are sent once stderr shows `after` (the second 40 ms after the first, while the steps in flight are still waiting). */
function svc(
  args: string[],
  signals: { after: RegExp; send: NodeJS.Signals[] } | undefined = undefined,
): Promise<Exit> {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...minimalEnv(), ...platform },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let sent = false;
  child.stdout!.on("data", (c) => (stdout += String(c)));
  child.stderr!.on("data", (c) => {
    stderr += String(c);
    if (signals && !sent && signals.after.test(stderr)) {
      sent = true;
      signals.send.forEach((s, i) => setTimeout(() => child.kill(s), i * 40));
    }
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const lockFiles = (dir: string, project: string) => {
  const state = join(dir, ".svc-iac", "state", project, "default");
  return existsSync(state) ? readdirSync(state).filter((f) => f.includes("lock")) : [];
};

describe("GIVEN an apply of 41 objects running against a slow platform", () => {
  it("WHEN Ctrl-C (SIGINT) arrives THEN it finishes the steps in flight, saves them, releases the lock, says what was done and not, exits 130; the next apply converges", async () => {
    const dir = repoWith("intr_once", 40);
    const r = await svc(["apply", dir, "--auto-approve", "--verbose", "--concurrency", "2"], {
      after: /\[4\/41\]/,
      send: ["SIGINT"],
    });
    expect(r.stderr).toContain("Interrupting (SIGINT): no new step starts");
    const said = /Interrupted: (\d+) done, (\d+) not started\. Run apply again to continue\.\n/.exec(r.stderr);
    expect(said, r.stderr).not.toBeNull();
    const [done, notStarted] = [Number(said![1]), Number(said![2])];
    expect(done).toBeGreaterThanOrEqual(4);
    expect(notStarted).toBeGreaterThan(0);
    expect(done + notStarted).toBe(41);
    // The report's verdict says what happened (no failure), and each skipped line says "skipped" once.
    expect(r.stdout).toContain(`Apply interrupted (SIGINT): ${done} done, 0 failed, ${notStarted} skipped.`);
    expect(r.stdout).not.toContain("Apply failed");
    expect(r.stdout).not.toMatch(/skipped.*skipped:/);
    expect(r.code).toBe(130);
    expect(lockFiles(dir, "intr_once")).toEqual([]);

    // The next apply does only what was not done, and then there is nothing left.
    const again = await svc(["apply", dir, "--auto-approve"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`Apply complete: ${notStarted} done, 0 failed`);
    const plan = await svc(["plan", dir, "--detailed-exitcode"]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain("No changes.");
  }, 240_000);

  it("WHEN a second Ctrl-C follows THEN it stops at once, exit 130", async () => {
    const dir = repoWith("intr_twice", 40);
    const r = await svc(["apply", dir, "--auto-approve", "--verbose", "--concurrency", "2"], {
      after: /\[2\/41\]/,
      send: ["SIGINT", "SIGINT"],
    });
    expect(r.code).toBe(130);
    expect(r.stderr.slice(-600)).toContain("Stopped at once (SIGINT again)");
    expect(r.stderr).not.toContain("Interrupted:");
    // The next apply converges all the same.
    const again = await svc(["apply", dir, "--auto-approve", "--force-unlock", "all"]);
    expect(again.code, again.stderr).toBe(0);
    expect((await svc(["plan", dir, "--detailed-exitcode"])).code).toBe(0);
  }, 240_000);

  it("WHEN SIGTERM arrives during destroy THEN it stops the same way and says to run destroy again", async () => {
    const dir = repoWith("intr_destroy", 30);
    expect((await svc(["apply", dir, "--auto-approve"])).code).toBe(0);
    const r = await svc(["destroy", dir, "--auto-approve", "--verbose", "--concurrency", "1"], {
      after: /\[2\/31\]/,
      send: ["SIGTERM"],
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Interrupted: \d+ done, \d+ not started\. Run destroy again to continue\.\n/);
    expect(lockFiles(dir, "intr_destroy")).toEqual([]);
    const again = await svc(["destroy", dir, "--auto-approve"]);
    expect(again.code, again.stderr).toBe(0);
  }, 240_000);
});

describe("GIVEN an apply --auto-approve still reading a slow platform, under the lock", () => {
  it("WHEN Ctrl-C (SIGINT) arrives before the plan is approved THEN it changes nothing, says so, releases the lock and exits 130", async () => {
    const dir = repoWith("intr_planning", 10);
    const child = spawn(process.execPath, [main, "apply", dir, "--auto-approve"], {
      env: { ...minimalEnv(), ...platform },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c) => (stdout += String(c)));
    child.stderr!.on("data", (c) => (stderr += String(c)));
    const poll = setInterval(() => {
      if (lockFiles(dir, "intr_planning").length) {
        clearInterval(poll);
        child.kill("SIGINT");
      }
    }, 5);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearInterval(poll);
    expect(stderr).toContain("Interrupting (SIGINT): nothing will be changed");
    expect(stderr).toContain("Interrupted before any change; nothing was applied.");
    expect(stdout).not.toContain("Apply");
    expect(code).toBe(130);
    expect(lockFiles(dir, "intr_planning")).toEqual([]);
    const plan = await svc(["plan", dir]);
    expect(plan.stdout).toContain("Plan: 11 to create.");
  }, 240_000);

  it("WHEN it runs with --json THEN stdout still holds one JSON document saying nothing was applied", async () => {
    const dir = repoWith("intr_planning_json", 10);
    const child = spawn(process.execPath, [main, "apply", dir, "--auto-approve", "--json"], {
      env: { ...minimalEnv(), ...platform },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout!.on("data", (c) => (stdout += String(c)));
    child.stderr!.resume();
    const poll = setInterval(() => {
      if (lockFiles(dir, "intr_planning_json").length) {
        clearInterval(poll);
        child.kill("SIGINT");
      }
    }, 5);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearInterval(poll);
    expect(code).toBe(130);
    expect(JSON.parse(stdout).message).toBe("Interrupted before any change; nothing was applied.");
  }, 240_000);
});
