/** Prune: objects that left the repository are deleted only when asked, only when this project made them, and within the guards. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { useEmulator } from "../../helpers/emulator";
import { appliedRepo, commandOptions, platformView, stateDirOf, writeUdfs } from "../../helpers/repo";

function planOf(r: CommandResult): Plan {
  if ((r.command !== "plan" && r.command !== "apply") || !r.plan)
    throw new Error(`expected a plan, got ${JSON.stringify(r)}`);
  return r.plan;
}

const inventoryAddresses = (dir: string) =>
  Object.keys(JSON.parse(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).objects);

const removeLoader = (dir: string) => {
  rmSync(join(dir, "canvases/listings/loader.py"));
  rmSync(join(dir, "canvases/listings/loader.yaml"));
};

describe("GIVEN an applied repository from which a UDF file is removed", () => {
  const fx = useEmulator();
  let dir: string;
  let loaderId: string;
  let byHandId: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    const view = await platformView(fx.user);
    loaderId = view.udfs.find((u) => u.slug === "loader")!.id;
    const listings = view.canvases.find((c) => c.name === "listings")!;
    byHandId = (
      await fx.user.udfs.create({
        collection_id: listings.id,
        slug: "by_hand",
        udf_body: JSON.stringify({ name: "by_hand", code: "x = 1" }),
      })
    ).id;
    removeLoader(dir);
  });

  it("WHEN plan runs without prune THEN the UDF is listed as an orphan and nothing is deleted", async () => {
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.orphans).toEqual([{ address: "udf.listings/loader", kind: "Udf", id: loaderId }]);
    expect(plan.actions.filter((a) => a.action === "delete")).toEqual([]);
    expect(plan.unmanaged.map((u) => u.address)).toEqual(["udf.listings/by_hand"]);
  });

  it("WHEN apply runs without prune THEN the UDF stays on the platform and in the inventory", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(0);
    expect((await platformView(fx.user)).udfs.map((u) => u.id)).toContain(loaderId);
    expect(inventoryAddresses(dir)).toContain("udf.listings/loader");
  });

  it("WHEN apply runs with prune THEN the UDF is deleted and leaves the inventory, and the hand-made UDF survives", async () => {
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu, { prune: true })));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["delete udf.listings/loader"]);
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(r.exitCode).toBe(0);
    const ids = (await platformView(fx.user)).udfs.map((u) => u.id);
    expect(ids).not.toContain(loaderId);
    expect(ids).toContain(byHandId);
    expect(inventoryAddresses(dir)).not.toContain("udf.listings/loader");
    const again = planOf(await planCommand(commandOptions(dir, fx.emu, { prune: true })));
    expect(again.actions).toEqual([]);
  });
});

describe("GIVEN an applied repository from which three objects are removed", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    // The reports canvas, its UDF and the cronjob running it.
    rmSync(join(dir, "canvases/reports"), { recursive: true });
    rmSync(join(dir, "cronjobs/weekly_report.yaml"));
  });

  it("WHEN apply runs with prune and max deletions 2 THEN it stops naming --max-deletions and deletes nothing", async () => {
    const before = await platformView(fx.user);
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 2 }));
    expect(r.exitCode).toBe(1);
    expect(r.command === "apply" && r.message).toMatch(/--max-deletions 3/);
    expect(planOf(r).blocks.map((b) => b.rule)).toEqual(["max-deletions"]);
    expect(r.command === "apply" && r.report).toBeUndefined();
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("THEN the limit's message names where it came from: the flag, or svc.yaml", async () => {
    const byFlag = await planCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 2 }));
    expect(planOf(byFlag).blocks[0]!.message).toContain("more than the limit of 2 (--max-deletions).");
    const svc = join(dir, "svc.yaml");
    const text = readFileSync(svc, "utf8");
    writeFileSync(svc, text.replace("state: .svc-iac/state\n", "state: .svc-iac/state\nmax_deletions: 1\n"));
    try {
      const byFile = await planCommand(commandOptions(dir, fx.emu, { prune: true }));
      expect(planOf(byFile).blocks[0]!.message).toContain("more than the limit of 1 (max_deletions in svc.yaml).");
    } finally {
      writeFileSync(svc, text);
    }
  });

  it("WHEN plan --out makes a plan that would stop on the limit THEN it is not saved, and the message says how to make one that can be applied", async () => {
    const out = join(dir, "..", "blocked-plan.json");
    const r = await planCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 2, planOut: out }));
    expect(r.exitCode).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(r.command === "plan" && r.message).toContain(
      `The plan was not saved to ${out}: applying it would stop there`,
    );
  });

  it("WHEN apply runs with prune and max deletions 3 THEN the three objects are deleted", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 3 }));
    expect(r.exitCode).toBe(0);
    expect(r.command === "apply" && r.report?.results.map((x) => `${x.action} ${x.address} ${x.status}`)).toEqual([
      "delete cronjob.weekly_report done",
      "delete udf.reports/weekly done",
      "delete canvas.reports done",
    ]);
    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.name)).toEqual(["listings"]);
    expect(view.cronjobs.map((c) => c.name)).toEqual(["daily-stats"]);
    expect(view.udfs.map((u) => u.slug).sort()).toEqual(["loader", "stats"]);
  });
});

describe("GIVEN an applied repository from which everything is removed", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    for (const entry of ["canvases", "cronjobs", "secrets.yaml", "service-accounts.yaml", "bucket-policies.yaml"])
      rmSync(join(dir, entry), { recursive: true });
  });

  it("WHEN apply runs with prune THEN the delete-all guard stops it and nothing is deleted", async () => {
    const before = await platformView(fx.user);
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 100 }));
    expect(r.exitCode).toBe(1);
    expect(planOf(r).blocks.map((b) => b.rule)).toEqual(["delete-all"]);
    expect(r.command === "apply" && r.message).toMatch(/--allow-delete-all/);
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("WHEN apply runs with prune and allowDeleteAll THEN every managed object is deleted, and objects of others stay", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { prune: true, maxDeletions: 100, allowDeleteAll: true }));
    expect(r.command === "apply" && r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    const view = await platformView(fx.user);
    expect(view.canvases).toEqual([]);
    expect(view.cronjobs).toEqual([]);
    expect(view.secrets).toEqual([]);
    expect(view.serviceAccounts.filter((s) => s.name.includes("[svc-iac "))).toEqual([]);
    // The seeded team service account was never this project's.
    expect(view.serviceAccounts.length).toBeGreaterThan(0);
    expect(inventoryAddresses(dir)).toEqual([]);
  });
});

describe("GIVEN a repository whose svc.yaml sets no max_deletions, applied with 12 UDFs that are then removed", () => {
  const fx = useEmulator();

  it("WHEN planned with prune THEN the stop says the limit of 10 is the default that svc.yaml can change, not that svc.yaml set it", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "svc-prune-default-")), "repo");
    mkdirSync(join(dir, "canvases", "many"), { recursive: true });
    writeFileSync(join(dir, "svc.yaml"), "project: many\n");
    writeFileSync(join(dir, "canvases", "many", "canvas.yaml"), "access_scope: team\n");
    const slugs = writeUdfs(dir, "many", 12);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    for (const slug of slugs) rmSync(join(dir, "canvases", "many", `${slug}.py`));
    const r = await planCommand(commandOptions(dir, fx.emu, { prune: true }));
    expect(planOf(r).blocks[0]!.message).toContain(
      "more than the limit of 10 (the default max_deletions; svc.yaml can set another).",
    );
  });
});
