/**
 * Protected objects (`protect: true`, as Pulumi's `protect` resource option): a plan that would
 * delete or replace one fails, naming it and the reason, whatever prune says; destroy stops too.
 *
 * The flag lives in the repository and is copied into the inventory at every apply, because a
 * deletion is planned once the object has left the repository: only the inventory still knows it
 * was protected. To delete a protected object on purpose, set `protect: false` (or remove it),
 * apply, then remove the object.
 */
import type { DesiredObject } from "../../model/desired";
import type { PlanBlock, PlannedAction } from "./plan-model";
import type { Inventory, InventoryEntry } from "../../model/inventory";

/** Actions that end the life of the platform object (its id, its tokens). */
const DESTRUCTIVE = new Set<PlannedAction["action"]>(["delete", "unshare", "replace"]);

export const PROTECTED_RULE = "protected";

/** What protection needs to know about one planned change. */
export interface ProtectionSubject {
  action: PlannedAction;
  desired?: DesiredObject;
  inventory?: InventoryEntry;
}

/** True when the repository (if declared) or the inventory (if not) marks the object protected. */
export function isProtected(s: { desired?: DesiredObject; inventory?: InventoryEntry }): boolean {
  if (s.desired) return s.desired.options.protect === true;
  return s.inventory?.protect === true;
}

function why(a: PlannedAction): string {
  if (a.action === "replace") {
    const fields = a.fields.filter((f) => f.action === "replace").map((f) => f.field);
    return (
      a.reason ??
      `it would be replaced (deleted and created again, with a new id${fields.length ? `) because ${fields.join(", ")} cannot change in place` : ")"}`
    );
  }
  if (a.action === "unshare")
    return `it would be unshared (its share token stops working) because it was ${a.reason ?? "removed from the repository"}`;
  return `it would be deleted because it was ${a.reason ?? "removed from the repository"}`;
}

/** One block per destructive change of a protected object (pure). */
export function protectionBlocks(subjects: readonly ProtectionSubject[]): PlanBlock[] {
  return subjects
    .filter((s) => DESTRUCTIVE.has(s.action.action) && isProtected(s))
    .map(({ action: a, desired }) => {
      const where = desired ? `${desired.source.file}` : "the inventory (it was protected when last applied)";
      return {
        rule: PROTECTED_RULE,
        message: `${a.address}${a.id ? ` (id ${a.id})` : ""} is protected (protect: true, from ${where}): ${why(a)}. No flag lifts this: set protect: false and apply first if the object must really go.`,
      };
    });
}

/**
 * For destroy (and anything else that deletes inventory objects): blocks for every protected
 * object among `addresses` of `inventory`.
 * @example
 * const blocks = protectedInventoryBlocks(inventory, Object.keys(inventory.objects), "destroy");
 * if (blocks.length) throw new Error(blocks.map((b) => b.message).join("\n"));
 */
export function protectedInventoryBlocks(
  inventory: Inventory | undefined,
  addresses: readonly string[],
  operation = "destroy",
): PlanBlock[] {
  return addresses
    .filter((a) => inventory?.objects[a]?.protect === true)
    .sort()
    .map((a) => ({
      rule: PROTECTED_RULE,
      message: `${a} (id ${inventory!.objects[a]!.id}) is protected (protect: true when last applied): ${operation} would delete it. Set protect: false and apply first if the object must really go.`,
    }));
}

/** Copies each declared object's `protect` into its inventory entry (done by every apply). */
export function syncProtection(
  inventory: { get(a: string): InventoryEntry | undefined; set(a: string, e: InventoryEntry): void },
  objects: readonly DesiredObject[],
): void {
  for (const d of objects) {
    const entry = inventory.get(d.address);
    if (!entry || entry.kind !== d.kind || (entry.protect === true) === (d.options.protect === true)) continue;
    const { protect: _old, ...rest } = entry;
    inventory.set(d.address, d.options.protect ? { ...rest, protect: true } : rest);
  }
}
