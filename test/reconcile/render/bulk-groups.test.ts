import { describe, expect, it } from "vitest";
import { renderApplyReportText } from "../../../src/reconcile/render/report-text";
import { renderPlanText } from "../../../src/reconcile/render/plan-text";
import type { ApplyReport } from "../../../src/reconcile/plan/plan-model";
import { bulkPlan, samplePlan } from "./fixtures";

const BULK = { actions: ["create"] as const, hint: "--verbose lists every object" };

function reportOf(plan: ReturnType<typeof bulkPlan>, failed: string[] = []): ApplyReport {
  const results = plan.actions.map((a) => ({
    address: a.address,
    kind: a.kind,
    action: a.action,
    ...(failed.includes(a.address)
      ? { status: "failed" as const, message: "500 Internal Server Error" }
      : { status: "done" as const, id: `id_${a.address}` }),
  }));
  return {
    version: 1,
    project: plan.project,
    target: plan.target,
    ok: failed.length === 0,
    results,
    counts: { done: results.length - failed.length, failed: failed.length, skipped: 0 },
    published: [],
  };
}

describe("GIVEN a first apply of 20 canvases of 100 UDFs, shown by apply (bulk creates grouped)", () => {
  const plan = bulkPlan(20, 100);

  it("THEN the plan shows one line per canvas with the range of its UDFs, keeps the update's diff, and says how to see each object", () => {
    const out = renderPlanText(plan, { bulk: BULK });
    const lines = out.split("\n");
    expect(lines).toContain("  + create   canvas.c00 and its 100 UDFs (u00000 … u00099)");
    expect(lines).toContain("  + create   canvas.c19 and its 100 UDFs (u01900 … u01999)");
    expect(lines.filter((l) => l.includes("+ create"))).toHaveLength(22);
    // Two secrets are too few to group.
    expect(lines).toContain("  + create   secret.A");
    expect(lines).toContain("  ~ update   udf.reports/loader (id udf_loader)");
    expect(out).toContain("      --- code (platform)\n      +++ code (repository)\n");
    expect(out).toContain("2,020 objects shown in groups; --verbose lists every object.\n");
    expect(out).not.toContain('slug: "u00042"');
    expect(lines.at(-2)).toBe("Plan: 2,022 to create, 1 to update.");
    expect(lines.length).toBeLessThan(50);
  });

  it("THEN without bulk (plan, apply --verbose) every object is listed with its attributes, as before", () => {
    const out = renderPlanText(plan);
    expect(out).toContain('  + create   udf.c07/u00742\n      slug: "u00742"\n');
    expect(out).not.toContain("shown in groups");
  });

  it("THEN the report groups what was done by canvas and keeps each failure on its own line", () => {
    const out = renderApplyReportText(reportOf(plan, ["udf.c03/u00317"]), { bulk: { plan, hint: BULK.hint } });
    const lines = out.trimEnd().split("\n");
    expect(lines).toContain("✓ created canvas.c00 and its 100 UDFs (u00000 … u00099)");
    expect(lines).toContain("✓ created canvas.c03 and its 99 UDFs (u00300 … u00399)");
    expect(lines).toContain("✗ failed to create udf.c03/u00317: 500 Internal Server Error");
    expect(lines).toContain("✓ created secret.A (id id_secret.A)");
    expect(lines).toContain("✓ updated udf.reports/loader (id id_udf.reports/loader)");
    expect(lines.at(-1)).toBe("Apply failed: 2022 done, 1 failed, 0 skipped.");
    expect(lines.length).toBeLessThan(30);
    // Without bulk: a line per object.
    expect(renderApplyReportText(reportOf(plan)).trimEnd().split("\n")).toHaveLength(2024);
  });

  it("THEN UDFs created on a canvas that exists already are named with the canvas, and a plan with few objects looks as it always did", () => {
    const onExisting = { ...plan, actions: plan.actions.filter((a) => a.kind !== "Canvas") };
    expect(renderPlanText(onExisting, { bulk: BULK })).toContain(
      "  + create   100 UDFs on canvas.c04 (u00400 … u00499)\n",
    );
    expect(renderPlanText(samplePlan(), { bulk: BULK })).toBe(renderPlanText(samplePlan()));
  });

  it("THEN destroy groups deletions the same way", () => {
    const destroy = {
      ...plan,
      actions: plan.actions
        .map((a) => ({ ...a, action: "delete" as const, fields: [], id: `id_${a.address}` }))
        .reverse(),
    };
    const out = renderPlanText(destroy, { command: "Destroy", bulk: { actions: ["delete"], hint: BULK.hint } });
    expect(out).toContain("  - delete   canvas.c00 and its 100 UDFs (u00000 … u00099)\n");
    expect(out).toContain("  - delete   udf.reports/loader (id id_udf.reports/loader)\n");
  });
});
