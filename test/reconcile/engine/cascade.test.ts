/** Cascade: a pruned canvas takes its UDFs with it on the platform; the plan lists them and never takes a hand-made one silently. */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { renderPlanText } from "../../../src/reconcile/render";
import { useEmulator } from "../../helpers/emulator";
import { appliedRepo, commandOptions, platformView } from "../../helpers/repo";
import { readValidSavedPlan } from "../../helpers/saved-plan";

function planOf(r: CommandResult): Plan {
  if ((r.command !== "plan" && r.command !== "apply") || !r.plan)
    throw new Error(`expected a plan, got ${JSON.stringify(r)}`);
  return r.plan;
}

describe("GIVEN an applied repository whose reports canvas holds a hand-made UDF run by a hand-made cronjob", () => {
  const fx = useEmulator();
  let dir: string;
  let byHand: string;
  let handCron: string;
  let reports: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    reports = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!.id;
    byHand = (
      await fx.user.udfs.create({
        collection_id: reports,
        slug: "by_hand",
        udf_type: "auto",
        udf_body: JSON.stringify({ name: "by_hand", code: "def udf():\n    return 1\n" }),
      })
    ).id;
    handCron = (
      await fx.user.cronjobs.create({
        name: "hand_nightly",
        enabled: true,
        minute: [0],
        hour: [3],
        day_of_month: [],
        month: [],
        day_of_week: [],
        udf: byHand,
      })
    ).id;
    // WHEN the canvas folder (and the cronjob running its UDF) leave the repository
    rmSync(join(dir, "canvases/reports"), { recursive: true });
    rmSync(join(dir, "cronjobs/weekly_report.yaml"));
  });

  it("WHEN planned with prune THEN the plan stops, naming the hand-made UDF and the cronjob it would break", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode).toBe(1);
    const plan = planOf(r);
    expect(plan.blocks.map((b) => b.rule)).toEqual(["cascade"]);
    const message = (r as { message?: string }).message!;
    expect(message).toContain(`udf.reports/by_hand (id ${byHand}, deleted with canvas.reports)`);
    expect(message).toContain(`cronjob.hand_nightly (id ${handCron}, left broken with udf.reports/by_hand)`);
    expect(message).toContain("--allow-cascade");
    expect(plan.cascade).toEqual([
      {
        address: "cronjob.hand_nightly",
        kind: "Cronjob",
        id: handCron,
        by: "udf.reports/by_hand",
        effect: "broken",
        managed: false,
      },
      {
        address: "udf.reports/by_hand",
        kind: "Udf",
        id: byHand,
        by: "canvas.reports",
        effect: "deleted",
        managed: false,
      },
    ]);
  });

  it("WHEN applied with prune THEN apply stops and nothing is deleted: the hand-made UDF survives", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode).toBe(1);
    expect((r as { message?: string }).message).toContain("udf.reports/by_hand");
    const view = await platformView(fx.user);
    expect(view.udfs.map((u) => u.id)).toContain(byHand);
    expect(view.canvases.map((c) => c.id)).toContain(reports);
  });

  it("WHEN planned and applied with --allow-cascade THEN the plan lists the hand-made UDF under the canvas delete, then it goes with the canvas", async () => {
    const planned = await planCommand(commandOptions(dir, fx.emu, { prune: true, allowCascade: true }));
    expect(planned.exitCode).toBe(0);
    const plan = planOf(planned);
    expect(plan.blocks).toEqual([]);
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual([
      "delete cronjob.weekly_report",
      "delete udf.reports/weekly",
      "delete canvas.reports",
    ]);
    const canvasDelete = plan.actions.find((a) => a.address === "canvas.reports")!;
    expect(canvasDelete.notes).toEqual([
      `leaves cronjob.hand_nightly (id ${handCron}, not managed by this project) broken: the UDF it runs is deleted, so it stays scheduled and every run fails`,
      `also deletes udf.reports/by_hand (id ${byHand}, not managed by this project): the platform deletes a canvas's UDFs with it`,
    ]);
    const text = renderPlanText(plan);
    expect(text.indexOf("udf.reports/by_hand")).toBeGreaterThan(text.indexOf("delete   canvas.reports"));

    // Saved, the plan keeps --allow-cascade and its cascade list (valid against the published schema), and apply --plan runs exactly it.
    const file = join(dir, "..", "cascade-plan.json");
    expect(
      (await planCommand(commandOptions(dir, fx.emu, { prune: true, allowCascade: true, planOut: file }))).exitCode,
    ).toBe(0);
    const saved = readValidSavedPlan(file);
    expect(saved.options.allow_cascade).toBe(true);
    expect(saved.plan.cascade!.map((o) => o.address)).toEqual(["cronjob.hand_nightly", "udf.reports/by_hand"]);

    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file }));
    expect(r.exitCode).toBe(0);
    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.id)).not.toContain(reports);
    expect(view.udfs.map((u) => u.id)).not.toContain(byHand);
    // Not the project's: left in place, as the plan said.
    expect(view.cronjobs.map((c) => c.id)).toContain(handCron);
  });
});

