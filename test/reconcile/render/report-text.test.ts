import { describe, expect, it } from "vitest";
import { renderApplyReportText } from "../../../src/reconcile/render/report-text";
import { expectNoSecrets, sampleReport, SECRETS } from "./fixtures";

describe("the apply report for a terminal", () => {
  it("shows one line per result and a verdict naming the failure", () => {
    const out = renderApplyReportText(sampleReport(false));
    expect(out).toMatchInlineSnapshot(`
      "✓ created service_account.ci (id sa_1)
      ✓ created canvas.sales (id cv_sales)
      ✓ updated udf.sales/loader (id udf_loader)
      ✗ failed to create udf.sales/x: 409 Conflict: a UDF with slug x already exists
      - skipped share.sales (share): udf.sales/x failed
      token of service_account.ci written to outputs file .svc-iac/outputs.json, GitHub secret SVC_SERVICE_ACCOUNT_CI_TOKEN
      Apply failed: 3 done, 1 failed, 1 skipped.
      "
    `);
  });

  it("ends with a completion line when everything was done", () => {
    const out = renderApplyReportText(sampleReport(true));
    expect(out.trimEnd().split("\n").at(-1)).toBe("Apply complete: 3 done, 0 failed, 0 skipped.");
    expect(out).not.toContain("✗");
  });

  it("says where a new token went, never the token", () => {
    const report = sampleReport(true);
    // A report never carries the token, but a careless caller might pass a published entry with it in a field.
    const out = renderApplyReportText({
      ...report,
      published: [{ address: "service_account.ci", to: [".svc-iac/outputs.json"], token: SECRETS.token } as never],
    });
    expect(out).toContain("token of service_account.ci written to .svc-iac/outputs.json");
    expectNoSecrets(out);
  });

  it("indents the further lines of a multi-line failure message and strips escape sequences", () => {
    const report = sampleReport(false);
    report.results[3] = { ...report.results[3], message: "first line\nsecond \x1b[31mline" };
    const out = renderApplyReportText(report);
    expect(out).toContain("✗ failed to create udf.sales/x: first line\n    second \\x1b[31mline");
    expect(out).not.toContain("\x1b");
  });
});

describe("GIVEN an apply of 1,000 UDFs interrupted after 3 of them", () => {
  const udfs = Array.from({ length: 1000 }, (_, i) => `udf.big/u${String(i).padStart(4, "0")}`);
  const report = {
    ok: false,
    counts: { done: 3, failed: 0, skipped: 997 },
    published: [],
    results: udfs.map((address, i) => ({
      address,
      kind: "Udf" as const,
      action: "create" as const,
      ...(i < 3
        ? { status: "done" as const, id: `id_${i}` }
        : { status: "skipped" as const, message: "interrupted (SIGINT)" }),
    })),
  } as unknown as Parameters<typeof renderApplyReportText>[0];
  const plan = {
    actions: udfs.map((address) => ({ address, kind: "Udf", action: "create", references: ["canvas.big"] })),
  } as never;

  it("WHEN the report is grouped THEN the steps not started are one line with their reason, not one line each", () => {
    const out = renderApplyReportText(report, { bulk: { plan, hint: "--verbose lists every object" } });
    expect(out).toContain("- skipped 997 UDFs on canvas.big (u0003 … u0999) (create): interrupted (SIGINT)\n");
    expect(out.split("\n").length).toBeLessThan(10);
  });
});
