import { describe, expect, it } from "vitest";
import { renderDriftMarkdown } from "../../../src/reconcile/render/drift-markdown";
import { bigDrift, expectNoSecrets, sampleDrift } from "./fixtures";

const NOTE = "The drift report was shortened to fit";

describe("the drift report as Markdown", () => {
  it("shows counts by class and one section per class, with locations", () => {
    const out = renderDriftMarkdown(sampleDrift());
    expect(out).toMatchSnapshot();
    expect(out.startsWith("### Drift report: `sales-dashboards` (`prod`)\n")).toBe(true);
    expect(out).toContain("| Changed | 3 |\n| Missing | 1 |\n| Orphaned | 1 |\n| Unmanaged | 1 |\n| Pending | 1 |");
    expect(out).toContain('accessScope: "public" → "team"');
    expect(out).toContain("passcode: (secret changed, hmac-sha256:ab12ab12ab12 → hmac-sha256:cd34cd34cd34)");
    expect(out).toContain(
      "- `udf.sales/loader` (id `udf_loader`) — deleted on the platform out of band (`canvases/sales/loader.yaml:1`)",
    );
    expect(out).toContain("- `cronjob.nightly` (id `cron_9`) — exists on the platform, declared nowhere\n");
    expect(out).toContain(
      "#### Orphaned (1)\n\nIn the inventory, no longer in the repository, still on the platform: `svc-iac apply --prune` deletes them; to keep one, add it back to the repository.\n\n- `canvas.old_sales` (id `cv_old`) — removed from the repository, still on the platform\n",
    );
    expect(out).toContain("- `share.sales` — declared, never applied (`canvases/sales/canvas.yaml:6`)");
    expect(out).toContain("<code>canvas.reports</code> (id cv_reports) at <code>canvases/reports/canvas.yaml:1</code>");
    expect(out.indexOf("#### Changed")).toBeLessThan(out.indexOf("#### Missing"));
    expect(out.indexOf("#### Missing")).toBeLessThan(out.indexOf("#### Orphaned"));
    expect(out.indexOf("#### Orphaned")).toBeLessThan(out.indexOf("#### Unmanaged"));
    expect(out.indexOf("#### Unmanaged")).toBeLessThan(out.indexOf("#### Pending"));
  });

  it("folds into a changed object's details the diff of its text fields, with a fence longer than the code's backtick runs", () => {
    const out = renderDriftMarkdown(sampleDrift());
    const report = out.slice(out.indexOf("<details><summary><code>udf.sales/report</code>"));
    const details = report.slice(0, report.indexOf("</details>"));
    expect(details).toContain(" at <code>canvases/sales/report.py:1</code></summary>");
    // The code holds a ``` fence: the diff block's fence is longer.
    expect(details).toContain(
      '````diff\n--- code (platform)\n+++ code (repository)\n@@ -5,4 +5,4 @@\n     udf()\n     ```\n     """\n-    return 1\n+    return 2\n````\n',
    );
    expect(details).toContain(
      '```diff\n--- metadata (platform)\n+++ metadata (repository)\n@@ -1,3 +1,6 @@\n {\n-  "fused:description": "Weekly"\n+  "fused:description": "Weekly report",\n',
    );
  });

  it("names the commands that restore the repository's version or keep the platform's", () => {
    const out = renderDriftMarkdown(sampleDrift());
    expect(out).toContain(
      "To put the repository's version back on the platform: `svc-iac apply --target prod --only udf.sales/report`.\n\n" +
        "To keep the change made on the platform instead: `svc-iac import --target prod --keep udf.sales/report` (it writes only the fields that drifted), then review and commit the files it changes.\n",
    );
    // A secret's value cannot be imported: only the way back is named, and why there is no other.
    const secret = out.slice(out.indexOf("<details><summary><code>secret.MAPBOX_TOKEN</code>"));
    expect(secret.slice(0, secret.indexOf("</details>"))).not.toContain("svc-iac import");
    expect(secret.slice(0, secret.indexOf("</details>"))).toContain(
      "No command keeps the change made on the platform: a secret's value never leaves the platform.\n",
    );
  });

  it("drops the diffs before the details when the report is too long", () => {
    const drift = bigDrift(100);
    const full = renderDriftMarkdown(drift, { maxChars: 1_000_000 });
    const out = renderDriftMarkdown(drift, { maxChars: full.length - 100 });
    expect(out).toContain(NOTE);
    expect(out.match(/<details>/g)?.length).toBe(100);
    expect(out.match(/```diff/g)?.length).toBe(99);
  });

  it("never prints a secret value, even one planted in a secret field's from/to", () => {
    expectNoSecrets(renderDriftMarkdown(sampleDrift()));
  });

  it("says so when there is no drift", () => {
    const none = {
      ...sampleDrift(),
      drift: false,
      items: [],
      counts: { changed: 0, missing: 0, orphaned: 0, unmanaged: 0, pending: 0 },
    };
    expect(renderDriftMarkdown(none)).toBe("### Drift report: `sales-dashboards` (`prod`)\n\nNo drift.\n");
  });

  it("fits 5,000 drifted objects into the limit and says it was shortened", () => {
    const out = renderDriftMarkdown(bigDrift(5000));
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toContain(NOTE);
    expect(out).toContain("| Changed | 5,000 |");
  });

  it("keeps every object as a one-liner when the details do not all fit", () => {
    const drift = bigDrift(100);
    const bare = renderDriftMarkdown(
      { ...drift, items: drift.items.map((i) => ({ ...i, fields: i.fields.map(({ diff: _d, ...f }) => f) })) },
      { maxChars: 1_000_000 },
    );
    const out = renderDriftMarkdown(drift, { maxChars: bare.length - 100 });
    expect(out.length).toBeLessThanOrEqual(bare.length - 100);
    expect(out).not.toContain("```diff");
    expect(out).toContain(NOTE);
    for (const item of drift.items) expect(out).toContain(item.address);
  });

  it.each([0, 50, 300, 2_000])("never exceeds a limit of %i characters", (maxChars) => {
    expect(renderDriftMarkdown(bigDrift(200), { maxChars }).length).toBeLessThanOrEqual(maxChars);
  });
});
