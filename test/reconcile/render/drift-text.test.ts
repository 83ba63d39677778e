import { describe, expect, it } from "vitest";
import { renderDriftMarkdown } from "../../../src/reconcile/render/drift-markdown";
import { renderDriftText } from "../../../src/reconcile/render/drift-text";
import { expectNoSecrets, sampleDrift } from "./fixtures";

describe("the drift report as plain text (a terminal, a log)", () => {
  it("has no Markdown: no tables, tags, fences or diagram; counts first, then each class that has objects", () => {
    const out = renderDriftText(sampleDrift());
    expect(out).not.toMatch(/\| --- |<details>|<\/?summary>|<sub>|```(diff|text|mermaid)|^#/m);
    expect(out.split("\n")[0]).toBe(
      "Drift in sales-dashboards (prod): 3 changed, 1 missing, 1 orphaned, 1 unmanaged, 1 pending.",
    );
    expect(out).toContain(
      "Changed (3): managed objects that differ from the repository (platform value → repository value).\n  ~ canvas.reports (id cv_reports) at canvases/reports/canvas.yaml:1\n",
    );
    expect(out).toContain('      accessScope: "public" → "team"\n');
    expect(out).toContain(
      "Missing (1): in the inventory, gone from the platform.\n  ! udf.sales/loader (id udf_loader) — deleted on the platform out of band at canvases/sales/loader.yaml:1\n",
    );
    expect(out).toContain(
      "Orphaned (1): in the inventory, no longer in the repository, still on the platform: svc-iac apply --prune deletes them",
    );
    expect(out).toContain("  ? cronjob.nightly (id cron_9) — exists on the platform, declared nowhere\n");
    expect(out).toContain("  + share.sales — declared, never applied at canvases/sales/canvas.yaml:6\n");
    expect(out.trimEnd().split("\n").at(-1)).toBe("Drift fingerprint: sha256:77aa88bb99cc");
  });

  it("shows a changed object's diffs and the commands that settle it, and secrets only as fingerprints", () => {
    const out = renderDriftText(sampleDrift());
    expect(out).toContain("      --- code (platform)\n      +++ code (repository)\n      @@ -5,4 +5,4 @@\n");
    expect(out).toContain("      -    return 1\n      +    return 2\n");
    expect(out).toContain(
      "      To put the repository's version back on the platform: svc-iac apply --target prod --only udf.sales/report\n",
    );
    expect(out).toContain(
      "      To keep the change made on the platform instead: svc-iac import --target prod --keep udf.sales/report (it writes only the fields that drifted), then review and commit the files it changes.\n",
    );
    expect(out).toContain(
      "      No command keeps the change made on the platform: a secret's value never leaves the platform.\n",
    );
    expect(out).toContain("passcode: (secret changed, hmac-sha256:ab12ab12ab12 → hmac-sha256:cd34cd34cd34)");
    expectNoSecrets(out);
  });

  it("says No drift when nothing differs, and colours only when asked", () => {
    expect(
      renderDriftText({
        ...sampleDrift(),
        drift: false,
        items: [],
        counts: { changed: 0, missing: 0, orphaned: 0, unmanaged: 0, pending: 0 },
      }),
    ).toBe("No drift. sales-dashboards (prod) matches the repository.\n");
    expect(renderDriftText(sampleDrift())).not.toContain("\x1b");
    expect(renderDriftText(sampleDrift(), { color: true })).toContain("\x1b[32m+\x1b[0m share.sales");
  });

  it("GIVEN no field drift but a mandatory rule the platform's canvas breaks THEN the text and the Markdown say so, above the rule's result", () => {
    const drift = {
      ...sampleDrift(),
      drift: false,
      items: [],
      counts: { changed: 0, missing: 0, orphaned: 0, unmanaged: 0, pending: 0 },
      policy: {
        origin: "policies.yaml",
        digest: "sha256:x",
        stage: "drift" as const,
        rules: 1,
        skipped: [],
        results: [
          {
            rule: "needs-passcode",
            severity: "mandatory" as const,
            address: "canvas.reports",
            message: "canvas.reports is public without a passcode",
            source: { file: "canvases/reports/canvas.yaml", line: 1, column: 1, path: "" },
            rule_source: { file: "policies.yaml", line: 2, column: 11, path: "rules[0].name" },
          },
        ],
        violations: 1,
        warnings: 0,
      },
    };
    expect(renderDriftText(drift)).toBe(
      "No drift in the objects' fields: sales-dashboards (prod) matches the repository, but the platform holds what a mandatory policy rule refuses.\n\n" +
        "  ✗ needs-passcode  canvas.reports (canvases/reports/canvas.yaml:1:1): canvas.reports is public without a passcode [policies.yaml:2]\n" +
        "Policy: 1 rule of policies.yaml checked, 1 mandatory not met, 0 advisory.\n",
    );
    const md = renderDriftMarkdown(drift);
    expect(md).toContain(
      "No drift in the objects' fields, but the platform holds what a mandatory policy rule refuses.\n\n#### Policy",
    );
    expect(md).toContain("| ✗ `needs-passcode` | mandatory | `canvas.reports`");
  });

  it("keeps escape sequences from the platform out of the terminal", () => {
    const drift = sampleDrift();
    drift.items[4] = { ...drift.items[4]!, id: "cv\x1b[2Jold" };
    expect(renderDriftText(drift)).toContain("canvas.old_sales (id cv\\x1b[2Jold)");
  });
});
