/**
 * `svc-iac import --keep ADDRESS`, the `keep` command of the drift report: it brings only the
 * fields that drifted on the platform into the files that declare them, and refuses (writing
 * nothing) where that would flatten a `${var...}` reference or rewrite what did not drift.
 */
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, driftCommand, planCommand } from "../../../src/reconcile/commands";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import type { DriftReport } from "../../../src/reconcile/plan/plan-model";
import { renderDriftMarkdown } from "../../../src/reconcile/render";
import { runImportInProcess } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, filesOf, platformView } from "../../helpers/repo";

/** Every file under `dir` (but the state folder) and its text. */
function driftOf(r: CommandResult): DriftReport {
  if (r.command !== "drift" || !r.drift) throw new Error(`expected a drift report, got ${JSON.stringify(r)}`);
  return r.drift;
}

/** The files that differ between two snapshots. */
const changedFiles = (a: Record<string, string>, b: Record<string, string>) =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((f) => a[f] !== b[f]).sort();

describe("GIVEN the example repository applied to the default target", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const opts = () => ({ ...commandOptions(dir, fx.emu), env });

  beforeAll(async () => {
    dir = copyRepo(resolve(__dirname, "../../../examples/repo"));
    rmSync(join(dir, ".svc-iac"), { recursive: true, force: true });
    rmSync(join(dir, "policies"), { recursive: true, force: true });
    env = emulatorEnv(fx.emu, { EXAMPLE_API_KEY: "k" });
    const r = await applyCommand(opts());
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  });

  async function udfOf(canvas: string, slug: string) {
    return (await platformView(fx.user)).udfs.find((u) => u.collection_name === canvas && u.slug === slug)!;
  }

  async function editCode(canvas: string, slug: string, edit: (code: string) => string): Promise<string> {
    const u = await udfOf(canvas, slug);
    const body = JSON.parse(u.udf_body) as { code: string };
    body.code = edit(body.code);
    await fx.user.udfs.update(u.id, { udf_body: JSON.stringify(body) });
    return body.code;
  }

  describe("WHEN only price_map's code is edited on the platform", () => {
    let drift: DriftReport;
    let platformCode: string;
    let before: Record<string, string>;

    beforeAll(async () => {
      platformCode = await editCode("listings", "price_map", (c) =>
        c.replace("resolution: int = 8", "resolution: int = 9"),
      );
      before = filesOf(dir);
      drift = driftOf(await driftCommand(opts()));
    });

    it("THEN drift's keep command names that one object, not its whole canvas", () => {
      expect(drift.items.map((i) => `${i.class} ${i.address}`)).toEqual(["changed udf.listings/price_map"]);
      expect(drift.items[0]!.commands).toEqual({
        restore: "svc-iac apply --target default --only udf.listings/price_map",
        keep: "svc-iac import --target default --keep udf.listings/price_map",
      });
      expect(renderDriftMarkdown(drift)).toContain(
        "`svc-iac import --target default --keep udf.listings/price_map` (it writes only the fields that drifted)",
      );
    });

    it("THEN running it writes the platform's code into price_map.py and touches no other file, and plan is then empty", async () => {
      const ran = await runImportInProcess(["--keep", "udf.listings/price_map", dir], env);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain(
        "Kept the platform's version of (project listings-demo, target default):\n  udf.listings/price_map: code\n",
      );
      expect(ran.stdout).toContain("  overwrite canvases/listings/price_map.py\n");
      const after = filesOf(dir);
      expect(changedFiles(before, after)).toEqual(["canvases/listings/price_map.py"]);
      expect(after["canvases/listings/price_map.py"]).toBe(platformCode);
      // The variables, the share's rotation and the per-UDF shared token stay as written.
      expect(after["canvases/listings/canvas.yaml"]).toContain("${var.city}");
      expect(after["canvases/listings/canvas.yaml"]).toContain('share:\n  rotation: "1"\n  rotate_every: 30d\n');
      expect(after["canvases/listings/loader.yaml"]).toContain("shared_token: true");
      const plan = await planCommand({ ...opts(), detailedExitCode: true });
      expect(plan.exitCode).toBe(0);
    });

    it("THEN a second keep finds nothing to keep and writes nothing", async () => {
      const snapshot = filesOf(dir);
      const ran = await runImportInProcess(["--keep", "udf.listings/price_map", dir], env);
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe("Nothing to keep for udf.listings/price_map: it matches the platform.\n");
      expect(filesOf(dir)).toEqual(snapshot);
    });
  });

  describe("WHEN the canvas's preview image (a literal) is changed on the platform", () => {
    it("THEN keep rewrites that one line of canvas.yaml, comments and references included elsewhere, and plan is then empty", async () => {
      const listings = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!;
      await fx.user.canvases.update(listings.id, {
        name: "listings",
        preview_image_url: "https://example.com/previews/edited.png",
      });
      const drift = driftOf(await driftCommand(opts()));
      const item = drift.items.find((i) => i.address === "canvas.listings")!;
      expect(item.commands?.keep).toBe("svc-iac import --target default --keep canvas.listings");
      const before = filesOf(dir);

      const ran = await runImportInProcess(["--keep", "canvas.listings", dir], env);
      expect(ran.code).toBe(0);
      const after = filesOf(dir);
      expect(changedFiles(before, after)).toEqual(["canvases/listings/canvas.yaml"]);
      const want = before["canvases/listings/canvas.yaml"]!.replace(
        "preview_image_url: https://example.com/previews/listings.png",
        "preview_image_url: https://example.com/previews/edited.png",
      );
      expect(after["canvases/listings/canvas.yaml"]).toBe(want);
      expect((await planCommand({ ...opts(), detailedExitCode: true })).exitCode).toBe(0);
    });
  });

  describe("WHEN the canvas's dashboard, written with ${var.city}, is edited on the platform", () => {
    let before: Record<string, string>;
    let ran: Awaited<ReturnType<typeof runImportInProcess>>;

    let drift: DriftReport;

    beforeAll(async () => {
      const listings = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!;
      await fx.user.canvases.update(listings.id, { name: "listings", dashboard_body: "Edited by hand" });
      before = filesOf(dir);
      drift = driftOf(await driftCommand(opts()));
      ran = await runImportInProcess(["--keep", "canvas.listings", dir], env);
    });

    it("THEN drift offers no keep command and says why: the field, where it is written and the variable", () => {
      const item = drift.items.find((i) => i.address === "canvas.listings")!;
      expect(item.fields.map((f) => f.field)).toEqual(["dashboardBody"]);
      expect(item.commands).toEqual({
        restore: "svc-iac apply --target default --only canvas.listings",
        keepUnavailable:
          "dashboard_body is written with ${var.city} in canvases/listings/canvas.yaml:7; keeping the platform's value would drop the variable for every target: edit it by hand",
      });
      expect(renderDriftMarkdown(drift)).toContain(
        "No command keeps the change made on the platform: dashboard\\_body is written with",
      );
      expect(renderDriftMarkdown(drift)).not.toContain("--keep canvas.listings");
    });

    it("THEN keep refuses, naming the file, line and variable, and writes nothing", () => {
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain("canvases/listings/canvas.yaml:7:17: dashboard_body is written with ${var.city}");
      expect(ran.stderr).toContain("targets that set city differently would lose theirs");
      expect(ran.stderr).toContain("Nothing was written.");
      expect(filesOf(dir)).toEqual(before);
    });

    it("THEN restore puts the repository's version back", async () => {
      expect((await applyCommand({ ...opts(), only: ["canvas.listings"] })).exitCode).toBe(0);
      expect(driftOf(await driftCommand(opts())).drift).toBe(false);
    });
  });

  describe("WHEN loader's metadata (built from variables) is edited on the platform", () => {
    it("THEN drift offers no keep and says why, and keep refuses without writing", async () => {
      const u = await udfOf("listings", "loader");
      const body = JSON.parse(u.udf_body) as { metadata: Record<string, unknown> };
      body.metadata = { ...body.metadata, "fused:description": "edited by hand" };
      await fx.user.udfs.update(u.id, { udf_body: JSON.stringify(body) });
      const item = driftOf(await driftCommand(opts())).items.find((i) => i.address === "udf.listings/loader")!;
      expect(item.commands?.keep).toBeUndefined();
      expect(item.commands?.keepUnavailable).toBe(
        "metadata is written with ${var.city} in canvases/listings/loader.yaml:3; keeping the platform's value would drop the variable for every target: edit it by hand",
      );
      const before = filesOf(dir);
      const ran = await runImportInProcess(["--keep", "udf.listings/loader", dir], env);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain("udf.listings/loader: svc-iac import --keep does not write metadata back");
      expect(filesOf(dir)).toEqual(before);
      expect((await applyCommand({ ...opts(), only: ["udf.listings/loader"] })).exitCode).toBe(0);
    });
  });

  describe("WHEN freshness's body is replaced on the platform by plain Python (not svc-iac's JSON body)", () => {
    let before: Record<string, string>;

    beforeAll(async () => {
      const u = await udfOf("ops_reports", "freshness");
      await fx.user.udfs.update(u.id, { udf_body: "@fused.udf\ndef udf():\n    return 1\n" });
      before = filesOf(dir);
    });

    it("THEN keep refuses, naming what would not validate, writes nothing, and the repository still validates", async () => {
      const ran = await runImportInProcess(["--keep", "udf.ops_reports/freshness", dir], env);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain(
        "Keeping the platform's version of udf.ops_reports/freshness would leave a repository that does not validate:",
      );
      expect(ran.stderr).toMatch(/canvases\/ops_reports\/freshness\.(py|yaml):\d+:\d+: /);
      expect(ran.stderr).toContain("Nothing was written.");
      expect(filesOf(dir)).toEqual(before);
      expect((await planCommand(opts())).exitCode).toBe(0);
      expect((await applyCommand({ ...opts(), only: ["udf.ops_reports/freshness"] })).exitCode).toBe(0);
    });
  });
});
