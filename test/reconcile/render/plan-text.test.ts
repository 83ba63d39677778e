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

  it("shows the changed lines of UDF code as a diff from the platform to the repository, under the object", () => {
    const lines = renderPlanText(samplePlan()).split("\n");
    const at = lines.indexOf("  ~ update   udf.sales/loader (id udf_loader)");
    expect(lines.slice(at + 3, at + 14)).toEqual([
      "      --- code (platform)",
      "      +++ code (repository)",
      "      @@ -1,5 +1,7 @@",
      "       import pandas as pd",
      "      +import numpy as np",
      "       ",
      "       def udf(bbox):",
      "      -    df = pd.read_csv('sales.csv')",
      "      +    df = pd.read_parquet('sales.parquet')",
      "      +    df['x'] = np.log(df.v)",
      "           return df",
    ]);
  });

  it("colours added lines green, removed lines red and hunk headers cyan when asked", () => {
    const colored = renderPlanText(samplePlan(), { color: true });
    expect(colored).toContain("      \x1b[32m+import numpy as np\x1b[0m");
    expect(colored).toContain("      \x1b[31m-    df = pd.read_csv('sales.csv')\x1b[0m");
    expect(colored).toContain("      \x1b[36m@@ -1,5 +1,7 @@\x1b[0m");
  });

  it("shows no diff of a secret field, even one planted there", () => {
    const out = renderPlanText(samplePlan());
    expect(out).not.toContain("value (platform)");
    expect(out).toContain(
      "      value: (secret changed, hmac-sha256:0a1b2c3d4e5f → hmac-sha256:9f8e7d6c5b4a)\n  + create",
    );
  });

  it("keeps escape sequences in code away from the terminal", () => {
    const plan = samplePlan();
    plan.actions[4].fields[0] = {
      ...plan.actions[4].fields[0]!,
      diff: "--- code (platform)\n+++ code (repository)\n@@ -1 +1 @@\n-x\n+\x1b]0;owned\x07y",
    };
    const out = renderPlanText(plan, { color: true });
    expect(out).toContain("+\\x1b]0;owned\\x07y");
    expect(out).not.toContain("\x1b]");
  });

  it("never prints a secret value, even one planted in a secret field's from/to", () => {
    expectNoSecrets(renderPlanText(samplePlan()));
    expectNoSecrets(renderPlanText(samplePlan(), { color: true }));
  });

  it("says there is nothing to do when the platform matches", () => {
    expect(renderPlanText(emptyPlan())).toBe(
      "Plan for sales-dashboards (default)\n\nNo changes. The platform matches the repository.\n",
    );
  });

  it("WHEN a canvas folder of 1,000 UDFs was deleted and prune is off THEN the kept objects are listed up to 20, and the summary does not say the platform matches", () => {
    const orphans = Array.from({ length: 1000 }, (_, i) => ({
      address: `udf.big/u${String(i).padStart(4, "0")}`,
      kind: "Udf" as const,
      id: `id_${i}`,
    }));
    const out = renderPlanText({ ...emptyPlan(), orphans });
    expect(out).toContain("  udf.big/u0019 (id id_19)\n  … and 980 more (svc-iac plan --json lists every one)\n");
    expect(out).not.toContain("udf.big/u0020");
    expect(out.split("\n").length).toBeLessThan(30);
    expect(out.trimEnd().split("\n").at(-1)).toBe(
      "No changes. 1,000 objects that left the repository are kept on the platform (prune is off).",
    );
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
