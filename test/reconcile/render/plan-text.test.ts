import { describe, expect, it } from "vitest";
import { renderPlanText } from "../../../src/reconcile/render/plan-text";
import { emptyPlan, expectNoSecrets, samplePlan } from "./fixtures";

const ANSI = /\x1b\[[0-9;]*m/g;

describe("the plan for a terminal", () => {
  it("lists each action with its marker, reason, field changes and notes, then a summary", () => {
    // GIVEN a plan touching every kind of object WHEN it is rendered without colors
    const out = renderPlanText(samplePlan());
    // THEN it reads like terraform's plan
    expect(out).toMatchSnapshot();
    const lines = out.split("\n");
    expect(lines[0]).toBe("Plan for sales-dashboards (staging)");
    expect(lines).toContain("  + create   canvas.sales");
    expect(lines).toContain("  ~ update   canvas.reports (id cv_reports)");
    expect(lines).toContain('      accessScope: "team" → "public"');
    expect(lines).toContain("      passcode: (secret changed, hmac-sha256:ab12ab12ab12 → hmac-sha256:cd34cd34cd34)");
    expect(lines).toContain("      code: changed (+3 −1 lines)");
    expect(lines).toContain("-/+ replace  udf.sales/stats (id udf_stats)");
    expect(lines).toContain("  ⟳ rotate   share.sales (id sh_sales)");
    expect(lines).toContain("      # rotate_every 30d elapsed (last rotation 2026-10-01)");
    expect(lines).toContain("      ! session tokens minted for the old token stop working");
    expect(lines).toContain("  - delete   cronjob.daily (id cron_7)");
    expect(out).toContain("Kept, prune is off — run with --prune to delete:\n  canvas.old_sales (id cv_old)");
    expect(out).toContain("Not managed by this project (left alone):\n  bucket_policy.demo-bucket (id demo-bucket)");
    expect(out).toContain("Apply will stop: the plan deletes 1 object");
    expect(lines.at(-2)).toBe("Plan: 2 to create, 1 to adopt, 3 to update, 1 to replace, 1 to delete, 1 to rotate.");
    expect(out.endsWith("\n")).toBe(true);
  });

  it("does not print the UDF code, only how many lines changed", () => {
    const out = renderPlanText(samplePlan());
    expect(out).not.toContain("read_parquet");
    expect(out).not.toContain("import pandas");
  });

  it("never prints a secret value, even one planted in a secret field's from/to", () => {
    expectNoSecrets(renderPlanText(samplePlan()));
    expectNoSecrets(renderPlanText(samplePlan(), { color: true }));
  });

  it("says there is nothing to do when the platform matches", () => {
    expect(renderPlanText(emptyPlan())).toBe("Plan for sales-dashboards (default)\n\nNo changes. The platform matches the repository.\n");
  });

  it("uses ANSI colors only when asked, and the same text either way", () => {
    const plain = renderPlanText(samplePlan());
    const colored = renderPlanText(samplePlan(), { color: true });
    expect(plain).not.toMatch(ANSI);
    expect(colored).toContain("\x1b[32m  + create");
    expect(colored).toContain("\x1b[31m-/+ replace");
    expect(colored.replace(ANSI, "")).toBe(plain);
  });

  it("is deterministic: equal plans, equal text, whatever the key order of values", () => {
    const a = samplePlan();
    const b = samplePlan();
    b.actions[3].fields[2] = { ...b.actions[3].fields[2], to: { layout: "grid", tiles: [1, 2, 3] } };
    expect(renderPlanText(a)).toBe(renderPlanText(b));
  });

  it("keeps escape sequences in messages away from the terminal", () => {
    const plan = samplePlan();
    plan.warnings = ["bad \x1b[2J clear"];
    expect(renderPlanText(plan)).not.toContain("\x1b");
  });
});
