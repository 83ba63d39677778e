/**
 * `svc-iac rollback --to N`: the platform back to its state after deployment N, through the plan
 * and apply's guards: a shared UDF keeps its id and shared token, objects made since are deleted,
 * secrets come from the repository, and the rollback is recorded as a deployment of its own.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { historyCommand } from "../../../src/reconcile/commands/history";
import { runSvc } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { git, gitRepo } from "../../helpers/git-repo";
import { commandOptions, emulatorEnv, FIXTURE_SECRETS, outputsFileOf, platformView } from "../../helpers/repo";

const LOADER = "canvases/listings/loader.py";

function setLoader(dir: string, n: number): void {
  const file = join(dir, LOADER);
  writeFileSync(file, `${readFileSync(file, "utf8").replace(/\n# version \d+\n$/, "")}\n# version ${n}\n`);
  git(dir, "commit", "-qam", `version ${n}`);
}

async function udf(fx: ReturnType<typeof useEmulator>, slug: string) {
  return (await platformView(fx.user)).udfs.find((u) => u.slug === slug);
}

const rollback = (dir: string, fx: ReturnType<typeof useEmulator>, ...args: string[]) =>
  runSvc(["rollback", dir, "--auto-approve", "--outputs", outputsFileOf(dir), ...args], emulatorEnv(fx.emu));

describe("GIVEN a shared UDF changed by three applies", () => {
  const fx = useEmulator();

  it("THEN rollback --to 1 puts the first body back under the same id and shared token, records a rollback, and says how to keep it", async () => {
    const dir = gitRepo();
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const first = (await udf(fx, "loader"))!;
    const token = (): string | undefined =>
      JSON.parse(readFileSync(outputsFileOf(dir), "utf8")).tokens["udf.listings/loader"]?.token;
    const shared = token();
    expect(shared).toBeTruthy();
    for (const n of [2, 3]) {
      setLoader(dir, n);
      expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    }
    expect((await udf(fx, "loader"))!.udf_body).toContain("# version 3");

    const r = await rollback(dir, fx, "--to", "1");
    expect(r.code, r.stderr).toBe(0);
    const back = (await udf(fx, "loader"))!;
    // Updated in place: the same record, its shared token not minted again.
    expect({ id: back.id, body: back.udf_body, token: token() }).toEqual({
      id: first.id,
      body: first.udf_body,
      token: shared,
    });
    expect(r.stdout).toContain("udf.listings/loader");
    expect(r.stdout).toContain("Rollback complete");
    expect(r.stderr).toContain("The platform is back at deployment 1");
    expect(r.stderr).toContain("--keep udf.listings/loader");
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(r.stdout + r.stderr).not.toContain(secret);

    const listed = await historyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(listed.report?.deployments.map((d) => [d.id, d.action, d.rollbackOf ?? null])).toEqual([
      ["4", "rollback", "1"],
      ["3", "apply", null],
      ["2", "apply", null],
      ["1", "apply", null],
    ]);
    expect(listed.report?.deployments[0]?.objects).toEqual([{ address: "udf.listings/loader", action: "update" }]);
    // The repository still says version 3: the next plan would put it back.
    const plan = await planCommand(commandOptions(dir, fx.emu));
    expect(plan.command === "plan" && plan.plan?.actions.map((a) => [a.address, a.action])).toEqual([
      ["udf.listings/loader", "update"],
    ]);
  });
});

describe("GIVEN a rollback of one address, a rollback a guard stops, and bad requests", () => {
  const fx = useEmulator();

  it("THEN only that address goes back; an object made since and protected stops the whole rollback; no terminal, no --to or an unknown id change nothing", async () => {
    const dir = gitRepo();
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    setLoader(dir, 2);
    writeFileSync(join(dir, "canvases/listings/stats.py"), "@fused.udf\ndef udf():\n    return 2\n");
    writeFileSync(join(dir, "canvases/listings/extra.py"), "@fused.udf\ndef udf():\n    return 3\n");
    writeFileSync(join(dir, "canvases/listings/extra.yaml"), "protect: true\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "two");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const stats = (await udf(fx, "stats"))!.udf_body;

    // The whole deployment back would delete extra, which is protected: stopped, nothing changed.
    const stopped = await rollback(dir, fx, "--to", "1");
    expect(stopped.code).toBe(1);
    expect(stopped.stdout + stopped.stderr).toMatch(/udf\.listings\/extra[\s\S]*protect/);
    expect((await udf(fx, "loader"))!.udf_body).toContain("# version 2");
    expect(await udf(fx, "extra")).toBeDefined();

    // One address: only it goes back.
    const one = await rollback(dir, fx, "--to", "1", "udf.listings/loader");
    expect(one.code, one.stderr).toBe(0);
    expect((await udf(fx, "loader"))!.udf_body).not.toContain("# version 2");
    expect((await udf(fx, "stats"))!.udf_body).toBe(stats);
    expect(await udf(fx, "extra")).toBeDefined();

    const noTerminal = await runSvc(["rollback", dir, "--to", "1"], emulatorEnv(fx.emu));
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toContain("rollback needs --auto-approve when it cannot ask for confirmation");
    const noTo = await runSvc(["rollback", dir, "--auto-approve"], emulatorEnv(fx.emu));
    expect(noTo.code).toBe(1);
    expect(noTo.stderr).toContain("rollback needs --to DEPLOYMENT");
    const unknown = await rollback(dir, fx, "--to", "9", "--json");
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).message).toContain(
      "There is no deployment 9 in the history of listings (default): it keeps 1, 2, 3",
    );

    // Unprotected, the whole deployment goes back: the UDF made since is deleted, and the hint names its file.
    writeFileSync(join(dir, "canvases/listings/extra.yaml"), "protect: false\n");
    git(dir, "commit", "-qam", "unprotect");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const whole = await rollback(dir, fx, "--to", "1");
    expect(whole.code, whole.stderr).toBe(0);
    expect(await udf(fx, "extra")).toBeUndefined();
    expect((await udf(fx, "stats"))!.udf_body).toContain("return 42");
    expect((await udf(fx, "loader"))!.udf_body).not.toContain("# version 2");
    expect(whole.stderr).toContain("--keep udf.listings/loader --keep udf.listings/stats");
    expect(whole.stderr).not.toContain("--keep udf.listings/extra");
    expect(whole.stderr).toContain(
      "The rollback deleted what was made after deployment 1; to keep that, remove their declarations: udf.listings/extra (canvases/listings/extra.py)",
    );
  });
});
