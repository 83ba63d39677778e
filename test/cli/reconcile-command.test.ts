/** `svc-iac validate | plan | apply | drift` on the command line: exit codes, output files, formats, usage errors and the lock flag. */
import { execFile, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { CliUsageError } from "../../src/cli/usage";
import { loadRepository } from "../../src/reconcile/load";
import { openStateBackend } from "../../src/reconcile/state/open-backend";
import { runInProcess as run } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { builtCli, copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, platformView } from "../helpers/repo";
import { readValidSavedPlan } from "../helpers/saved-plan";
import { minimalEnv } from "../helpers/process-env";

async function usageError(p: Promise<unknown>): Promise<CliUsageError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliUsageError);
  return e as CliUsageError;
}

describe("GIVEN the valid-full repository and an empty platform", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const outputs = () => ["--outputs", outputsFileOf(dir)];

  beforeAll(() => {
    dir = copyRepo("valid-full");
    env = emulatorEnv(fx.emu);
  });

  it("WHEN validate runs THEN it exits 0 and counts the objects", async () => {
    const r = await run("validate", [dir], env);
    expect(r).toMatchObject({ code: 0, stdout: "Valid: 13 objects.\n" });
    expect(JSON.parse((await run("validate", [dir, "--json"], env)).stdout)).toEqual({ objects: 13, valid: true });
  });

  it("WHEN validate counts one object THEN it says 1 object", async () => {
    const one = join(dir, "..", "one");
    mkdirSync(join(one, "canvases", "solo"), { recursive: true });
    writeFileSync(join(one, "svc.yaml"), "project: solo\n");
    writeFileSync(join(one, "canvases", "solo", "canvas.yaml"), "access_scope: team\n");
    expect(await run("validate", [one], env)).toMatchObject({ code: 0, stdout: "Valid: 1 object.\n" });
  });

  it("WHEN plan runs THEN it exits 0, or 2 with --detailed-exitcode, and --out writes the saved plan holding the JSON plan", async () => {
    const r = await run("plan", [dir, ...outputs()], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Plan: 12 to create, 1 to share.");
    const file = join(dir, "..", "out", "plan.json");
    const d = await run("plan", [dir, ...outputs(), "--detailed-exitcode", "--out", file], env);
    expect(d.code).toBe(2);
    const written = readValidSavedPlan(file);
    expect(written.plan.summary).toMatchObject({ create: 12, share: 1 });
    expect(d.stderr).toContain(
      `Saved the plan to ${file}. To apply exactly this plan: svc-iac apply ${dir} --plan ${file}`,
    );
    expect(JSON.parse((await run("plan", [dir, ...outputs(), "--json"], env)).stdout)).toEqual(written.plan);
  });

  it("WHEN plan runs with --only (twice) THEN the text says the plan is partial and holds only those objects; an address that matches nothing exits 1 naming it", async () => {
    const r = await run("plan", [dir, ...outputs(), "--only", "udf.listings/stats", "--only", "secret.*"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Partial plan (--only): only udf.listings/stats, secret.* and what they need.");
    expect(r.stdout).toContain("Plan: 3 to create.");
    const bad = await run("plan", [dir, ...outputs(), "--only", "canvas.nowhere"], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(
      /^--only canvas\.nowhere matches no object in the repository or the inventory of listings \(default\)/,
    );
  });

  it("WHEN apply --plan is combined with a planning flag THEN it is a usage error", async () => {
    const e = await usageError(run("apply", [dir, "--plan", "plan.json", "--prune", "--only", "canvas.x"], env));
    expect(e.message).toBe(
      "--plan cannot be combined with --prune, --only: a saved plan is applied with the options it was planned with.",
    );
  });

  it("WHEN apply runs without --auto-approve and stdin is not a terminal THEN it is a usage error and nothing is created", async () => {
    const e = await usageError(run("apply", [dir, ...outputs()], env));
    expect(e.message).toMatch(/--auto-approve/);
    expect((await platformView(fx.user)).canvases).toEqual([]);
  });

  it("WHEN apply asks on a terminal and the answer is not yes THEN it is cancelled with nothing changed", async () => {
    const r = await run("apply", [dir, ...outputs()], env, { tty: true, input: "no\n" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Apply cancelled: nothing was changed\./);
    expect((await platformView(fx.user)).canvases).toEqual([]);
  });

  it("WHEN drift runs before apply THEN it exits 2 with every object pending", async () => {
    const r = await run("drift", [dir, "--format", "json"], env);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).counts).toEqual({ changed: 0, missing: 0, orphaned: 0, unmanaged: 0, pending: 13 });
  });

  it("WHEN apply --plan runs the saved plan (no terminal, no --auto-approve: the plan was the review) THEN it exits 0, and plan --detailed-exitcode and drift then exit 0", async () => {
    const saved = join(dir, "..", "out", "plan.json");
    const r = await run("apply", [dir, ...outputs(), "--plan", saved], env);
    expect(r.code, r.stderr).toBe(0);
    // Progress in a pipe: a line per canvas (or kind) once all of its actions have finished.
    expect(r.stderr).toMatch(/^\[\d+\/13\] canvas\.listings: \d+ done$/m);
    expect((await run("plan", [dir, "--detailed-exitcode"], env)).code).toBe(0);
    // --out without --format: the file gets Markdown (for an issue or a summary), stdout text.
    const file = join(dir, "..", "out", "drift.md");
    const drift = await run("drift", [dir, "--out", file], env);
    expect(drift.code).toBe(0);
    expect(drift.stdout).toBe("No drift. listings (default) matches the repository.\n");
    expect(readFileSync(file, "utf8")).toMatch(/^### Drift report: `listings` \(`default`\)\n\nNo drift\.\n/);
    expect(readFileSync(file, "utf8").trimEnd()).toBe(
      (await run("drift", [dir, "--format", "md"], env)).stdout.trimEnd(),
    );
  });

  it("WHEN the applied saved plan is applied again THEN it is refused as stale, with no plan printed", async () => {
    const r = await run("apply", [dir, ...outputs(), "--plan", join(dir, "..", "out", "plan.json")], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Saved plan is stale/);
  });

  it("WHEN apply --json runs with nothing to do THEN stdout is one JSON document with the plan and an empty report", async () => {
    const r = await run("apply", [dir, "--auto-approve", "--json"], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.plan.actions).toEqual([]);
    expect(doc.report).toMatchObject({ ok: true, results: [] });
  });

  it("WHEN the platform drifts THEN drift exits 2 in text (the default), Markdown and JSON, and --out holds the same document", async () => {
    const reports = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!;
    await fx.user.canvases.update(reports.id, { name: "reports", access_scope: "public" });
    const text = await run("drift", [dir], env);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(
      /^Drift in listings \(default\): 1 changed\.\n\nChanged \(1\): .*\n {2}~ canvas\.reports \(id [^)]+\) at canvases\/reports\/canvas\.yaml:\d+\n {6}accessScope: "public" → "team"\n/,
    );
    expect(text.stdout).not.toMatch(/\| --- |<details>|<summary>|```/);
    for (const format of ["md", "markdown"]) {
      const md = await run("drift", [dir, "--format", format], env);
      expect(md.code).toBe(2);
      expect(md.stdout).toContain("| Changed | 1 |");
      expect(md.stdout).toContain("<details><summary><code>canvas.reports</code>");
    }
    const file = join(dir, "..", "out", "drift.json");
    const json = await run("drift", [dir, "--format", "json", "--out", file], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(json.stdout));
    expect(
      JSON.parse(json.stdout).items.map((i: { class: string; address: string }) => `${i.class} ${i.address}`),
    ).toEqual(["changed canvas.reports"]);
  });

  it("WHEN a flag is unknown, a format is unknown or a number is malformed THEN it is a usage error", async () => {
    expect((await usageError(run("plan", [dir, "--frobnicate"], env))).message).toMatch(/frobnicate/);
    expect((await usageError(run("drift", [dir, "--format", "xml"], env))).message).toBe(
      'Invalid --format "xml". Expected text, md (or markdown) or json.',
    );
    expect((await usageError(run("apply", [dir, "--auto-approve", "--max-deletions", "many"], env))).message).toMatch(
      /--max-deletions/,
    );
    expect((await usageError(run("validate", [dir, dir], env))).message).toMatch(/Too many arguments/);
    expect((await usageError(run("validate", [dir, "--prune"], env))).message).toMatch(/prune/);
  });

  it("WHEN a lock is held THEN apply exits 1 naming --force-unlock, and --force-unlock <id> proceeds", async () => {
    const loaded = await loadRepository(dir, { env });
    if (!loaded.ok) throw new Error("fixture does not load");
    const p = loaded.project;
    const backend = openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });
    const held = await backend.acquireLock({ owner: "bob@laptop pid 7", operation: "apply", ttlMs: 600_000 });

    const blocked = await run("apply", [dir, "--auto-approve"], env);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`--force-unlock ${held.info.id}`);
    expect(blocked.stderr).toContain("bob@laptop pid 7");

    const forced = await run("apply", [dir, "--auto-approve", "--force-unlock", held.info.id], env);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain(`Removed the lock ${held.info.id}`);
    expect(await backend.readLock()).toBeUndefined();

    await backend.acquireLock({ owner: "bob@laptop pid 8", operation: "apply", ttlMs: 600_000 });
    expect((await run("apply", [dir, "--auto-approve", "--force-unlock", "all"], env)).code).toBe(0);
    expect(await backend.readLock()).toBeUndefined();
  });

  it("WHEN --force-unlock names a lock and there is none THEN apply exits 1 saying there was no lock to remove, changing nothing; --force-unlock all goes on, saying so", async () => {
    const loaded = await loadRepository(dir, { env });
    if (!loaded.ok) throw new Error("fixture does not load");
    const p = loaded.project;
    const backend = openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });
    expect(await backend.readLock()).toBeUndefined();
    const inventoryBefore = await backend.readInventory();

    const named = await run(
      "apply",
      [dir, "--auto-approve", "--force-unlock", "0123456789abcdef0123456789abcdef"],
      env,
    );
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(
      `No lock to remove: state ${backend.location} is not locked, so there is no lock 0123456789abcdef0123456789abcdef; nothing was changed.`,
    );
    expect(await backend.readInventory()).toEqual(inventoryBefore);

    const any = await run("apply", [dir, "--auto-approve", "--force-unlock", "all"], env);
    expect(any.code).toBe(0);
    expect(any.stderr).toContain(
      `No lock to remove: state ${backend.location} was not locked (--force-unlock all); going on.`,
    );
  });
});

describe("GIVEN the built svc-iac command", () => {
  let main: string;
  beforeAll(() => {
    main = builtCli();
  }, 120_000);

  it("WHEN apply runs without --auto-approve and stdin is not a terminal THEN it exits 1 with the usage error on stderr", async () => {
    const dir = copyRepo("valid-full");
    const child = execFile(process.execPath, [main, "apply", dir], {
      env: { ...minimalEnv(), SVC_BASE_URL: "http://127.0.0.1:9/v1", SVC_TOKEN: "x" },
    });
    child.stdin?.end();
    const exit = await new Promise<{ code: number | null; stderr: string }>((done) => {
      let stderr = "";
      child.stderr!.on("data", (c) => (stderr += String(c)));
      child.on("close", (code) => done({ code, stderr }));
    });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/^svc-iac: apply needs --auto-approve/);
    expect(exit.stderr).toMatch(/Run "svc-iac apply --help" for usage\./);
  });

  it("WHEN drift writes to the file GitHub shows as the job summary (drift >> $GITHUB_STEP_SUMMARY) THEN it writes Markdown there, and text into any other file", async () => {
    const dir = copyRepo("valid-full");
    const summary = join(dir, "..", "summary.md");
    const other = join(dir, "..", "other.txt");
    const drift = async (file: string) => {
      const fd = openSync(file, "a");
      try {
        // The embedded emulator: everything is pending, drift exits 2.
        const child = spawn(process.execPath, [main, "drift", dir], {
          env: { ...minimalEnv(), GITHUB_STEP_SUMMARY: summary, ...FIXTURE_SECRETS },
          stdio: ["ignore", fd, "ignore"],
        });
        return await new Promise<number | null>((done) => child.on("close", done));
      } finally {
        closeSync(fd);
      }
    };
    expect(await drift(summary)).toBe(2);
    expect(readFileSync(summary, "utf8")).toMatch(
      /^### Drift report: `listings` \(`default`\)\n\n\| Drift \| Count \|\n/,
    );
    expect(await drift(other)).toBe(2);
    expect(readFileSync(other, "utf8")).toMatch(/^Drift in listings \(default\): 13 pending\.\n/);
  }, 60_000);

  it("WHEN a flag is unknown THEN it exits 1 with the usage error on stderr", async () => {
    const r = await promisify(execFile)(process.execPath, [main, "plan", "--frobnicate"]).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc-iac: .*frobnicate/);
  });
});

describe("GIVEN apply and destroy approved with --auto-approve", () => {
  const fx = useEmulator();

  it("THEN the plan is printed once, before the first change, and the report after the last", async () => {
    const dir = copyRepo("valid-full");
    const env = emulatorEnv(fx.emu);
    const applied = await run("apply", [dir, "--auto-approve", "--outputs", outputsFileOf(dir)], env);
    expect(applied.code, applied.stderr).toBe(0);
    const planLine = applied.log.search(/^Plan: \d+ to create/m);
    expect(planLine, applied.log).toBeGreaterThan(-1);
    expect(applied.log.search(/^\[\d+\/13\] /m)).toBeGreaterThan(planLine);
    expect(applied.log.indexOf("Apply complete:")).toBeGreaterThan(applied.log.indexOf("[13/13] "));
    expect(applied.stdout.match(/^Plan: /gm)).toHaveLength(1);

    const destroyed = await run("destroy", [dir, "--auto-approve"], env);
    expect(destroyed.code, destroyed.stderr).toBe(0);
    const destroyPlan = destroyed.log.search(/Plan: \d+ to delete/);
    expect(destroyPlan).toBeGreaterThan(-1);
    expect(destroyed.log.search(/^\[\d+\/\d+\] /m)).toBeGreaterThan(destroyPlan);
    expect(destroyed.stdout.match(/Plan: \d+ to delete/g)).toHaveLength(1);
  });
});

describe("GIVEN a repository whose svc.yaml does not parse, and --json", () => {
  const fx = useEmulator();

  it("THEN validate, plan, apply, drift and test each print one JSON document naming the error and its code, and exit 1", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "svc.yaml"), `${readFileSync(join(dir, "svc.yaml"), "utf8")}\nbroken: [\n`);
    const env = emulatorEnv(fx.emu);
    const runs = [
      await run("validate", [dir, "--json"], env),
      await run("plan", [dir, "--json"], env),
      await run("apply", [dir, "--json", "--auto-approve"], env),
      await run("drift", [dir, "--format", "json"], env),
    ];
    const { stdout: testOut } = await promisify(execFile)(process.execPath, [builtCli(), "test", dir, "--json"], {
      env: { ...process.env, ...env },
    }).catch((e) => e);
    for (const out of [...runs.map((r) => r.stdout), testOut as string]) {
      const doc = JSON.parse(out);
      expect(doc.errors).toEqual([
        expect.objectContaining({
          file: "svc.yaml",
          line: expect.any(Number),
          message: expect.stringContaining("YAML syntax error"),
        }),
      ]);
    }
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1]);
    for (const r of runs) {
      expect(JSON.parse(r.stdout).message).toMatch(/^1 error in the repository; nothing was sent to the platform\.$/);
      expect(JSON.parse(r.stdout).code).toBe("repository_invalid");
    }
    expect(JSON.parse(runs[0]!.stdout).valid).toBe(false);
  });
});

describe("GIVEN SVC_BASE_URL without its version segment", () => {
  const fx = useEmulator();

  it("THEN the command says to add /v1 beside the 404 it gets, and with /v1 it says nothing of it", async () => {
    const dir = copyRepo("valid-full");
    const wrong = await run("plan", [dir], emulatorEnv(fx.emu, { SVC_BASE_URL: fx.emu.origin }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("SVC_BASE_URL does not end with a version segment such as /v1");
    expect(wrong.stderr).toMatch(/404/);
    const right = await run("plan", [dir], emulatorEnv(fx.emu));
    expect(right.code).toBe(0);
    expect(right.stderr).not.toContain("version segment");
  });
});
