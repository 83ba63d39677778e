/**
 * Cascade: what a deletion (or a replacement, which deletes the old object) takes with it. The
 * platform deletes a canvas's UDFs and its share with the canvas, and a cronjob whose UDF is
 * deleted stays scheduled with every run failing; none of
 * them has a step of its own when the project does not manage them (a UDF made by hand on a managed
 * canvas). Each kind's `cascade` trait says what happens to it when its parent (the `unmanaged`
 * trait's `within`, found by `parentId`) is deleted. The plan lists every such object under the
 * delete that takes it, and stops when one is not the project's, unless `--allow-cascade`. Pure.
 */
import type { Observed } from "../../kinds/kind";
import type { DesiredKind } from "../../model/desired";
import type { Observation } from "../observe";
import { addressPrefixOf, byString, PHASES, traitsOf } from "../phases";
import type { CascadedObject, PlanBlock, PlannedAction } from "./plan-model";
import type { Inventory } from "../../model/inventory";

export const CASCADE_RULE = "cascade";

/** A deletion the plan makes: the object's kind, id and address. */
export interface Deletion {
  kind: DesiredKind;
  id: string;
  address: string;
}

export interface CascadeInput {
  deletions: readonly Deletion[];
  observation: Observation;
  inventory: Inventory | undefined;
  /** Declared objects matched on the platform: address → id (and their kinds). */
  declaredIds: ReadonlyMap<string, string>;
  declaredKinds: ReadonlyMap<string, DesiredKind>;
}

const idKey = (kind: DesiredKind, id: string) => `${kind} ${id}`;

/** Managed objects by kind and id → their address (inventory first, then declarations). */
function managedAddresses(c: CascadeInput): Map<string, string> {
  const out = new Map<string, string>();
  for (const [address, id] of c.declaredIds) out.set(idKey(c.declaredKinds.get(address)!, id), address);
  for (const [address, e] of Object.entries(c.inventory?.objects ?? {}))
    if (!out.has(idKey(e.kind, e.id))) out.set(idKey(e.kind, e.id), address);
  return out;
}

/** The kinds whose objects die or break with an object of `parent`. */
const childKinds = (parent: DesiredKind) =>
  PHASES.filter((k) => traitsOf(k).cascade && traitsOf(k).unmanaged?.within === parent);

/**
 * Every object the deletions take with them that is not deleted by a step of its own, found
 * transitively (a canvas takes its UDFs, which break the cronjobs running them); sorted by address.
 */
export function cascadeOf(c: CascadeInput): CascadedObject[] {
  const managed = managedAddresses(c);
  const stepped = new Set(c.deletions.map((d) => idKey(d.kind, d.id)));
  const seen = new Set<string>();
  const out: CascadedObject[] = [];
  const queue: Deletion[] = [...c.deletions];
  while (queue.length) {
    const parent = queue.shift()!;
    const parentName = parent.address.slice(addressPrefixOf(parent.kind).length + 1);
    for (const kind of childKinds(parent.kind)) {
      const { cascade, unmanaged } = traitsOf(kind);
      for (const o of c.observation.kinds[kind]?.byId.values() ?? []) {
        const key = idKey(kind, o.id);
        if (unmanaged!.parentId(o) !== parent.id || stepped.has(key) || seen.has(key)) continue;
        seen.add(key);
        const address = managed.get(key) ?? unmanaged!.address(o as Observed<any>, parentName);
        out.push({ address, kind, id: o.id, by: parent.address, effect: cascade!.effect, managed: managed.has(key) });
        if (cascade!.effect === "deleted") queue.push({ kind, id: o.id, address });
      }
    }
  }
  return out.sort((a, b) => byString(a.address, b.address) || byString(a.id, b.id));
}

/** The note a deletion carries for each object it takes with it. */
export function cascadeNote(o: CascadedObject): string {
  const who = o.managed ? "" : ", not managed by this project";
  const what = `${o.address} (id ${o.id}${who})`;
  const why = traitsOf(o.kind).cascade!.why;
  return o.effect === "deleted" ? `also deletes ${what}: ${why}` : `leaves ${what} broken: ${why}`;
}

/** The block when the deletions take objects the project does not manage and that was not allowed. */
export function cascadeBlock(
  cascade: readonly CascadedObject[],
  allowCascade: boolean,
  replaced: ReadonlySet<string> = new Set(),
): PlanBlock[] {
  const foreign = cascade.filter((o) => !o.managed);
  if (!foreign.length || allowCascade) return [];
  const by = (o: CascadedObject) => (replaced.has(o.by) ? `${o.by}, which is replaced: its old id is deleted` : o.by);
  const list = foreign
    .map((o) => `${o.address} (id ${o.id}, ${o.effect === "deleted" ? "deleted" : "left broken"} with ${by(o)})`)
    .join(", ");
  return [
    {
      rule: CASCADE_RULE,
      message: `This plan would destroy objects this project does not manage: ${list}. Nothing was changed. Move or copy them first (or declare them in the repository so the project manages them), or run again with --allow-cascade to let them go.`,
    },
  ];
}

/**
 * A replacement deletes the old object too (before or after making the new one): whatever lives
 * under it or runs it goes or breaks as with a deletion. A rotation in place keeps the object.
 */
const deletesOldObject = (a: PlannedAction) => a.action === "replace" && !traitsOf(a.kind).rotation?.inPlace;

/**
 * The cascade of a plan's deletions and replacements: notes each with what it takes, and returns
 * the list and the block (when something unmanaged goes and `allowCascade` is not set). What the
 * plan itself points at a replacement's new id (a managed cronjob of a replaced UDF) is not in it.
 */
export function planCascade(
  actions: readonly PlannedAction[],
  c: Omit<CascadeInput, "deletions"> & { allowCascade: boolean },
): { cascade: CascadedObject[]; blocks: PlanBlock[] } {
  const deleting = actions.filter(
    (a) => ((a.action === "delete" || a.action === "unshare") && a.id) || (deletesOldObject(a) && a.id),
  );
  if (!deleting.length) return { cascade: [], blocks: [] };
  const replaced = new Set(deleting.filter(deletesOldObject).map((a) => a.address));
  const following = new Set(
    actions.filter((a) => a.action !== "delete" && a.action !== "unshare").map((a) => a.address),
  );
  const cascade = cascadeOf({
    ...c,
    deletions: deleting.map((a) => ({ kind: a.kind, id: a.id!, address: a.address })),
  }).filter((o) => !(following.has(o.address) && o.managed && isUnderReplaced(o, replaced)));
  const byAddress = new Map(actions.map((a) => [a.address, a]));
  for (const o of cascade) {
    // Transitive objects are noted on the deletion that started the chain.
    let root = o.by;
    while (!byAddress.has(root)) root = cascade.find((x) => x.address === root)!.by;
    byAddress.get(root)!.notes.push(cascadeNote(o));
  }
  return { cascade, blocks: cascadeBlock(cascade, c.allowCascade, replaced) };
}

/** Whether `o` is in the cascade because its parent is replaced (not deleted): a managed object with a step of its own follows the new id. */
const isUnderReplaced = (o: CascadedObject, replaced: ReadonlySet<string>) => replaced.has(o.by);
