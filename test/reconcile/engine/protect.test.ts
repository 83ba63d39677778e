/** Protected objects: a plan that would delete or replace one fails, naming it and why, whatever prune says. */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { loadRepository } from "../../../src/reconcile/load";
import { protectedInventoryBlocks } from "../../../src/reconcile/plan/protect";
import type { Inventory } from "../../../src/model/inventory";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS, platformView, stateDirOf } from "../../helpers/repo";

const inventoryOf = (dir: string): Inventory =>
  JSON.parse(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8"));

describe("GIVEN an applied repository whose reports canvas is protected", () => {
  const fx = useEmulator();
  let dir: string;
  let reportsId: string;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/reports/canvas.yaml"), "protect: true\n");
    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(0);
    reportsId = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!.id;
  });

  it("THEN the inventory remembers that it is protected (and only it)", () => {
    const objects = inventoryOf(dir).objects;
    expect(Object.keys(objects).filter((a) => objects[a]!.protect)).toEqual(["canvas.reports"]);
  });

  describe("WHEN its folder (and the cronjob running its UDF) leave the repository", () => {
    beforeAll(() => {
      rmSync(join(dir, "canvases/reports"), { recursive: true });
      rmSync(join(dir, "cronjobs/weekly_report.yaml"));
    });

    it("THEN plan with --prune fails, naming the canvas and the reason", async () => {
      const r = await planCommand(commandOptions(dir, fx.emu, { prune: true }));
      expect(r.exitCode).toBe(1);
      if (r.command !== "plan") throw new Error("plan expected");
      expect(r.message).toContain(`canvas.reports (id ${reportsId}) is protected`);
      expect(r.message).toContain("deleted because it was removed from the repository");
      expect(r.plan!.blocks.map((b) => b.rule)).toEqual(["protected"]);
    });

    it("THEN apply with --prune and every guard lifted refuses and deletes nothing", async () => {
      const r = await applyCommand(
        commandOptions(dir, fx.emu, { prune: true, maxDeletions: 100, allowDeleteAll: true }),
      );
      expect(r.exitCode).toBe(1);
      expect((r as { message?: string }).message).toContain("canvas.reports");
      const view = await platformView(fx.user);
      expect(view.canvases.map((c) => c.id)).toContain(reportsId);
      expect(view.cronjobs.map((c) => c.name)).toContain("weekly_report");
    });

    it("THEN plan without prune succeeds and keeps it as an orphan", async () => {
      const r = await planCommand(commandOptions(dir, fx.emu));
      expect(r.exitCode).toBe(0);
      expect((r as { plan?: { orphans: { address: string }[] } }).plan!.orphans.map((o) => o.address)).toContain(
        "canvas.reports",
      );
    });

    it("THEN destroy's check names it too", () => {
      const inv = inventoryOf(dir);
      const blocks = protectedInventoryBlocks(inv, Object.keys(inv.objects));
      expect(blocks.map((b) => b.message)).toEqual([
        `canvas.reports (id ${reportsId}) is protected (protect: true when last applied): destroy would delete it. Set protect: false and apply first if the object must really go.`,
      ]);
    });
  });
});

describe("GIVEN a protected UDF whose change needs a replacement", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    appendFileSync(join(dir, "canvases/listings/loader.yaml"), "protect: true\n");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    writeFileSync(
      join(dir, "canvases/listings/loader.yaml"),
      readFileSync(join(dir, "canvases/listings/loader.yaml"), "utf8").replace(
        "shared_token: true",
        "shared_token: false",
      ),
    );
  });

  it("WHEN planned THEN the plan fails, saying which field forces the replacement", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(1);
    expect((r as { message?: string }).message).toMatch(
      /^udf\.listings\/loader \(id [^)]+\) is protected \(protect: true, from canvases\/listings\/loader\.py\): it would be replaced .* createSharedToken cannot change in place/,
    );
  });

  it("WHEN protect is set to false THEN the same change plans as a replacement", async () => {
    writeFileSync(
      join(dir, "canvases/listings/loader.yaml"),
      readFileSync(join(dir, "canvases/listings/loader.yaml"), "utf8").replace("protect: true", "protect: false"),
    );
    const r = await planCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(0);
    expect(
      (r as { plan?: { actions: { address: string; action: string }[] } }).plan!.actions.map(
        (a) => `${a.action} ${a.address}`,
      ),
    ).toEqual(["replace udf.listings/loader"]);
  });
});

describe("GIVEN protected secrets, service accounts, shares and cronjobs in the repository", () => {
  it("WHEN loaded THEN each carries protect, and a secret may be a mapping holding its value", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(
      join(dir, "secrets.yaml"),
      "secrets:\n  MAPBOX_TOKEN:\n    value: ${env.MAPBOX_TOKEN}\n    protect: true\n",
    );
    writeFileSync(join(dir, "service-accounts.yaml"), "service_accounts:\n  reader:\n    protect: true\n");
    appendFileSync(join(dir, "canvases/listings/canvas.yaml"), "  protect: true\n");
    appendFileSync(join(dir, "cronjobs/daily-stats.yaml"), "protect: true\n");
    const r = await loadRepository(dir, { env: { ...FIXTURE_SECRETS } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const protectedOnes = r.project.objects.filter((o) => o.options.protect).map((o) => o.address);
    expect(protectedOnes).toEqual([
      "cronjob.daily-stats",
      "secret.MAPBOX_TOKEN",
      "service_account.reader",
      "share.listings",
    ]);
    expect(r.project.objects.find((o) => o.address === "secret.MAPBOX_TOKEN")!.inputs.value).toBe(
      FIXTURE_SECRETS.MAPBOX_TOKEN,
    );
  });

  it("WHEN protect is not a boolean or a secret mapping has no value THEN each error names file, line and field", async () => {
    const dir = copyRepo("valid-full");
    writeFileSync(join(dir, "secrets.yaml"), "secrets:\n  MAPBOX_TOKEN:\n    protect: true\n");
    appendFileSync(join(dir, "cronjobs/daily-stats.yaml"), "protect: yes please\n");
    const r = await loadRepository(dir, { env: { ...FIXTURE_SECRETS } });
    if (r.ok) throw new Error("expected errors");
    expect(r.errors.map((e) => `${e.file}:${e.line} ${e.path}: ${e.message}`)).toEqual([
      'cronjobs/daily-stats.yaml:8 protect: found "yes please", expected true or false',
      "secrets.yaml:2 secrets.MAPBOX_TOKEN: found no value, expected value: ${env.NAME} naming the environment variable holding secret MAPBOX_TOKEN",
    ]);
  });
});
