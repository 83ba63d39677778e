/**
 * The deployment history: every apply that changes something is recorded in the target's state
 * (local or remote), with its git commit, actor and objects; `svc-iac history` lists them newest
 * first, per address too; retention keeps what svc.yaml says; no secret value is ever stored.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../src/reconcile/commands";
import { historyCommand } from "../../../src/reconcile/commands/history";
import { loadRepository } from "../../../src/reconcile/load/index";
import { runSvc } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { git, gitRepo } from "../../helpers/git-repo";
import { commandOptions, copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, stateDirOf } from "../../helpers/repo";

/** A new body for the loader, committed. */
function changeLoader(dir: string, n: number): string {
  const file = join(dir, "canvases/listings/loader.py");
  writeFileSync(file, `${readFileSync(file, "utf8").replace(/\n# change \d+\n$/, "")}\n# change ${n}\n`);
  git(dir, "commit", "-qam", `change ${n}`);
  return git(dir, "rev-parse", "HEAD");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("GIVEN a git repository applied, then changed and applied twice more", () => {
  const fx = useEmulator();

  it("THEN history lists the three deployments newest first with their commits, and per address only those that changed it", async () => {
    const dir = gitRepo();
    const first = git(dir, "rev-parse", "HEAD");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const second = changeLoader(dir, 2);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    // A plan with no change records nothing.
    const noop = await applyCommand(commandOptions(dir, fx.emu));
    expect(noop.command === "apply" && noop.report?.deployment).toBeUndefined();
    const third = changeLoader(dir, 3);
    writeFileSync(join(dir, "canvases/listings/stats.py"), "@fused.udf\ndef udf():\n    return 2\n");
    const applied = await applyCommand(commandOptions(dir, fx.emu));
    expect(applied.command === "apply" && applied.report?.deployment).toBe("3");

    const r = await runSvc(["history", dir, "--json"], emulatorEnv(fx.emu));
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(
      doc.deployments.map((d: { id: string; commit: string; dirty: boolean; action: string }) => [
        d.id,
        d.commit,
        d.dirty,
        d.action,
      ]),
    ).toEqual([
      ["3", third, true, "apply"],
      ["2", second, false, "apply"],
      ["1", first, false, "apply"],
    ]);
    expect(doc.deployments[0].objects).toEqual([
      { address: "udf.listings/loader", action: "update" },
      { address: "udf.listings/stats", action: "update" },
    ]);
    expect(doc.deployments[2].objects.map((o: { action: string }) => o.action)).toContain("create");
    expect(doc.deployments[0].actor).toMatch(/@/);
    expect(doc.deployments[0].time).toMatch(/^\d{4}-\d\d-\d\dT/);

    const one = await runSvc(["history", "udf.listings/stats", dir, "--json"], emulatorEnv(fx.emu));
    expect(JSON.parse(one.stdout).deployments.map((d: { id: string }) => d.id)).toEqual(["3", "1"]);

    const text = await runSvc(["history", dir], emulatorEnv(fx.emu));
    expect(text.stdout).toMatch(
      /^Deployments of listings \(default\), newest first:\n {2}3 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}apply {2}by /,
    );
    expect(text.stdout).toContain(`commit ${third.slice(0, 12)} (with changes not committed)`);
    expect(text.stdout).toContain("      update   udf.listings/loader\n");

    // destroy is a deployment too: every object gone.
    const destroyed = await runSvc(["destroy", dir, "--auto-approve"], emulatorEnv(fx.emu));
    expect(destroyed.code, destroyed.stderr).toBe(0);
    const after = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(after.report?.deployments[0]).toMatchObject({ id: "4", action: "destroy" });
    expect(new Set(after.report?.deployments[0]?.objects.map((o) => o.action))).toEqual(new Set(["delete", "unshare"]));
    expect(after.report?.deployments[0]?.objects.map((o) => o.address)).toContain("udf.listings/loader");

    const none = await runSvc(["history", dir, "udf.listings/nothing"], emulatorEnv(fx.emu));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("No recorded deployment of listings (default) changed udf.listings/nothing.");

    // No secret value is stored anywhere in the state, history included.
    const stored = filesUnder(stateDirOf(dir))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    expect(stored).toContain("# change 3");
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(stored).not.toContain(secret);
  });
});

describe("GIVEN history: {keep: 2} in svc.yaml and five applies", () => {
  const fx = useEmulator();

  it("THEN history.keep: 2 keeps the last two, and a body no kept deployment names leaves the store", async () => {
    const dir = gitRepo();
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, `${readFileSync(svc, "utf8")}history:\n  keep: 2\n`);
    for (let n = 0; n < 5; n++) {
      if (n) changeLoader(dir, n);
      expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    }
    const listed = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(listed.report?.deployments.map((d) => d.id)).toEqual(["5", "4"]);
    const packs = join(stateDirOf(dir), "history", "packs");
    const stored = filesUnder(packs)
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    // What 5 and 4 made, and what 4 changed from (change 2): kept; change 1's body: gone with its pack.
    for (const n of [2, 3, 4]) expect(stored).toContain(`# change ${n}`);
    expect(stored).not.toContain("# change 1");
    expect(readdirSync(packs).sort()).toEqual(["1.json", "3.json", "4.json", "5.json"]);
  });
});

