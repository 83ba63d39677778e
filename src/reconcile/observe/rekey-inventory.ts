/**
 * Migration of inventories written before fingerprint keys: kept fingerprints in the key-less form
 * are rewritten under the project's key, each only after it is checked against what the platform
 * holds now (the kind's `rekeyKept` trait), so the migration never shows a false "changed" and never
 * hides a real one. Pure; apply writes what it returns.
 */
import type { FingerprintKey } from "../../kinds/fingerprint";
import type { Observation } from "./";
import { traitsOf } from "../phases";
import type { Inventory, InventoryEntry } from "../../model/inventory";

/** The inventory entries whose kept fingerprints move to `key`, by address (sorted). */
export function rekeyedEntries(
  inventory: Inventory | undefined,
  observation: Observation,
  key: FingerprintKey,
): [string, InventoryEntry][] {
  if (!key.persistent) return [];
  const out: [string, InventoryEntry][] = [];
  for (const address of Object.keys(inventory?.objects ?? {}).sort()) {
    const entry = inventory!.objects[address];
    const rekey = traitsOf(entry.kind).rekeyKept;
    const found = entry.kept && rekey ? observation.kinds[entry.kind]?.byId.get(entry.id) : undefined;
    const kept = found && rekey!(entry.kept!, found.state, key);
    if (kept) out.push([address, { ...entry, kept }]);
  }
  return out;
}
