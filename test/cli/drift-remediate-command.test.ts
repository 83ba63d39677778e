/**
 * `svc-iac drift --remediate` on the command line: the text and JSON reports, exit codes 0 (no
 * drift remains), 1 (a guard stopped the restore: nothing of it applied) and the usage error of
 * `--force-restore` without `--remediate`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand } from "../../src/reconcile/commands";
import { runSvc } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, FIXTURE_SECRETS, platformView } from "../helpers/repo";

describe("GIVEN an applied repository whose project sets on_drift: restore", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    writeFileSync(join(dir, "svc.yaml"), `${readFileSync(join(dir, "svc.yaml"), "utf8")}on_drift: restore\n`);
    const r = await applyCommand(commandOptions(dir, fx.emu));
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  });

  async function editReports(body: string) {
    const c = (await platformView(fx.user)).canvases.find((x) => x.name === "reports")!;
    await fx.user.canvases.update(c.id, {
      name: "reports",
      access_scope: c.access_scope,
      allow_public_read: c.allow_public_read,
      dashboard_body: body,
    } as never);
  }

  it("WHEN --force-restore is given without --remediate THEN it is a usage error and nothing runs", async () => {
    const r = await runSvc(["drift", dir, "--force-restore", "canvas.reports"], emulatorEnv(fx.emu));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--force-restore takes effect with --remediate");
  });

  it("WHEN a canvas is changed by hand THEN drift --remediate restores it, says so, and exits 0: no drift remains", async () => {
    await editReports("Edited by hand");
    const r = await runSvc(["drift", dir, "--remediate"], emulatorEnv(fx.emu));
    expect(r.stdout).toContain("Drift in listings (default), remediated: 1 restored, 0 kept, 0 reported, 0 contested.");
    expect(r.stdout).toContain("Restored (1): the repository's version applied back to the platform.");
    expect(r.stdout).toContain("  canvas.reports (dashboardBody): the repository's version applied back");
    expect(r.stdout).toContain("on_drift: restore (on_drift in svc.yaml)");
    expect(r.stdout).toContain("No drift remains.");
    expect(r.code).toBe(0);
    const again = await runSvc(["drift", dir, "--remediate"], emulatorEnv(fx.emu));
    expect(again.stdout).toBe("No drift. listings (default) matches the repository.\n");
    expect(again.code).toBe(0);
  });

  it("WHEN a restore needs a new token with nowhere to go THEN the guard stops the whole restore (nothing applied), the JSON says why, and it exits 1", async () => {
    await editReports("Edited by hand again");
    const sa = (await platformView(fx.user)).serviceAccounts.find((s) => s.name.startsWith("reader"))!;
    await fx.user.environment.deleteServiceAccount(sa.id);
    const r = await runSvc(["drift", dir, "--remediate", "--json"], emulatorEnv(fx.emu));
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as Record<string, { address: string; detail: string }[]>;
    expect(Object.keys(doc).sort()).toEqual(
      ["version", "project", "target", "restored", "kept", "reported", "contested", "remaining"].sort(),
    );
    expect(doc.restored).toEqual([]);
    expect(doc.reported!.map((e) => e.address)).toEqual(["canvas.reports", "service_account.reader"]);
    expect(doc.reported![0]!.detail).toContain("not restored:");
    expect(doc.reported![0]!.detail).toContain("--outputs");
    expect(r.stderr).toContain("Nothing was restored:");
    const reports = (await platformView(fx.user)).canvases.find((x) => x.name === "reports")!;
    expect(reports.dashboard_body).toBe("Edited by hand again");
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(r.stdout + r.stderr).not.toContain(secret);
  });
});