describe("GIVEN a damaged history, or bad history keys", () => {
  const fx = useEmulator();

  it("THEN a damaged history index is refused naming it, and svc.yaml's history keys are checked at their line", async () => {
    const dir = gitRepo();
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    writeFileSync(join(stateDirOf(dir), "history", "index.json"), "{nope");
    const damaged = await runSvc(["history", dir, "--json"], emulatorEnv(fx.emu));
    expect(damaged.code).toBe(1);
    expect(JSON.parse(damaged.stdout)).toMatchObject({
      code: "history_invalid",
      message: expect.stringContaining(".svc-iac/state/listings/default/history/index.json is not JSON"),
    });
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, `${readFileSync(svc, "utf8")}history:\n  keep: 0\n  max_age: soon\n`);
    const bad = await runSvc(["history", dir], emulatorEnv(fx.emu));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/svc\.yaml:\d+:\d+: .*history\.keep/);
    expect(bad.stderr).toMatch(/svc\.yaml:\d+:\d+: .*history\.max_age.*"90d"/);
  });
});

describe("GIVEN a history that cannot be written", () => {
  const fx = useEmulator();

  it("THEN a history that cannot be written never fails the apply: the change is made and the command says the history was not written", async () => {
    const dir = gitRepo();
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    // The history's folder is now a plain file: no document can be written below it.
    const folder = join(stateDirOf(dir), "history");
    rmSync(folder, { recursive: true });
    writeFileSync(folder, "not a folder");
    changeLoader(dir, 1);
    const r = await runSvc(["apply", dir, "--auto-approve", "--outputs", outputsFileOf(dir)], emulatorEnv(fx.emu));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Apply complete");
    expect(r.stderr).toContain(".svc-iac/state/listings/default was not written");
    const loader = (await fx.user.udfs.listExecEnv().toArray()).find((u) => u.slug === "loader");
    expect(loader?.udf_body).toContain("# change 1");
  });
});

describe("GIVEN a repository whose state lives in s3://demo-bucket", () => {
  const fx = useEmulator();

  it("THEN its history lives beside the inventory in the bucket, and history reads it there", async () => {
    const dir = gitRepo();
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, readFileSync(svc, "utf8").replace("state: .svc-iac/state\n", "state: s3://demo-bucket/iac\n"));
    git(dir, "commit", "-qam", "remote state");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    changeLoader(dir, 2);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const index = JSON.parse(
      (await fx.user.files.download("s3://demo-bucket/iac/listings/default/history/index.json")).toString("utf8"),
    );
    expect(index.deployments.map((d: { id: string }) => d.id)).toEqual(["1", "2"]);
    const listed = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(listed.report?.deployments.map((d) => [d.id, d.objects])).toEqual([
      ["2", [{ address: "udf.listings/loader", action: "update" }]],
      ["1", expect.arrayContaining([{ address: "canvas.listings", action: "create" }])],
    ]);
  });
});

describe("GIVEN objects made by hand and imported", () => {
  const fx = useEmulator();

  it("THEN the import is a deployment of the objects it bound, with their settings as written", async () => {
    const from = gitRepo();
    expect((await applyCommand(commandOptions(from, fx.emu))).exitCode).toBe(0);
    // A second folder takes the canvas over by import (its own state, empty).
    const dir = copyRepo("valid-full");
    const imported = await runSvc(["import", dir, "--canvas", "reports", "--force"], emulatorEnv(fx.emu));
    expect(imported.code, imported.stderr).toBe(0);
    const listed = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(listed.report?.deployments).toHaveLength(1);
    expect(listed.report?.deployments[0]).toMatchObject({ id: "1", action: "import", ok: true });
    expect(listed.report?.deployments[0]?.objects).toEqual(
      expect.arrayContaining([{ address: "canvas.reports", action: "import" }]),
    );
  });
});

describe("GIVEN history: false in svc.yaml", () => {
  const fx = useEmulator();

  it("THEN apply records nothing, history says why, and a target with its own history settings records again", async () => {
    const dir = gitRepo();
    const svc = join(dir, "svc.yaml");
    writeFileSync(
      svc,
      readFileSync(svc, "utf8")
        .replace("state: .svc-iac/state\n", "state: .svc-iac/state\nhistory: false\n")
        .replace("  prod:\n", "  prod:\n    history: {keep: 3}\n"),
    );
    git(dir, "commit", "-qam", "no history");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    expect(existsSync(join(stateDirOf(dir), "history"))).toBe(false);
    const text = await runSvc(["history", dir], emulatorEnv(fx.emu));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "No deployment of listings (default) is recorded: history: false in svc.yaml: new deployments are not recorded",
    );
    const json = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(json.report).toMatchObject({ deployments: [], recording: false });

    const prod = await loadRepository(dir, { target: "prod", env: { ...FIXTURE_SECRETS, SVC_PYTHON: "" } });
    expect(prod.ok && prod.project.settings.history).toEqual({ keep: 3 });
    const staging = await loadRepository(dir, { target: "staging", env: { ...FIXTURE_SECRETS, SVC_PYTHON: "" } });
    expect(staging.ok && staging.project.settings.history).toEqual({ keep: 100, off: true });
  });
});
