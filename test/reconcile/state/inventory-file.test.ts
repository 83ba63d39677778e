import { describe, expect, it } from "vitest";
import { StateFileError } from "../../../src/reconcile/state/lock-errors";
import {
  checkInventoryOwner,
  emptyInventory,
  parseInventory,
  serializeInventory,
} from "../../../src/reconcile/state/inventory-file";
import type { Inventory } from "../../../src/model/inventory";

const FILE = ".svc-iac/state/listings/default/inventory.json";

function sample(): Inventory {
  return {
    version: 1,
    project: "listings",
    target: "default",
    updatedAt: "2026-03-01T10:00:00.000Z",
    objects: {
      "udf.sales/loader": {
        kind: "Udf",
        id: "u-1",
        key: "c-1/loader",
        createdAt: "2026-02-01T00:00:00.000Z",
        appliedAt: "2026-03-01T10:00:00.000Z",
        kept: { zeta: 1, alpha: { y: 2, x: 1 } },
      },
      "canvas.sales": {
        kind: "Canvas",
        id: "c-1",
        key: "sales",
        createdAt: "2026-02-01T00:00:00.000Z",
        appliedAt: "2026-03-01T10:00:00.000Z",
      },
      "service_account.ci": {
        kind: "ServiceAccount",
        id: "sa-1",
        key: "ci",
        createdAt: "2026-02-01T00:00:00.000Z",
        appliedAt: "2026-02-01T00:00:00.000Z",
        rotatedAt: "2026-02-01T00:00:00.000Z",
        intent: { key: "ci", at: "2026-02-01T00:00:00.000Z" },
      },
    },
  };
}

function errorOf(fn: () => unknown): StateFileError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StateFileError) return e;
    throw e;
  }
  throw new Error("expected a StateFileError");
}

describe("the inventory file", () => {
  it("reads back exactly what was written", () => {
    expect(parseInventory(serializeInventory(sample()), FILE)).toEqual(sample());
  });

  it("is written with sorted keys at every level, 2-space indent and a trailing newline", () => {
    const text = serializeInventory(sample());
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toBe('  "objects": {');
    const addresses = Object.keys(JSON.parse(text).objects);
    expect(addresses).toEqual(["canvas.sales", "service_account.ci", "udf.sales/loader"]);
    expect(Object.keys(JSON.parse(text).objects["udf.sales/loader"].kept)).toEqual(["alpha", "zeta"]);
    expect(text.indexOf('"x": 1')).toBeLessThan(text.indexOf('"y": 2'));
  });

  it("gives the same text for the same inventory whatever order it was built in", () => {
    const a = sample();
    const b: Inventory = {
      objects: Object.fromEntries(Object.entries(a.objects).reverse()),
      updatedAt: a.updatedAt,
      target: a.target,
      project: a.project,
      version: 1,
    };
    expect(serializeInventory(b)).toBe(serializeInventory(a));
  });

  it("keeps fields it does not know (a newer svc-iac of the same version) through a read and a write", () => {
    const text = serializeInventory(sample()).replace('"kind": "Canvas"', '"kind": "Canvas",\n      "future": true');
    expect(serializeInventory(parseInventory(text, FILE))).toContain('"future": true');
  });

  it("names the file when it is not JSON", () => {
    const e = errorOf(() => parseInventory('{"version": 1, "objects": {', FILE));
    expect(e.code).toBe("state_file_invalid");
    expect(e.message).toContain(`Inventory file ${FILE} is not valid JSON`);
  });

  it("names the file, the version found and the version expected when the version differs", () => {
    const newer = errorOf(() => parseInventory(JSON.stringify({ ...sample(), version: 2 }), FILE));
    expect(newer.message).toBe(
      `Inventory file ${FILE} has version 2; this svc-iac reads version 1. It was written by a newer svc-iac: upgrade svc-iac.`,
    );
    const none = errorOf(() => parseInventory("{}", FILE));
    expect(none.message).toBe(`Inventory file ${FILE} has no version; this svc-iac reads version 1.`);
  });

  it("names the file and the path of every invalid field", () => {
    const bad = sample() as any;
    bad.objects["canvas.sales"].kind = "Bucket";
    delete bad.objects["udf.sales/loader"].id;
    const e = errorOf(() => parseInventory(JSON.stringify(bad), FILE));
    expect(e.message).toContain(`Inventory file ${FILE} is not a valid inventory: `);
    expect(e.message).toContain('objects["canvas.sales"].kind');
    expect(e.message).toContain('objects["udf.sales/loader"].id');
  });

  it("refuses to write an invalid inventory", () => {
    const bad = { ...sample(), project: "" };
    expect(errorOf(() => serializeInventory(bad, FILE)).message).toContain(
      `Refusing to write an invalid inventory to ${FILE}: project`,
    );
  });

  it("refuses an inventory of another project or target", () => {
    const inv = emptyInventory("listings", "prod", new Date("2026-01-01T00:00:00Z"));
    expect(checkInventoryOwner(inv, { project: "listings", target: "prod" }, FILE)).toBe(inv);
    expect(errorOf(() => checkInventoryOwner(inv, { project: "listings", target: "default" }, FILE)).message).toBe(
      `Inventory file ${FILE} belongs to project "listings" target "prod", not project "listings" target "default". Check the state location in svc.yaml.`,
    );
  });
});
