/** `svc-iac destroy`: deletes what the target's inventory records, and nothing else, under the lock; protected and foreign objects stop it. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import type { Inventory } from "../../../src/model/inventory";
import { useEmulator } from "../../helpers/emulator";
import { makeHandMade, type HandMade } from "../../helpers/hand-made";
import {
  appliedRepo,
  commandOptions,
  copyRepo,
  emulatorEnv,
  FIXTURE_SECRETS,
  platformView,
  serviceTokenWorks,
  stateDirOf,
} from "../../helpers/repo";

const inventoryOf = (dir: string): Inventory =>
  JSON.parse(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8"));

describe("GIVEN an applied repository beside hand-made objects of the same team", () => {
  const fx = useEmulator();
  let dir: string;
  let hand: HandMade;
  let byHandOnListings: string;
  let deployerToken: string;
  let seededAccounts: string[];

  beforeAll(async () => {
    hand = await makeHandMade(fx.user, "hand_");
    seededAccounts = (await platformView(fx.user)).serviceAccounts.map((a) => a.name);
    dir = await appliedRepo(fx.emu);
    deployerToken = JSON.parse(readFileSync(join(dir, "..", "outputs.json"), "utf8")).tokens[
      "service_account.listings-deployer"
    ].token;
    const listings = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!.id;
    byHandOnListings = (
      await fx.user.udfs.create({
        collection_id: listings,
        slug: "by_hand",
        udf_type: "auto",
        udf_body: JSON.stringify({ name: "by_hand", code: "x = 1" }),
      })
    ).id;
  });

  it("WHEN destroy would take a hand-made UDF with a managed canvas THEN it stops, names it and deletes nothing", async () => {
    const before = await platformView(fx.user);
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(r.exitCode).toBe(1);
    expect(r.message).toContain(`udf.listings/by_hand (id ${byHandOnListings}, deleted with canvas.listings)`);
    expect(r.message).toContain("Nothing was destroyed.");
    expect(r.plan!.blocks.map((b) => b.rule)).toEqual(["cascade"]);
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("WHEN the answer to the confirmation is not yes THEN nothing is deleted", async () => {
    const before = await platformView(fx.user);
    let asked = 0;
    const r = await destroyCommand({
      dir,
      env: emulatorEnv(fx.emu),
      allowCascade: true,
      confirm: async () => (asked++, false),
    });
    expect(asked).toBe(1);
    expect(r).toMatchObject({ exitCode: 1, message: "Destroy cancelled: nothing was changed." });
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("WHEN destroyed with --allow-cascade THEN the project's objects are gone in reverse order, the hand-made ones stay, and the inventory is empty", async () => {
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu), allowCascade: true });
    expect(r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    const order = r.report!.results.map((x) => x.kind);
    expect(order.indexOf("Cronjob")).toBeLessThan(order.indexOf("Udf"));
    expect(order.lastIndexOf("Udf")).toBeLessThan(order.indexOf("Canvas"));
    expect(order.lastIndexOf("Canvas")).toBeLessThan(order.indexOf("ServiceAccount"));
    expect(r.plan!.actions.every((a) => a.action === "delete" || a.action === "unshare")).toBe(true);
    expect(r.plan!.actions.map((a) => a.address)).toContain("share.listings");
    // A bucket policy is computed, not stored: the plan says its delete only forgets it.
    const policies = r.plan!.actions.filter((a) => a.kind === "BucketPolicy");
    expect(policies.length).toBeGreaterThan(0);
    for (const p of policies) expect(p.notes).toEqual([expect.stringContaining("so it is only forgotten")]);
    expect(r.plan!.cascade).toEqual([
      expect.objectContaining({ address: "udf.listings/by_hand", effect: "deleted", managed: false }),
    ]);

    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.name).sort()).toEqual(["hand_maps", "hand_sales"]);
    expect(view.udfs.map((u) => u.id).sort()).toEqual([hand.loader, hand.priceMap, hand.stats].sort());
    expect(view.cronjobs.map((c) => c.name).sort()).toEqual(["bad name!", "hand_nightly"]);
    expect(view.secrets).toEqual([]);
    expect(view.serviceAccounts.map((a) => a.name)).toEqual(seededAccounts);
    expect(await serviceTokenWorks(fx.emu, deployerToken)).toBe(false);
    // The hand-made canvases keep their shares.
    expect(view.canvases.every((c) => !!c.share_token)).toBe(true);
    expect(inventoryOf(dir).objects).toEqual({});
  });

  it("WHEN destroyed again THEN there is nothing to do and it succeeds", async () => {
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(r.exitCode).toBe(0);
    expect(r.plan!.actions).toEqual([]);
  });

  it("THEN no secret value of the repository appears in what destroy returned", async () => {
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu) });
    for (const v of Object.values(FIXTURE_SECRETS)) expect(JSON.stringify(r)).not.toContain(v);
  });
});

describe("GIVEN an applied repository with a protected canvas", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/reports/canvas.yaml"), "protect: true\n");
    const r = await applyCommand(commandOptions(dir, fx.emu));
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  });

  it("WHEN destroyed THEN it stops naming the protected canvas, and nothing is deleted", async () => {
    const before = await platformView(fx.user);
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu), allowCascade: true });
    expect(r.exitCode).toBe(1);
    expect(r.message).toMatch(
      /^canvas\.reports \(id [^)]+\) is protected \(protect: true when last applied\): destroy would delete it\./,
    );
    expect(await platformView(fx.user)).toEqual(before);
    expect(Object.keys(inventoryOf(dir).objects).length).toBeGreaterThan(5);
  });
});

describe("GIVEN an applied service account whose earlier rotation left the old account undeleted", () => {
  const fx = useEmulator();
  let dir: string;
  let oldAccount: { id: string; token: string };

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    // As a rotation whose delete failed leaves it: the old account, still live, noted for retirement.
    oldAccount = await fx.user.environment.createServiceAccount("reader [svc-iac 000000]");
    const file = join(stateDirOf(dir), "inventory.json");
    const inventory = JSON.parse(readFileSync(file, "utf8")) as Inventory;
    const reader = inventory.objects["service_account.reader"]!;
    reader.kept = { ...reader.kept, retire: [oldAccount.id] };
    writeFileSync(file, JSON.stringify(inventory));
  });

  it("WHEN destroyed THEN the old account goes too, so no token it handed out keeps working", async () => {
    const r = await destroyCommand({ dir, env: emulatorEnv(fx.emu) });
    expect(r.exitCode).toBe(0);
    const action = r.plan!.actions.find((a) => a.address === "service_account.reader")!;
    expect(action.fields.map((f) => f.field)).toEqual(["replacedAccounts"]);
    expect(await serviceTokenWorks(fx.emu, oldAccount.token)).toBe(false);
    expect((await platformView(fx.user)).serviceAccounts.map((a) => a.id)).not.toContain(oldAccount.id);
    expect(inventoryOf(dir).objects).toEqual({});
  });
});