describe("GIVEN an applied repository and a hand-made cronjob running one of its UDFs (listings/stats, also run by the managed daily-stats)", () => {
  const fx = useEmulator();
  let dir: string;
  let stats: string;
  let handCron: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    stats = (await platformView(fx.user)).udfs.find((u) => u.slug === "stats")!.id;
    handCron = (
      await fx.user.cronjobs.create({
        name: "hand_stats",
        enabled: true,
        minute: [15],
        hour: [4],
        day_of_month: [],
        month: [],
        day_of_week: [],
        udf: stats,
      })
    ).id;
  });

  const expectUntouched = async () => {
    const view = await platformView(fx.user);
    expect(view.udfs.map((u) => u.id)).toContain(stats);
    expect(view.cronjobs.find((c) => c.id === handCron)).toMatchObject({ udf: stats });
  };

  it("WHEN planned and applied with --replace udf.listings/stats THEN both stop, listing the hand-made cronjob as left broken by the replacement, and nothing changes", async () => {
    const planned = await planCommand(commandOptions(dir, fx.emu, { replace: ["udf.listings/stats"] }));
    expect(planned.exitCode).toBe(1);
    const plan = planOf(planned);
    expect(plan.blocks.map((b) => b.rule)).toEqual(["cascade"]);
    expect(plan.cascade).toEqual([
      {
        address: "cronjob.hand_stats",
        kind: "Cronjob",
        id: handCron,
        by: "udf.listings/stats",
        effect: "broken",
        managed: false,
      },
    ]);
    const message = (planned as { message?: string }).message!;
    expect(message).toContain(
      `cronjob.hand_stats (id ${handCron}, left broken with udf.listings/stats, which is replaced: its old id is deleted)`,
    );
    expect(message).toContain("--allow-cascade");
    // The managed cronjob running the same UDF follows the new id: it is no cascade entry.
    expect(plan.cascade!.map((o) => o.address)).not.toContain("cronjob.daily-stats");
    expect(plan.actions.find((a) => a.address === "udf.listings/stats")!.notes).toContain(
      `leaves cronjob.hand_stats (id ${handCron}, not managed by this project) broken: the UDF it runs is deleted, so it stays scheduled and every run fails`,
    );

    const applied = await applyCommand(commandOptions(dir, fx.emu, { replace: ["udf.listings/stats"] }));
    expect(applied.exitCode).toBe(1);
    expect((applied as { message?: string }).message).toContain("cronjob.hand_stats");
    await expectUntouched();
  });

  it("WHEN a change forces the replacement (shared_token: true) THEN plan and apply stop the same way, and nothing changes", async () => {
    writeFileSync(join(dir, "canvases/listings/stats.yaml"), "shared_token: true\n");
    try {
      const planned = await planCommand(commandOptions(dir, fx.emu));
      expect(planned.exitCode).toBe(1);
      const plan = planOf(planned);
      expect(plan.actions.find((a) => a.address === "udf.listings/stats")!.action).toBe("replace");
      expect(plan.blocks.map((b) => b.rule)).toEqual(["cascade"]);
      expect(plan.cascade!.map((o) => `${o.address} ${o.effect} by ${o.by}`)).toEqual([
        "cronjob.hand_stats broken by udf.listings/stats",
      ]);
      const applied = await applyCommand(commandOptions(dir, fx.emu));
      expect(applied.exitCode).toBe(1);
      await expectUntouched();
    } finally {
      rmSync(join(dir, "canvases/listings/stats.yaml"));
    }
  });

  it("WHEN replaced with --allow-cascade THEN the UDF gets a new id, the managed cronjob follows it, and the hand-made one is left as the plan said", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { replace: ["udf.listings/stats"], allowCascade: true }));
    expect(r.exitCode, JSON.stringify((r as { message?: string }).message)).toBe(0);
    const view = await platformView(fx.user);
    const fresh = view.udfs.find((u) => u.slug === "stats")!.id;
    expect(fresh).not.toBe(stats);
    expect(view.cronjobs.find((c) => c.name.endsWith("daily-stats"))).toMatchObject({ udf: fresh });
    expect(view.cronjobs.find((c) => c.id === handCron)).toMatchObject({ udf: stats });
  });
});
