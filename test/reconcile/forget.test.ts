/**
 * Forgetting objects: a way to stop managing them without touching them, reviewed in the
 * repository (`removed:` in svc.yaml, as Terraform's removed blocks) or done at once on the command
 * line (`svc-iac forget ADDRESS`, as `terraform state rm`). After either, plan and drift are clean
 * (the object is not orphaned, nor unmanaged), the object is untouched, and import binds it again.
 */
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runForgetCommand } from "../../src/cli/forget-command";
import { applyCommand, driftCommand, planCommand, validateCommand } from "../../src/reconcile/commands";
import { importCommand } from "../../src/reconcile/commands/import";
import { actionsOf, planOf, runInProcess, runCaptured } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { appliedRepo, commandOptions, copyRepo, emulatorEnv, platformView, stateDirOf } from "../helpers/repo";

/** The loader UDF of valid-full as the platform holds it. */
async function loaderOn(fx: ReturnType<typeof useEmulator>) {
  return (await platformView(fx.user)).udfs.find((u) => u.collection_name === "listings" && u.slug === "loader");
}

const inventoryOf = (dir: string) =>
  JSON.parse(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")) as {
    objects: Record<string, unknown>;
    forgotten?: Record<string, { id: string }>;
  };

/** Deletes the loader UDF's files: the repository no longer declares it. */
function dropLoaderFiles(dir: string) {
  for (const f of ["loader.py", "loader.yaml"]) rmSync(join(dir, "canvases", "listings", f));
}

const forget = (args: string[], env: Record<string, string>) => runCaptured(runForgetCommand, args, env);

describe("GIVEN valid-full applied, and the loader UDF's files deleted", () => {
  const fx = useEmulator();
  const loaderOnPlatform = () => loaderOn(fx);

  it("WHEN its address is listed under removed: in svc.yaml THEN plan shows a forget, apply leaves it on the platform, and plan and drift are then clean", async () => {
    const dir = await appliedRepo(fx.emu);
    const before = await loaderOnPlatform();
    dropLoaderFiles(dir);
    appendFileSync(join(dir, "svc.yaml"), "removed:\n  - udf.listings/loader\n");

    const planned = await planCommand({ ...commandOptions(dir, fx.emu), detailedExitCode: true });
    expect(actionsOf(planned)).toEqual(["forget udf.listings/loader"]);
    expect(planned.exitCode).toBe(2);
    expect(planOf(planned).orphans).toEqual([]);
    const text = await runInProcess("plan", [dir], emulatorEnv(fx.emu));
    expect(text.stdout).toContain("udf.listings/loader");
    expect(text.stdout).toMatch(/1 to forget/);
    expect((await driftCommand(commandOptions(dir, fx.emu))).exitCode).toBe(2);

    const applied = await applyCommand(commandOptions(dir, fx.emu));
    expect(applied.exitCode).toBe(0);
    expect(await loaderOnPlatform()).toEqual(before);
    expect(inventoryOf(dir).objects["udf.listings/loader"]).toBeUndefined();
    expect(inventoryOf(dir).forgotten?.["udf.listings/loader"]?.id).toBe(before!.id);

    const again = await planCommand({ ...commandOptions(dir, fx.emu), detailedExitCode: true });
    expect(again.exitCode).toBe(0);
    expect(planOf(again).unmanaged).toEqual([]);
    const drift = await driftCommand(commandOptions(dir, fx.emu));
    expect(drift.command === "drift" && drift.drift?.items).toEqual([]);
    expect(drift.exitCode).toBe(0);
    // Prune has nothing of it to delete either.
    expect(actionsOf(await planCommand({ ...commandOptions(dir, fx.emu), prune: true }))).toEqual([]);
  });

  it("WHEN removed: lists an address a file still declares THEN validate names svc.yaml's line and the file", async () => {
    const dir = copyRepo("valid-full");
    appendFileSync(join(dir, "svc.yaml"), "removed:\n  - udf.listings/loader\n  - nonsense\n");
    const r = await validateCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(1);
    const lines = r.errors.map((e) => `${e.file}:${e.line}: ${e.message}`);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^svc\.yaml:\d+: found "udf\.listings\/loader", which canvases\/listings\/loader\.py still declares/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^svc\.yaml:\d+: found "nonsense", expected an address such as canvas\.ops_reports/),
    );
  });
});

