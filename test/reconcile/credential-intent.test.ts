/** The inventory's record of undelivered credential creates: attempts add up, nothing is replaced, old inventories still read. */
import { describe, expect, it } from "vitest";
import { intentKeys, withIntent, withoutIntent, withoutIntentKey } from "../../src/reconcile/state/credential-intent";
import { parseInventory } from "../../src/reconcile/state/inventory-file";
import type { InventoryEntry } from "../../src/model/inventory";

const AT = "2026-02-01T00:00:00.000Z";
const LATER = "2026-02-02T00:00:00.000Z";

describe("the credential intent", () => {
  it("GIVEN no entry WHEN an attempt is noted THEN an id-less entry records its key", () => {
    const e = withIntent(undefined, "ServiceAccount", "ci [svc-iac aaaaaa]", AT);
    expect(e).toMatchObject({ kind: "ServiceAccount", id: "", intent: { key: "ci [svc-iac aaaaaa]", at: AT } });
    expect(intentKeys(e)).toEqual(["ci [svc-iac aaaaaa]"]);
  });

  it("GIVEN an earlier undelivered attempt WHEN another is noted THEN both keys are kept and the first time stays", () => {
    const first = withIntent(undefined, "ServiceAccount", "ci [svc-iac aaaaaa]", AT);
    const second = withIntent(first, "ServiceAccount", "ci [svc-iac bbbbbb]", LATER);
    expect(intentKeys(second)).toEqual(["ci [svc-iac aaaaaa]", "ci [svc-iac bbbbbb]"]);
    expect(second.intent).toMatchObject({ key: "ci [svc-iac bbbbbb]", at: AT });
  });

  it("GIVEN an attempt refused before sending WHEN its key is taken out THEN the others stay, and an empty intent goes", () => {
    const two = withIntent(withIntent(undefined, "ServiceAccount", "a", AT), "ServiceAccount", "b", AT);
    expect(intentKeys(withoutIntentKey(two, "b")!)).toEqual(["a"]);
    expect(withoutIntent(two).intent).toBeUndefined();
    const applied: InventoryEntry = { ...withIntent(undefined, "ServiceAccount", "a", AT), id: "sa-1" };
    expect(withoutIntentKey(applied, "a")).toEqual({
      kind: "ServiceAccount",
      id: "sa-1",
      key: "a",
      createdAt: AT,
      appliedAt: AT,
    });
  });

  it("GIVEN an entry that only recorded the refused attempt THEN nothing is left of it, unless it lists objects to retire", () => {
    const only = withIntent(undefined, "ServiceAccount", "a", AT);
    expect(withoutIntentKey(only, "a")).toBeUndefined();
    const retiring: InventoryEntry = { ...only, kept: { retire: ["sa-old"] } };
    const rest = withoutIntentKey(retiring, "a")!;
    expect(rest).toMatchObject({ id: "", kept: { retire: ["sa-old"] } });
    expect(rest.intent).toBeUndefined();
    // Such an entry is a valid inventory entry: the next plan deletes what it lists.
    const text = JSON.stringify({
      version: 1,
      project: "p",
      target: "default",
      updatedAt: AT,
      objects: { "service_account.ci": rest },
    });
    expect(parseInventory(text, "inventory.json").objects["service_account.ci"]).toEqual(rest);
    const bare = JSON.stringify({
      version: 1,
      project: "p",
      target: "default",
      updatedAt: AT,
      objects: { "service_account.ci": { ...rest, kept: {} } },
    });
    expect(() => parseInventory(bare, "inventory.json")).toThrow(/An entry needs an id/);
  });

  it("GIVEN an inventory written before `keys` existed WHEN it is read THEN its single key still counts", () => {
    const entry: InventoryEntry = {
      kind: "ServiceAccount",
      id: "",
      key: "ci",
      createdAt: AT,
      appliedAt: AT,
      intent: { key: "ci [svc-iac aaaaaa]", at: AT },
    };
    const text = JSON.stringify({
      version: 1,
      project: "p",
      target: "default",
      updatedAt: AT,
      objects: { "service_account.ci": entry },
    });
    const inv = parseInventory(text, "inventory.json");
    expect(intentKeys(inv.objects["service_account.ci"])).toEqual(["ci [svc-iac aaaaaa]"]);
  });
});
