/** `svc-iac import` against the emulator: hand-made canvases, cronjobs and secrets become files that plan empty. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planCommand, validateCommand } from "../../../src/reconcile/commands";
import { importCommand, type ImportOptions } from "../../../src/reconcile/commands/import";
import { runImportInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { HAND_MADE_SECRETS, makeHandMade } from "../../helpers/hand-made";
import { emulatorEnv, filesOf } from "../../helpers/repo";

/** Every file under `dir` (but the state folder) and its bytes. */
const filesLatin1 = (dir: string) => filesOf(dir, "latin1");

describe("GIVEN a team account with hand-made canvases, shares, cronjobs and secrets", () => {
  const fx = useEmulator();

  it("WHEN imported THEN the files validate, plan exits 0, a second import writes identical bytes, and a code change plans as one update", async () => {
    await makeHandMade(fx.user, "", { secrets: true });
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "team-repo");
    // The files name their secrets as environment variables; the values are the platform's.
    const env = {
      ...emulatorEnv(fx.emu),
      MAPBOX_TOKEN: HAND_MADE_SECRETS.MAPBOX_TOKEN,
      api_key: HAND_MADE_SECRETS.API_KEY_VALUE,
      MAPS_PASSCODE: HAND_MADE_SECRETS.MAPS_PASSCODE,
    };
    const opts: ImportOptions = {
      dir,
      env,
      select: { canvases: ["sales", "maps"], cronjobs: true, secrets: true, serviceAccounts: false },
    };

    const first = await importCommand(opts);
    expect(first.message).toBeUndefined();
    expect(first.exitCode).toBe(0);
    const files = filesLatin1(dir);
    expect(Object.keys(files).sort()).toEqual([
      ".gitignore",
      "canvases/maps/canvas.yaml",
      "canvases/maps/lib/colors.py",
      "canvases/maps/lib/geo.py",
      "canvases/maps/price_map.py",
      "canvases/maps/price_map.yaml",
      "canvases/sales/canvas.yaml",
      "canvases/sales/lib/utils.py",
      "canvases/sales/loader.py",
      "canvases/sales/loader.yaml",
      "canvases/sales/stats.py",
      "canvases/sales/stats.yaml",
      "cronjobs/nightly.yaml",
      "secrets.yaml",
      "svc.yaml",
    ]);
    expect(files["svc.yaml"]).toContain("project: team-repo");
    // As init: the fingerprint key and the inventory under .svc-iac/ stay out of `git add -A`.
    expect(files[".gitignore"]).toBe(
      "# svc-iac's local state: the embedded emulator's data and the default inventory.\n.svc-iac/\n",
    );
    expect(files["cronjobs/nightly.yaml"]).toContain("schedule: 30 2 * * 1-5");
    expect(files["cronjobs/nightly.yaml"]).toContain("udf: sales/loader");
    expect(files["canvases/sales/stats.py"]).toBe("def udf():\n    return 42");
    expect(files["canvases/maps/canvas.yaml"]).toContain("passcode: ${env.MAPS_PASSCODE}");
    expect(files["canvases/maps/canvas.yaml"]).toContain("client_id: rt-demo-secondary");
    expect(files["secrets.yaml"]).toContain("MAPBOX_TOKEN: ${env.MAPBOX_TOKEN}");
    expect(files["secrets.yaml"]).toContain("api.key: ${env.api_key}");
    const everything = Object.values(files).join("\n") + JSON.stringify(first.report);
    for (const secret of Object.values(HAND_MADE_SECRETS)) expect(everything).not.toContain(secret);
    expect(first.report!.skipped).toEqual([
      expect.objectContaining({ object: 'cronjob "bad name!"', reason: expect.stringContaining("not a file name") }),
    ]);
    expect(first.report!.envVars.map((v) => v.name)).toEqual(["MAPBOX_TOKEN", "MAPS_PASSCODE", "api_key"]);

    if (process.env.SHOW_IMPORT)
      console.log(
        Object.entries(files)
          .map(([f, t]) => `==> ${f}\n${t}`)
          .join("\n"),
      );
    const valid = await validateCommand({ dir, env });
    expect(valid).toMatchObject({ exitCode: 0, objects: 10 });
    const plan = await planCommand({ dir, env, detailedExitCode: true });
    expect(plan.command === "plan" && plan.plan!.actions).toEqual([]);
    expect(plan.exitCode).toBe(0);

    const second = await importCommand(opts);
    expect(second.exitCode).toBe(0);
    expect(second.report!.files.every((f) => f.status === "unchanged")).toBe(true);
    expect(filesLatin1(dir)).toEqual(files);

    writeFileSync(join(dir, "canvases/sales/stats.py"), "def udf():\n    return 43\n");
    const changed = await planCommand({ dir, env, detailedExitCode: true });
    expect(changed.exitCode).toBe(2);
    expect(changed.command === "plan" && changed.plan!.actions.map((a) => [a.action, a.address])).toEqual([
      ["update", "udf.sales/stats"],
    ]);

    // The edited file is not overwritten without --force, and nothing else is written either.
    const refused = await importCommand(opts);
    expect(refused.exitCode).toBe(1);
    expect(refused.message).toContain("canvases/sales/stats.py");
    expect(readFileSync(join(dir, "canvases/sales/stats.py"), "utf8")).toBe("def udf():\n    return 43\n");
    const dryRefused = await importCommand({ ...opts, dryRun: true });
    expect(dryRefused.exitCode).toBe(1);
    expect(dryRefused.message).toContain(
      "This dry run wrote nothing; an import would refuse the same way. Run it with --force to overwrite them.",
    );
    expect(dryRefused.message).not.toContain("or --dry-run");
    const dry = await importCommand({ ...opts, dryRun: true, force: true });
    expect(dry.report!.files.filter((f) => f.status !== "unchanged")).toEqual([
      { path: "canvases/sales/stats.py", status: "update" },
    ]);
    expect(readFileSync(join(dir, "canvases/sales/stats.py"), "utf8")).toBe("def udf():\n    return 43\n");
    expect((await importCommand({ ...opts, force: true })).exitCode).toBe(0);
    expect(filesLatin1(dir)).toEqual(files);
  });

  it("WHEN a canvas is imported THEN it is bound in the inventory: removed from the repository, prune deletes it (and lists what goes with it)", async () => {
    const made = await makeHandMade(fx.user, "bound_");
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "bound");
    const env = emulatorEnv(fx.emu);
    const r = await importCommand({
      dir,
      env,
      select: { canvases: ["bound_sales"], cronjobs: true, secrets: false, serviceAccounts: false },
    });
    expect(r.exitCode).toBe(0);
    expect((await planCommand({ dir, env, detailedExitCode: true })).exitCode).toBe(0);

    rmSync(join(dir, "canvases/bound_sales"), { recursive: true });
    rmSync(join(dir, "cronjobs/bound_nightly.yaml"));
    const pruned = await planCommand({ dir, env, prune: true, allowCascade: true, allowDeleteAll: true });
    expect(pruned.exitCode).toBe(0);
    if (pruned.command !== "plan") throw new Error("plan expected");
    expect(pruned.plan!.actions.map((a) => [a.action, a.address, a.id])).toEqual([
      ["delete", "cronjob.bound_nightly", made.nightly],
      ["unshare", "share.bound_sales", made.sales],
      ["delete", "udf.bound_sales/loader", made.loader],
      ["delete", "udf.bound_sales/stats", made.stats],
      ["delete", "canvas.bound_sales", made.sales],
    ]);
    // The hand-made cronjob "bad name!" (not importable) runs stats: it is named, as left broken.
    expect(pruned.plan!.cascade).toEqual([
      expect.objectContaining({
        address: "cronjob.bad name!",
        effect: "broken",
        managed: false,
        by: "udf.bound_sales/stats",
      }),
    ]);
  });

  it("WHEN an import is refused because a file has other content THEN it says nothing was bound, and binds nothing", async () => {
    await makeHandMade(fx.user, "refused_");
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "refused");
    const env = emulatorEnv(fx.emu);
    expect((await runImportInProcess(["--canvas", "refused_sales", dir], env)).code).toBe(0);
    const inventoryFile = join(dir, ".svc-iac/state/refused/default/inventory.json");
    writeFileSync(join(dir, "canvases/refused_sales/stats.py"), "def udf():\n    return 43\n");
    // Without an inventory, anything bound would make one.
    rmSync(inventoryFile);

    const ran = await runImportInProcess(["--canvas", "refused_sales", dir], env);
    expect(ran.code).toBe(1);
    expect(ran.stdout).not.toMatch(/^Bound /m);
    expect(ran.stdout).toContain("Would bind 4 objects in the inventory");
    expect(ran.stdout).toContain("; nothing was bound.\n");
    expect(ran.stderr).toContain(
      "These files exist with other content: canvases/refused_sales/stats.py.\nNothing was written or bound.",
    );
    expect(readdirSync(join(dir, ".svc-iac/state/refused/default"))).not.toContain("inventory.json");
  });

  it("WHEN one canvas is imported with --cronjobs THEN cronjobs of canvases not asked for are not reported", async () => {
    await makeHandMade(fx.user, "only_");
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "only");
    const r = await importCommand({
      dir,
      env: emulatorEnv(fx.emu),
      select: { canvases: ["only_maps"], cronjobs: true, secrets: false, serviceAccounts: false },
    });
    expect(r.exitCode).toBe(0);
    // only_nightly and "bad name!" run UDFs of only_sales (and other tests' canvases), which was not asked for.
    expect(r.report!.skipped).toEqual([]);
    expect(r.report!.files.map((f) => f.path).filter((p) => p.startsWith("cronjobs/"))).toEqual([]);
  });

  it("WHEN imported into a target with a name_prefix THEN it refuses and writes nothing", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "prefixed");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "svc.yaml"),
      "project: prefixed\ntargets:\n  preview:\n    name_prefix: pr_${env.PR_NUMBER}_\n",
    );
    const env = { ...emulatorEnv(fx.emu), PR_NUMBER: "3" };
    const r = await importCommand({
      dir,
      env,
      target: "preview",
      select: { canvases: [], cronjobs: true, secrets: false, serviceAccounts: false },
    });
    expect(r.exitCode).toBe(1);
    expect(r.message).toBe(
      'Target "preview" sets name_prefix "pr_3_", so its platform names are not the repository\'s. Import into a target without one (the files serve every target).',
    );
    expect(readdirSync(dir)).toEqual(["svc.yaml"]);
  });

  it("WHEN service accounts are imported THEN they plan empty, and a rotation replaces the hand-made account with a tagged one", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-import-")), "accounts");
    const made = await fx.user.environment.createServiceAccount("reporting bot");
    const env = emulatorEnv(fx.emu);
    const r = await importCommand({
      dir,
      env,
      select: { canvases: [], cronjobs: false, secrets: false, serviceAccounts: true },
    });
    expect(r.exitCode).toBe(0);
    const text = readFileSync(join(dir, "service-accounts.yaml"), "utf8");
    expect(text).toContain("  reporting bot: {}\n");
    expect(text).toContain("rotation");
    expect(text).not.toContain(made.token);
    const plan = await planCommand({ dir, env, detailedExitCode: true });
    expect(plan.exitCode).toBe(0);

    writeFileSync(
      join(dir, "service-accounts.yaml"),
      text.replace("  reporting bot: {}", '  reporting bot:\n    rotation: "1"'),
    );
    const rotate = await planCommand({ dir, env, detailedExitCode: true });
    expect(rotate.command === "plan" && rotate.plan!.actions.map((a) => [a.action, a.address, a.id])).toEqual([
      ["rotate", "service_account.reporting bot", made.id],
    ]);
  });

  it("WHEN imported into a folder whose .gitignore lacks .svc-iac/ THEN the line is appended, its own lines kept, and the import is not refused as an overwrite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-import-ignore-"));
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    const r = await importCommand({
      dir,
      env: emulatorEnv(fx.emu),
      select: { canvases: [], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\n\n# svc-iac's local state: the embedded emulator's data and the default inventory.\n.svc-iac/\n",
    );
    expect(r.report?.files).toContainEqual({ path: ".gitignore", status: "update" });
  });

  it("WHEN one UDF is imported by its address into a repository that holds its canvas THEN only its files are written; canvas.yaml, its comments and ${var.…} references stay byte for byte, and the repository validates", async () => {
    await makeHandMade(fx.user, "one_", {});
    const dir = mkdtempSync(join(tmpdir(), "svc-import-one-"));
    const env = emulatorEnv(fx.emu);
    const whole = await importCommand({
      dir,
      env,
      select: { canvases: ["one_sales"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    expect(whole.exitCode, whole.message).toBe(0);
    // GIVEN the repository edited by hand: a variable, a comment, and the UDF's files gone
    writeFileSync(join(dir, "svc.yaml"), `${readFileSync(join(dir, "svc.yaml"), "utf8")}variables:\n  note: kept\n`);
    const canvasYaml = `# yaml-language-server: $schema=../../schemas/canvas.schema.json\n# Reviewed by hand.\n${readFileSync(join(dir, "canvases/one_sales/canvas.yaml"), "utf8")}dashboard_body: \${var.note}\n`;
    writeFileSync(join(dir, "canvases/one_sales/canvas.yaml"), canvasYaml);
    const before = filesLatin1(dir);
    rmSync(join(dir, "canvases/one_sales/stats.py"));
    rmSync(join(dir, "canvases/one_sales/stats.yaml"), { force: true });

    const r = await runImportInProcess(["udf.one_sales/stats", dir], env);
    expect(r.code, r.stderr).toBe(0);
    const after = filesLatin1(dir);
    expect(after).toEqual(before);
    expect(after["canvases/one_sales/canvas.yaml"]).toBe(canvasYaml);
    expect(r.stdout).toContain("canvases/one_sales/stats.py");
    expect(r.stdout).not.toContain("canvas.yaml");
    expect((await validateCommand({ dir, env })).exitCode).toBe(0);

    const unknown = await runImportInProcess(["udf.one_sales/stat", dir], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      "udf.one_sales/stat: no such object on the platform that the repository format can hold; did you mean udf.one_sales/stats?",
    );
  });

  it("WHEN a canvas is imported again with --force over files edited by hand THEN its canvas.yaml keeps its schema line and comments, and the report names each ${var.…} reference it replaces", async () => {
    await makeHandMade(fx.user, "force_", {});
    const dir = mkdtempSync(join(tmpdir(), "svc-import-force-"));
    const env = emulatorEnv(fx.emu);
    const select = { canvases: ["force_sales"], cronjobs: false, secrets: false, serviceAccounts: false };
    expect((await importCommand({ dir, env, select })).exitCode).toBe(0);
    writeFileSync(join(dir, "svc.yaml"), `${readFileSync(join(dir, "svc.yaml"), "utf8")}variables:\n  note: by hand\n`);
    const header = "# yaml-language-server: $schema=../../schemas/canvas.schema.json\n# Reviewed by hand.\n";
    writeFileSync(join(dir, "canvases/force_sales/canvas.yaml"), `${header}dashboard_body: \${var.note}\n`);

    const r = await runImportInProcess(["--canvas", "force_sales", "--force", dir], env);
    expect(r.code, r.stderr).toBe(0);
    const written = readFileSync(join(dir, "canvases/force_sales/canvas.yaml"), "utf8");
    expect(written.startsWith(header)).toBe(true);
    expect(written).not.toContain("${var.note}");
    expect((await validateCommand({ dir, env })).exitCode).toBe(0);
    expect(r.stdout).toContain(
      "canvases/force_sales/canvas.yaml: rewritten from the platform's values, so its ${var.note} is replaced by its value; put it back by hand",
    );
  });
});