describe("GIVEN valid-full applied, the loader UDF's files deleted, and a typo in removed:", () => {
  const fx = useEmulator();

  it("WHEN removed: lists a near miss of its address (udf.listings/loadr) THEN plan warns, naming svc.yaml's line and the address meant, that the UDF is not forgotten and prune deletes it", async () => {
    const dir = await appliedRepo(fx.emu);
    dropLoaderFiles(dir);
    appendFileSync(join(dir, "svc.yaml"), "removed:\n  - udf.listings/loadr\n");
    const line = readFileSync(join(dir, "svc.yaml"), "utf8").split("\n").indexOf("  - udf.listings/loadr") + 1;
    const planned = await planCommand({ ...commandOptions(dir, fx.emu), prune: true });
    expect(actionsOf(planned)).toEqual(["delete udf.listings/loader"]);
    expect(planOf(planned).warnings).toContain(
      `svc.yaml:${line}:5: removed: lists "udf.listings/loadr", which this target's inventory does not record; did you mean udf.listings/loader? udf.listings/loader left the repository but is not forgotten: this plan deletes it.`,
    );
  });
});

describe("GIVEN valid-full applied, and the loader UDF forgotten through removed:", () => {
  const fx = useEmulator();

  it("WHEN its canvas is imported again THEN import refuses at the removed: line, writes no file and binds nothing (the repository would not validate)", async () => {
    const dir = await appliedRepo(fx.emu);
    dropLoaderFiles(dir);
    appendFileSync(join(dir, "svc.yaml"), "removed:\n  - udf.listings/loader\n");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const line = readFileSync(join(dir, "svc.yaml"), "utf8").split("\n").indexOf("  - udf.listings/loader") + 1;
    const inventoryBefore = readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8");

    const r = await importCommand({
      dir,
      env: emulatorEnv(fx.emu),
      select: { canvases: ["listings"], cronjobs: false, secrets: false, serviceAccounts: false },
      force: true,
    });
    expect(r.exitCode).toBe(1);
    expect("message" in r ? r.message : "").toContain(
      `svc.yaml:${line}:5: removed: lists udf.listings/loader, which this import would declare and bind again`,
    );
    expect(existsSync(join(dir, "canvases", "listings", "loader.py"))).toBe(false);
    expect(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).toBe(inventoryBefore);
    expect((await validateCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
  });
});

describe("GIVEN valid-full applied", () => {
  const fx = useEmulator();
  const loaderOnPlatform = () => loaderOn(fx);

  it("WHEN svc-iac forget names it while its file still declares it THEN it is refused and nothing changes; once the file is gone it is forgotten, plan and drift are clean, and import binds it again", async () => {
    const dir = await appliedRepo(fx.emu);
    const env = emulatorEnv(fx.emu);
    const before = await loaderOnPlatform();
    const inventoryBefore = readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8");

    const refused = await forget([dir, "udf.listings/loader"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "udf.listings/loader is still declared in canvases/listings/loader.py:1, so the next apply would manage it again. Delete that declaration first, then run forget again (or, to have it reviewed in a pull request, delete it and list udf.listings/loader under removed: in svc.yaml in the same change).",
    );
    expect(refused.stderr).toContain("Nothing was forgotten.");
    expect(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).toBe(inventoryBefore);

    dropLoaderFiles(dir);
    const done = await forget([dir, "udf.listings/loader"], env);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`udf.listings/loader (id ${before!.id})`);
    expect(await loaderOnPlatform()).toEqual(before);

    const planned = await planCommand({ ...commandOptions(dir, fx.emu), detailedExitCode: true });
    expect(planned.exitCode).toBe(0);
    expect(planOf(planned)).toMatchObject({ actions: [], orphans: [], unmanaged: [] });
    expect((await driftCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);

    const unknown = await forget([dir, "udf.listings/nothing"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("udf.listings/nothing is not in the inventory of listings (default)");

    const imported = await importCommand({
      dir,
      env,
      select: { canvases: ["listings"], cronjobs: false, secrets: false, serviceAccounts: false },
      force: true,
    });
    expect(imported.exitCode, imported.message).toBe(0);
    expect(inventoryOf(dir).objects["udf.listings/loader"]).toMatchObject({ id: before!.id });
    expect(inventoryOf(dir).forgotten?.["udf.listings/loader"]).toBeUndefined();
  });
});
