/**
 * The loader records which inputs of each object are written with a `${var...}` / `${env...}`
 * reference, named as plans and drift name them, with the reference and where it is written:
 * drift uses it to tell which platform values cannot be written back into a shared file.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadRepository } from "../../../src/reconcile/load/index";
import { firstReference } from "../../../src/repository/variables";
import type { LoadedProject, LoadResult } from "../../../src/model/desired";

function projectOf(r: LoadResult): LoadedProject {
  if (!r.ok) throw new Error(`expected a project, got errors: ${JSON.stringify(r.errors)}`);
  return r.project;
}

describe("GIVEN the example repository, WHEN it is loaded for the default target", () => {
  let project: LoadedProject;
  const referenced = (address: string) => project.objects.find((o) => o.address === address)!.referenced;

  beforeAll(async () => {
    project = projectOf(await loadRepository("examples/repo", { env: { EXAMPLE_API_KEY: "k" } }));
  });

  it("THEN the listings canvas records dashboardBody as written with ${var.city} at canvas.yaml line 7, and nothing else", () => {
    expect(referenced("canvas.listings")).toEqual([
      {
        field: "dashboardBody",
        key: "dashboard_body",
        reference: "${var.city}",
        source: { file: "canvases/listings/canvas.yaml", line: 7, column: 17, path: "dashboard_body" },
      },
    ]);
  });

  it("THEN a cronjob records its arguments and description by their input names, each at the first reference inside", () => {
    expect(referenced("cronjob.daily-stats")).toEqual([
      {
        field: "description",
        key: "description",
        reference: "${var.city}",
        source: { file: "cronjobs/daily-stats.yaml", line: 9, column: 14, path: "description" },
      },
      {
        field: "udfArgs",
        key: "args",
        reference: "${var.city}",
        source: { file: "cronjobs/daily-stats.yaml", line: 7, column: 9, path: "args.city" },
      },
    ]);
    expect(referenced("cronjob.weekly-summary")!.map((r) => `${r.field} ${r.reference}`)).toEqual([
      "schedule ${var.report_hour}",
      "udfArgs ${var.city}",
    ]);
  });

  it("THEN a UDF records its metadata, and objects written only with literals record nothing (the field is absent)", () => {
    expect(referenced("udf.listings/loader")!.map((r) => `${r.field} ${r.source.file}:${r.source.line}`)).toEqual([
      "metadata canvases/listings/loader.yaml:3",
    ]);
    expect(referenced("udf.listings/price_map")).toBeUndefined();
    expect(referenced("share.listings")).toBeUndefined();
    // A secret's value is always a reference; it is never listed.
    expect(referenced("secret.LISTINGS_API_KEY")).toBeUndefined();
  });
});

describe("firstReference", () => {
  it("finds the first ${var...} or ${env...} as written, and not a literal $${", () => {
    expect(firstReference("Listings in ${var.city} for ${env.WHO}")).toBe("${var.city}");
    expect(firstReference("$${var.city} is literal, ${env.WHO} is not")).toBe("${env.WHO}");
    expect(firstReference("plain text")).toBeUndefined();
    expect(firstReference("$${var.city}")).toBeUndefined();
  });
});
