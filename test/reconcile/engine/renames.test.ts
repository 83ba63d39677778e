/**
 * Renames without loss: a renamed canvas folder, a renamed UDF file and a UDF moved to another
 * canvas are updated in place (same ids, share token, cronjob references), found from the
 * inventory or told by `moved:` in svc.yaml.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { loadRepository } from "../../../src/reconcile/load";
import { renderPlanText } from "../../../src/reconcile/render";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS, platformView, platformDuplicates } from "../../helpers/repo";
import { readValidSavedPlan } from "../../helpers/saved-plan";

const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");
const planOf = (r: CommandResult) => {
  if (r.command !== "plan" && r.command !== "apply") throw new Error("plan expected");
  return r.plan!;
};
const actionsOf = (r: CommandResult) =>
  planOf(r).actions.map((a) => `${a.action} ${a.movedFrom ? `${a.movedFrom} → ` : ""}${a.address}`);
const edit = (file: string, from: string, to: string) =>
  writeFileSync(file, readFileSync(file, "utf8").replace(from, to));

describe("GIVEN an applied repository whose shared canvas folder is renamed (and its cronjob pointed at the new folder)", () => {
  const fx = useEmulator();
  let dir: string;
  let before: Awaited<ReturnType<typeof platformView>>;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    before = await platformView(fx.user);
    renameSync(join(dir, "canvases/listings"), join(dir, "canvases/listings_v2"));
    edit(join(dir, "cronjobs/daily-stats.yaml"), "udf: listings/stats", "udf: listings_v2/stats");
  });

  it("WHEN planned THEN the canvas, its UDFs and its share are renamed in place, nothing is created or deleted", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu, { prune: true, planOut: join(dir, "..", "plan.json") }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual([
      "rename canvas.listings → canvas.listings_v2",
      "rename udf.listings/loader → udf.listings_v2/loader",
      "rename udf.listings/stats → udf.listings_v2/stats",
      "rename share.listings → share.listings_v2",
    ]);
    const canvas = planOf(r).actions[0]!;
    expect(canvas.fields.map((f) => `${f.field}: ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}`)).toEqual([
      'name: "listings" → "listings_v2"',
    ]);
    const id = before.canvases.find((c) => c.name === "listings")!.id;
    expect(renderPlanText(planOf(r))).toContain(`  ~ rename   canvas.listings → canvas.listings_v2 (id ${id})`);
    expect(readValidSavedPlan(join(dir, "..", "plan.json")).plan.actions[0]!.movedFrom).toBe("canvas.listings");
  });

  it("WHEN applied THEN the canvas keeps its id and share token (the old link still works), the UDFs their ids, the cronjob runs the same UDF id", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    const after = await platformView(fx.user);
    const old = before.canvases.find((c) => c.name === "listings")!;
    const renamed = after.canvases.find((c) => c.id === old.id)!;
    expect(renamed.name).toBe("listings_v2");
    expect(renamed.share_token).toBe(old.share_token);
    expect(
      (await fx.anon.sharing.getByToken(old.share_token!, { passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE })).name,
    ).toBe("listings_v2");
    const udfIds = (view: typeof before) =>
      view.udfs
        .filter((u) => u.collection_id === old.id)
        .map((u) => `${u.slug} ${u.id}`)
        .sort();
    expect(udfIds(after)).toEqual(udfIds(before));
    const cron = (view: typeof before) => view.cronjobs.find((c) => c.name === "daily-stats")!;
    expect(cron(after).id).toBe(cron(before).id);
    expect(cron(after).udf).toBe(cron(before).udf);
    expect(platformDuplicates(after)).toEqual([]);
    expect(after.canvases.map((c) => c.name).sort()).toEqual(["listings_v2", "reports"]);
  });

  it("THEN the next plan is empty and the inventory knows the new addresses only", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(actionsOf(r)).toEqual([]);
    expect(planOf(r).orphans).toEqual([]);
    const inventory = JSON.parse(readFileSync(join(dir, ".svc-iac/state/listings/default/inventory.json"), "utf8"));
    expect(Object.keys(inventory.objects).filter((a: string) => /^(canvas|share|udf)\.listings/.test(a))).toEqual([
      "canvas.listings_v2",
      "share.listings_v2",
      "udf.listings_v2/loader",
      "udf.listings_v2/stats",
    ]);
  });
});

describe("GIVEN an applied repository where a UDF file is renamed and another UDF moved to another canvas folder", () => {
  const fx = useEmulator();
  let dir: string;
  let before: Awaited<ReturnType<typeof platformView>>;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    before = await platformView(fx.user);
    renameSync(join(dir, "canvases/reports/weekly.py"), join(dir, "canvases/reports/weekly_summary.py"));
    edit(join(dir, "cronjobs/weekly_report.yaml"), "udf: reports/weekly", "udf: reports/weekly_summary");
    renameSync(join(dir, "canvases/listings/stats.py"), join(dir, "canvases/reports/stats.py"));
    edit(join(dir, "cronjobs/daily-stats.yaml"), "udf: listings/stats", "udf: reports/stats");
  });

  it("WHEN planned and applied THEN each is one rename (slug, canvas) of the same UDF, and the cronjobs keep their UDF ids", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual([
      "rename udf.listings/stats → udf.reports/stats",
      "rename udf.reports/weekly → udf.reports/weekly_summary",
    ]);
    const fieldsOf = (address: string) =>
      planOf(r)
        .actions.find((a) => a.address === address)!
        .fields.map((f) => f.field);
    expect(fieldsOf("udf.reports/stats")).toEqual(["canvasId"]);
    expect(fieldsOf("udf.reports/weekly_summary")).toEqual(["slug"]);
    const after = await platformView(fx.user);
    const id = (view: typeof before, slug: string) => view.udfs.find((u) => u.slug === slug)!.id;
    expect(id(after, "weekly_summary")).toBe(id(before, "weekly"));
    expect(id(after, "stats")).toBe(id(before, "stats"));
    expect(after.udfs.find((u) => u.slug === "stats")!.collection_name).toBe("reports");
    const cronUdfs = (view: typeof before) => view.cronjobs.map((c) => `${c.name} ${c.udf}`).sort();
    expect(cronUdfs(after)).toEqual(cronUdfs(before));
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu, { prune: true })))).toEqual([]);
  });
});

describe("GIVEN an applied UDF renamed and edited in the same change", () => {
  const fx = useEmulator();

  it("WHEN planned THEN it is a new UDF and a kept old one, and a warning names the moved: entry that keeps the platform object", async () => {
    const dir = copyRepo("valid-full");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    renameSync(join(dir, "canvases/listings/loader.py"), join(dir, "canvases/listings/loader_v2.py"));
    renameSync(join(dir, "canvases/listings/loader.yaml"), join(dir, "canvases/listings/loader_v2.yaml"));
    appendFileSync(join(dir, "canvases/listings/loader_v2.py"), "# edited\n");
    const r = await planCommand(commandOptions(dir, fx.emu));
    expect(actionsOf(r)).toEqual(["create udf.listings/loader_v2"]);
    expect(planOf(r).warnings).toContain(
      "udf.listings/loader_v2 is new and udf.listings/loader left the repository with other content: if udf.listings/loader_v2 is udf.listings/loader renamed and edited, say so in svc.yaml (moved: [{from: udf.listings/loader, to: udf.listings/loader_v2}]) to keep the platform object and its id. As planned, udf.listings/loader_v2 is created and udf.listings/loader is kept (deleted with prune).",
    );
  });
});

describe("GIVEN two applied UDFs with the same content, both renamed", () => {
  const fx = useEmulator();
  let dir: string;
  let ids: Record<string, string>;
  const code = "@fused.udf\ndef udf():\n    return 1\n";

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/reports/copy_a.py"), code);
    writeFileSync(join(dir, "canvases/reports/copy_b.py"), code);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    ids = Object.fromEntries((await platformView(fx.user)).udfs.map((u) => [u.slug, u.id]));
    renameSync(join(dir, "canvases/reports/copy_a.py"), join(dir, "canvases/reports/copy_x.py"));
    renameSync(join(dir, "canvases/reports/copy_b.py"), join(dir, "canvases/reports/copy_y.py"));
  });

  it("WHEN planned without moved: THEN which is which is ambiguous: new UDFs, and a warning that says to add moved:", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu));
    expect(actionsOf(r)).toEqual(["create udf.reports/copy_x", "create udf.reports/copy_y"]);
    expect(planOf(r).warnings.join("\n")).toContain(
      "udf.reports/copy_x, udf.reports/copy_y and udf.reports/copy_a, udf.reports/copy_b have the same content, so which was renamed to which is ambiguous",
    );
    expect(planOf(r).warnings.join("\n")).toContain("moved: [{from: udf.reports/copy_a, to: udf.reports/copy_x}, …]");
  });

  it("WHEN svc.yaml says moved: a → y, b → x THEN the plan renames exactly so, and apply keeps the ids", async () => {
    appendFileSync(
      join(dir, "svc.yaml"),
      "moved:\n  - from: udf.reports/copy_a\n    to: udf.reports/copy_y\n  - from: udf.reports/copy_b\n    to: udf.reports/copy_x\n",
    );
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual([
      "rename udf.reports/copy_b → udf.reports/copy_x",
      "rename udf.reports/copy_a → udf.reports/copy_y",
    ]);
    const after = Object.fromEntries((await platformView(fx.user)).udfs.map((u) => [u.slug, u.id]));
    expect(after.copy_y).toBe(ids.copy_a);
    expect(after.copy_x).toBe(ids.copy_b);
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu, { prune: true })))).toEqual([]);
  });
});

describe("GIVEN moved: entries that cannot be right", () => {
  it("WHEN loaded THEN each error names file, line, column and field, with what was found and expected", async () => {
    const dir = copyRepo("valid-full");
    mkdirSync(join(dir, "canvases/ops_weekly"));
    writeFileSync(join(dir, "canvases/ops_weekly/canvas.yaml"), "");
    appendFileSync(
      join(dir, "svc.yaml"),
      [
        "moved:",
        "  - from: canvas.ops_reports",
        "    to: canvas.ops_weekly",
        "  - from: canvas.listings",
        "    to: canvas.ops_weeky",
        "  - from: secret.OLD",
        "    to: secret.MAPBOX_TOKEN",
        "  - from: canvas.old",
        "    to: udf.listings/loader",
        "  - from: nonsense",
        "  - from: canvas.ops_reports",
        "    to: canvas.reports",
        "",
      ].join("\n"),
    );
    const r = await loadRepository(dir, { env: { ...FIXTURE_SECRETS } });
    if (r.ok) throw new Error("expected errors");
    expect(r.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.path}: ${e.message}`)).toEqual([
      'svc.yaml:24:11 moved[1].from: found "canvas.listings", which the repository still declares; from is the old address, no longer in the repository',
      'svc.yaml:25:9 moved[1].to: found "canvas.ops_weeky", which the repository does not declare; expected the new address of a declared object; did you mean canvas.ops_weekly?',
      'svc.yaml:26:11 moved[2].from: found "secret.OLD": a secret cannot be renamed in place; moved: renames canvas, udf, note, widget, cronjob objects (a share follows its canvas)',
      'svc.yaml:27:9 moved[2].to: found "secret.MAPBOX_TOKEN": a secret cannot be renamed in place; moved: renames canvas, udf, note, widget, cronjob objects (a share follows its canvas)',
      'svc.yaml:29:9 moved[3].to: found "udf.listings/loader", a udf, but from is a canvas; an object keeps its kind when it is renamed',
      'svc.yaml:30:5 moved[4].to: required key "to" is missing; expected an address such as canvas.ops_reports, udf.ops_reports/loader or cronjob.daily',
      'svc.yaml:30:11 moved[4].from: found "nonsense", expected an address such as canvas.ops_reports, udf.ops_reports/loader or cronjob.daily (kinds: bucket_policy, canvas, cronjob, note, secret, service_account, share, udf, widget)',
      'svc.yaml:31:11 moved[5].from: found "canvas.ops_reports" again (first at line 22); each address may be moved from once',
    ]);
  });
});
