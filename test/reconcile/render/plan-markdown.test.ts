import { describe, expect, it } from "vitest";
import { renderPlanMarkdown } from "../../../src/reconcile/render/plan-markdown";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { bigPlan, emptyPlan, expectNoSecrets, samplePlan } from "./fixtures";

/** `plan` as it would be without any diff. */
const withoutDiffs = (plan: Plan): Plan => ({
  ...plan,
  actions: plan.actions.map((a) => ({ ...a, fields: a.fields.map(({ diff: _d, ...f }) => f) })),
});

const NOTE = "The plan was shortened to fit";

describe("the plan as Markdown", () => {
  it("shows a table of counts and one folded block of field changes per changed object", () => {
    const out = renderPlanMarkdown(samplePlan());
    expect(out).toMatchSnapshot();
    expect(out).toContain("| Action | Count |\n| --- | ---: |\n| + create | 2 |\n| = adopt | 1 |\n| ~ update | 3 |");
    expect(out).toContain("<details><summary><code>canvas.reports</code> (id cv_reports) — 3 field changes</summary>");
    expect(out).toContain('accessScope: "team" → "public"');
    expect(out).toContain("passcode: (secret changed, hmac-sha256:ab12ab12ab12 → hmac-sha256:cd34cd34cd34)");
    expect(out).toContain("- `canvas.sales`\n");
    expect(out).toContain("**Apply will stop:**");
    expect(out).not.toContain(NOTE);
    // The changed lines of the UDF code, inside the object's details, in a diff block.
    const loader = out.slice(out.indexOf("<details><summary><code>udf.sales/loader</code>"));
    expect(loader.slice(0, loader.indexOf("</details>"))).toContain(
      "```diff\n--- code (platform)\n+++ code (repository)\n@@ -1,5 +1,7 @@\n import pandas as pd\n+import numpy as np\n",
    );
    expect(out).not.toContain("value (platform)");
    // Every <details> is closed.
    expect(out.match(/<details>/g)?.length).toBe(out.match(/<\/details>/g)?.length);
  });

  it("never prints a secret value", () => {
    expectNoSecrets(renderPlanMarkdown(samplePlan()));
  });

  it("says there are no changes", () => {
    expect(renderPlanMarkdown(emptyPlan())).toContain("No changes. The platform matches the repository.");
  });

  it("fits a plan of 5,000 actions into the default limit and says it was shortened", () => {
    const out = renderPlanMarkdown(bigPlan(5000));
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toContain(`${NOTE}; the full plan is in the job's artifacts.`);
    expect(out).toContain("| + create | 500 |");
    expect(out).toContain("| ~ update | 4,500 |");
  });

  it("drops diffs first: every object keeps its details, and diffs are added back in order while they fit", () => {
    const plan = bigPlan(200);
    const full = renderPlanMarkdown(plan, { maxChars: 1_000_000 });
    const bare = renderPlanMarkdown(withoutDiffs(plan), { maxChars: 1_000_000 });
    const maxChars = Math.floor((full.length + bare.length) / 2);
    const out = renderPlanMarkdown(plan, { maxChars });
    expect(out.length).toBeLessThanOrEqual(maxChars);
    expect(out).toContain(NOTE);
    const details = out.match(/<details>/g)?.length ?? 0;
    expect(details).toBe(180);
    const diffs = out.match(/```diff\n/g)?.length ?? 0;
    expect(diffs).toBeGreaterThan(0);
    expect(diffs).toBeLessThan(180);
    // Diffs go to the first objects, in document order.
    expect(out.indexOf("```diff")).toBeLessThan(out.indexOf("loader_0001</code>") + 1000);
  });

  it("keeps every object as a one-liner, and as many details as fit, when one-liners fit", () => {
    const plan = bigPlan(200);
    const bare = renderPlanMarkdown(withoutDiffs(plan), { maxChars: 1_000_000 });
    const maxChars = Math.floor(bare.length / 2);
    const out = renderPlanMarkdown(plan, { maxChars, detailsLink: "[the run's artifacts](https://example.com/run/1)" });
    expect(out.length).toBeLessThanOrEqual(maxChars);
    expect(out).toContain(`${NOTE}; the full plan is in [the run's artifacts](https://example.com/run/1).`);
    for (const a of plan.actions) expect(out).toContain(a.address);
    const details = out.match(/<details>/g)?.length ?? 0;
    expect(details).toBeGreaterThan(0);
    expect(details).toBeLessThan(180);
    expect(details).toBe(out.match(/<\/details>/g)?.length);
    expect(out).not.toContain("```diff");
  });

  it.each([0, 1, 10, 80, 200, 400, 1_000, 5_000, 20_000])("never exceeds a limit of %i characters", (maxChars) => {
    const out = renderPlanMarkdown(bigPlan(300), { maxChars });
    expect(out.length).toBeLessThanOrEqual(maxChars);
    if (maxChars >= 400) expect(out).toContain(NOTE);
  });

  it("keeps a value with backticks inside its code block", () => {
    const plan = samplePlan();
    plan.actions[3].fields[0] = { field: "accessScope", action: "update", secret: false, from: "```", to: "````x" };
    const out = renderPlanMarkdown(plan);
    expect(out).toContain('`````text\naccessScope: "```" → "````x"');
  });

  it("fences a diff of code holding backticks with a longer fence", () => {
    const plan = samplePlan();
    plan.actions[4].fields[0] = {
      ...plan.actions[4].fields[0]!,
      diff: "--- code (platform)\n+++ code (repository)\n@@ -1 +1 @@\n-x = '`'\n+x = '````'",
    };
    const out = renderPlanMarkdown(plan);
    expect(out).toContain(
      "`````diff\n--- code (platform)\n+++ code (repository)\n@@ -1 +1 @@\n-x = '`'\n+x = '````'\n`````\n",
    );
  });
});
