/** Orphaned drift: objects that left the repository while prune is off are drift (what prune would delete) until `apply --prune` deletes them. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { DriftReport } from "../../../src/reconcile/plan/plan-model";
import { runInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, platformView } from "../../helpers/repo";
import { applyCommand } from "../../../src/reconcile/commands";

const cli = (command: "drift" | "apply" | "plan", argv: string[], env: Record<string, string>) =>
  runInProcess(command, argv, env);

describe("GIVEN an applied repository from which the canvas `reports` (and the cronjob running its UDF) is dropped, prune off", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const ORPHANS = ["canvas.reports", "cronjob.weekly_report", "udf.reports/weekly"];

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    env = emulatorEnv(fx.emu);
    const r = await applyCommand(commandOptions(dir, fx.emu));
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
    rmSync(join(dir, "canvases", "reports"), { recursive: true });
    rmSync(join(dir, "cronjobs", "weekly_report.yaml"));
  });

  it("WHEN drift runs THEN it exits 2 and reports the canvas, its UDF and the cronjob as orphaned, in JSON and in Markdown with the hint", async () => {
    const json = await cli("drift", [dir, "--format", "json"], env);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as DriftReport;
    expect(report.items.filter((i) => i.class === "orphaned").map((i) => i.address)).toEqual(ORPHANS);
    expect(report.items.every((i) => i.class === "orphaned")).toBe(true);
    expect(report.counts).toEqual({ changed: 0, missing: 0, orphaned: 3, unmanaged: 0, pending: 0 });
    const reports = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!;
    expect(report.items[0]).toMatchObject({ address: "canvas.reports", kind: "Canvas", id: reports.id });

    const md = await cli("drift", [dir, "--format", "md"], env);
    expect(md.code).toBe(2);
    expect(md.stdout).toContain("| Orphaned | 3 |");
    expect(md.stdout).toContain("#### Orphaned (3)");
    expect(md.stdout).toContain("`svc-iac apply --prune` deletes them; to keep one, add it back to the repository.");
    expect(md.stdout).toContain(
      `- \`canvas.reports\` (id \`${reports.id}\`) — removed from the repository, still on the platform\n`,
    );
  });

  it("WHEN the drift set gains an orphan THEN the fingerprint changes", async () => {
    const before = JSON.parse((await cli("drift", [dir, "--format", "json"], env)).stdout) as DriftReport;
    rmSync(join(dir, "cronjobs", "daily-stats.yaml"));
    const after = JSON.parse((await cli("drift", [dir, "--format", "json"], env)).stdout) as DriftReport;
    expect(after.items.filter((i) => i.class === "orphaned").map((i) => i.address)).toContain("cronjob.daily-stats");
    expect(after.fingerprint).not.toBe(before.fingerprint);
  });

  it("WHEN apply --prune runs THEN the orphans are deleted and drift exits 0 with no orphan", async () => {
    const apply = await cli("apply", [dir, "--prune", "--auto-approve"], env);
    expect(apply.stderr).not.toMatch(/failed/);
    expect(apply.code).toBe(0);
    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.name)).not.toContain("reports");
    const drift = await cli("drift", [dir, "--format", "json"], env);
    expect(drift.code).toBe(0);
    const report = JSON.parse(drift.stdout) as DriftReport;
    expect(report).toMatchObject({ drift: false, items: [] });
    expect(report.counts.orphaned).toBe(0);
  });
});
