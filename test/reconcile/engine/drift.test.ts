/** Drift: out-of-band edits after an apply are reported by class, with secrets as fingerprints only, and drift writes nothing. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { driftCommand } from "../../../src/reconcile/commands";
import type { DriftReport } from "../../../src/reconcile/plan/plan-model";
import { renderDriftMarkdown, toJson } from "../../../src/reconcile/render";
import { renderDriftText } from "../../../src/reconcile/render/drift-text";
import { useEmulator } from "../../helpers/emulator";
import { appliedRepo, commandOptions, FIXTURE_SECRETS, platformView, stateDirOf } from "../../helpers/repo";

const HAND_SECRET = "hand-edited-secret-value-51d0e7";

function driftOf(r: CommandResult): DriftReport {
  if (r.command !== "drift" || !r.drift) throw new Error(`expected a drift report, got ${JSON.stringify(r)}`);
  return r.drift;
}

describe("GIVEN an applied valid-full repository", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
  });

  it("WHEN nothing changed THEN drift exits 0 with no item", async () => {
    const r = await driftCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(0);
    expect(driftOf(r)).toMatchObject({ drift: false, items: [] });
  });

  describe("WHEN the platform is edited out of band and a new cronjob is declared", () => {
    let first: CommandResult;
    let inventoryBefore: string;
    let viewBefore: Awaited<ReturnType<typeof platformView>>;

    beforeAll(async () => {
      const view = await platformView(fx.user);
      const listings = view.canvases.find((c) => c.name === "listings")!;
      await fx.user.canvases.update(listings.id, {
        name: "listings",
        access_scope: "public",
        allow_public_read: true,
        passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE,
        dashboard_body: "Edited by hand",
        preview_image_url: "https://example.com/listings.png",
      });
      await fx.user.secrets.put("MAPBOX_TOKEN", HAND_SECRET);
      await fx.user.udfs.delete(view.udfs.find((u) => u.collection_name === "listings" && u.slug === "loader")!.id);
      await fx.user.udfs.create({
        collection_id: listings.id,
        slug: "by_hand",
        udf_body: JSON.stringify({ name: "by_hand", code: "x = 1" }),
      });
      writeFileSync(join(dir, "cronjobs", "nightly.yaml"), 'schedule: "15 2 * * *"\nudf: listings/stats\n');
      inventoryBefore = readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8");
      viewBefore = await platformView(fx.user);
      first = await driftCommand(commandOptions(dir, fx.emu));
    });

    it("THEN drift exits 2", () => {
      expect(first.exitCode).toBe(2);
    });

    it("THEN each edit is reported in its class", () => {
      const items = driftOf(first).items.map((i) => `${i.class} ${i.address}`);
      expect(items).toEqual([
        "changed canvas.listings",
        "changed secret.MAPBOX_TOKEN",
        "missing udf.listings/loader",
        "unmanaged udf.listings/by_hand",
        "pending cronjob.nightly",
      ]);
      expect(driftOf(first).counts).toEqual({ changed: 2, missing: 1, orphaned: 0, unmanaged: 1, pending: 1 });
    });

    it("THEN the canvas change names the field with its platform value and its repository value", () => {
      const canvas = driftOf(first).items.find((i) => i.address === "canvas.listings")!;
      expect(canvas.fields).toEqual([
        expect.objectContaining({ field: "dashboardBody", from: "Edited by hand", to: "Listings in nyc" }),
      ]);
    });

    it("THEN the secret change carries fingerprints only, and no secret value appears in the JSON or the Markdown", () => {
      const secret = driftOf(first).items.find((i) => i.address === "secret.MAPBOX_TOKEN")!;
      expect(secret.fields).toHaveLength(1);
      const field = secret.fields[0]!;
      expect(field.secret).toBe(true);
      expect(field.from).toBeUndefined();
      expect(field.to).toBeUndefined();
      expect(field.fromFingerprint).toEqual(expect.any(String));
      expect(field.toFingerprint).toEqual(expect.any(String));
      expect(field.fromFingerprint).not.toBe(field.toFingerprint);
      const texts = [toJson(driftOf(first)), renderDriftMarkdown(driftOf(first)), JSON.stringify(first)];
      for (const text of texts) {
        for (const value of [HAND_SECRET, ...Object.values(FIXTURE_SECRETS)]) expect(text).not.toContain(value);
      }
    });

    it("THEN the fingerprint is the same for the same drift, and changes when the drift set changes", async () => {
      const again = driftOf(await driftCommand(commandOptions(dir, fx.emu)));
      expect(again.fingerprint).toBe(driftOf(first).fingerprint);
      await fx.user.secrets.put("MAPBOX_TOKEN", FIXTURE_SECRETS.MAPBOX_TOKEN);
      try {
        const fewer = driftOf(await driftCommand(commandOptions(dir, fx.emu)));
        expect(fewer.items.map((i) => i.address)).not.toContain("secret.MAPBOX_TOKEN");
        expect(fewer.fingerprint).not.toBe(driftOf(first).fingerprint);
      } finally {
        await fx.user.secrets.put("MAPBOX_TOKEN", HAND_SECRET);
      }
    });

    it("THEN drift wrote nothing: the inventory bytes, the platform and the state folder are as before, with no lock", async () => {
      expect(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).toBe(inventoryBefore);
      const view = await platformView(fx.user);
      expect(view).toEqual(viewBefore);
      // The fingerprint key and the history were made by the apply before.
      expect(readdirSync(stateDirOf(dir)).sort()).toEqual(["fingerprint-key.json", "history", "inventory.json"]);
      expect(existsSync(join(stateDirOf(dir), "lock.json"))).toBe(false);
    });
  });

  it("WHEN a UDF's body is replaced by hand with plain code (not the JSON body) THEN drift's diff shows that code on the platform side", async () => {
    const stats = (await platformView(fx.user)).udfs.find(
      (u) => u.collection_name === "reports" && u.slug === "weekly",
    )!;
    const handCode = "def udf():\n    return 'typed in by hand'\n";
    await fx.user.udfs.update(stats.id, { udf_body: handCode });
    try {
      const text = renderDriftText(driftOf(await driftCommand(commandOptions(dir, fx.emu))));
      expect(text).toContain("-    return 'typed in by hand'");
      expect(text).not.toContain("@@ -0,0 ");
    } finally {
      await fx.user.udfs.update(stats.id, { udf_body: stats.udf_body });
    }
  });

  // The canvas diff compares fields the repository leaves out (create and update clear them).
  it("WHEN a canvas field the repository leaves out is set by hand THEN drift reports it", async () => {
    const reports = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!;
    await fx.user.canvases.update(reports.id, { name: "reports", dashboard_body: "set by hand" });
    try {
      const items = driftOf(await driftCommand(commandOptions(dir, fx.emu))).items;
      expect(items.find((i) => i.address === "canvas.reports")?.fields).toEqual([
        expect.objectContaining({ field: "dashboardBody", from: "set by hand" }),
      ]);
    } finally {
      await fx.user.canvases.update(reports.id, { name: "reports" });
    }
  });
});
