/** A target's name_prefix / name_suffix: platform names change, addresses and references do not, and an invalid result is an error at the affix. */
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRepository } from "../../../src/reconcile/load";
import type { LoadResult } from "../../../src/model/desired";
import { copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";

const PREVIEW = `  preview:
    name_prefix: pr_\${env.PR_NUMBER}_
    state: .svc-iac/state/pr-\${env.PR_NUMBER}
`;

function withTarget(text: string): string {
  const dir = copyRepo("valid-full");
  appendFileSync(join(dir, "svc.yaml"), text);
  return dir;
}

const namesOf = (r: LoadResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return Object.fromEntries(
    r.project.objects.filter((o) => typeof o.inputs.name === "string").map((o) => [o.address, o.inputs.name]),
  );
};

describe("GIVEN a preview target with name_prefix: pr_${env.PR_NUMBER}_", () => {
  const dir = withTarget(PREVIEW);

  it("WHEN loaded for PR 12 THEN canvases, cronjobs and service accounts get the prefix; addresses, other names and references stay", async () => {
    const r = await loadRepository(dir, { target: "preview", env: { ...FIXTURE_SECRETS, PR_NUMBER: "12" } });
    expect(namesOf(r)).toEqual({
      "canvas.listings": "pr_12_listings",
      "canvas.reports": "pr_12_reports",
      "cronjob.daily-stats": "pr_12_daily-stats",
      "cronjob.weekly_report": "pr_12_weekly_report",
      "service_account.listings-deployer": "pr_12_listings-deployer",
      "service_account.reader": "pr_12_reader",
    });
    if (!r.ok) return;
    expect(r.project.objects.find((o) => o.address === "cronjob.daily-stats")!.refs).toEqual({ udf: "listings/stats" });
    // A secret key is one per team: the prefixed target leaves it to the default target, and says so.
    expect(r.project.objects.map((o) => o.address)).not.toContain("secret.MAPBOX_TOKEN");
    expect(r.project.warnings).toEqual([
      expect.stringMatching(/^secret\.MAPBOX_TOKEN is not managed by target "preview": it is one per team/),
    ]);
    expect(r.project.settings.state).toEqual({ kind: "local", path: ".svc-iac/state/pr-12/listings/preview" });
  });

  it("WHEN loaded for the default target THEN no name changes", async () => {
    const names = namesOf(await loadRepository(dir, { env: FIXTURE_SECRETS }));
    expect(names["canvas.listings"]).toBe("listings");
    expect(names["cronjob.daily-stats"]).toBe("daily-stats");
  });

  it("WHEN PR_NUMBER is not set THEN loading fails at the prefix in svc.yaml", async () => {
    const r = await loadRepository(dir, { target: "preview", env: FIXTURE_SECRETS });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const line =
      readFileSync(join(dir, "svc.yaml"), "utf8")
        .split("\n")
        .findIndex((l) => l.includes("name_prefix")) + 1;
    expect(r.errors).toContainEqual(
      expect.objectContaining({
        file: "svc.yaml",
        line,
        path: "targets.preview.name_prefix",
        message: expect.stringContaining("environment variable PR_NUMBER is not set"),
      }),
    );
  });
});

describe("GIVEN a prefix that makes canvas names invalid", () => {
  const dir = withTarget(`  preview:\n    name_prefix: pr-\${env.PR_NUMBER}-\n`);

  it("WHEN loaded THEN each canvas is an error at svc.yaml's name_prefix, saying what it became and the rule", async () => {
    const r = await loadRepository(dir, { target: "preview", env: { ...FIXTURE_SECRETS, PR_NUMBER: "7" } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = readFileSync(join(dir, "svc.yaml"), "utf8").split("\n");
    const line = lines.findIndex((l) => l.includes("name_prefix")) + 1;
    const column = lines[line - 1]!.indexOf("pr-") + 1;
    expect(r.errors).toEqual([
      {
        file: "svc.yaml",
        line,
        column,
        path: "targets.preview.name_prefix",
        message:
          'name_prefix "pr-7-" makes an invalid name for canvas.listings (canvases/listings/canvas.yaml): Invalid name "pr-7-listings". A canvas name uses only letters, digits and underscores ([A-Za-z0-9_]), e.g. "sales_dashboard".',
      },
      {
        file: "svc.yaml",
        line,
        column,
        path: "targets.preview.name_prefix",
        message:
          'name_prefix "pr-7-" makes an invalid name for canvas.reports (canvases/reports/canvas.yaml): Invalid name "pr-7-reports". A canvas name uses only letters, digits and underscores ([A-Za-z0-9_]), e.g. "sales_dashboard".',
      },
    ]);
  });

  it("WHEN a suffix is valid THEN the names end with it", async () => {
    const ok = withTarget(`  preview:\n    name_suffix: _pr\${env.PR_NUMBER}\n`);
    const names = namesOf(await loadRepository(ok, { target: "preview", env: { ...FIXTURE_SECRETS, PR_NUMBER: "7" } }));
    expect(names["canvas.listings"]).toBe("listings_pr7");
    expect(names["service_account.reader"]).toBe("reader_pr7");
  });
});
