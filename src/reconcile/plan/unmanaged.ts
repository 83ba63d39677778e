/**
 * Unmanaged objects: on the platform, declared nowhere, not in the inventory, and inside what this
 * project manages: each kind's `unmanaged` trait names the parent kind whose objects bound the scope
 * (children of this project's parents). Objects elsewhere in the team belong to other projects or
 * people and are not this project's business. Reported, never deleted.
 */
import type { DesiredKind } from "../../model/desired";
import { byString, PHASES, traitsOf } from "../phases";
import type { UnmanagedObject } from "./plan-model";
import type { LoadedProject } from "../../model/desired";
import type { Observation } from "../observe";
import type { Inventory } from "../../model/inventory";

/** What finding unmanaged objects reads of a plan's input (its \`PlanInput\`, without importing the planner). */
export interface UnmanagedInput {
  project: Pick<LoadedProject, "objects">;
  observation: Observation;
  inventory: Inventory | undefined;
}

export function findUnmanaged(input: UnmanagedInput, ids: Map<string, string>): UnmanagedObject[] {
  const kindOf = new Map(input.project.objects.map((o) => [o.address, o.kind] as const));
  const claimed = new Map<DesiredKind, Set<string>>();
  const claim = (kind: DesiredKind, id: string) =>
    (claimed.get(kind) ?? claimed.set(kind, new Set()).get(kind)!).add(id);
  for (const [address, id] of ids) claim(kindOf.get(address)!, id);
  for (const e of Object.values(input.inventory?.objects ?? {})) claim(e.kind, e.id);
  // Forgotten on purpose (removed: in svc.yaml, svc-iac forget): left alone, and not reported.
  for (const e of Object.values(input.inventory?.forgotten ?? {})) claim(e.kind, e.id);
  const isClaimed = (kind: DesiredKind, id: string) => claimed.get(kind)?.has(id) ?? false;

  /** Parent id → parent name (its address without the prefix), declared parents only or every claimed one. */
  const found = new Map<string, Map<string, string>>();
  // Several kinds live within the same parent kind (a canvas's UDFs and its share): computed once each.
  const parentNames = (kind: DesiredKind, which: "declared" | "claimed"): Map<string, string> => {
    const known = found.get(`${kind} ${which}`);
    if (known) return known;
    const names = new Map<string, string>();
    found.set(`${kind} ${which}`, names);
    // After the prefix, whichever it is (a kind's variants have their own: `note.sales/intro`).
    const nameOf = (address: string) => address.slice(address.indexOf(".") + 1);
    const recorded = input.inventory?.objects ?? {};
    if (which === "claimed")
      for (const address in recorded)
        if (recorded[address]!.kind === kind) names.set(recorded[address]!.id, nameOf(address));
    for (const o of input.project.objects) {
      const id = o.kind === kind ? ids.get(o.address) : undefined;
      if (id) names.set(id, nameOf(o.address));
    }
    return names;
  };

  const out: UnmanagedObject[] = [];
  for (const kind of PHASES) {
    const scope = traitsOf(kind).unmanaged;
    if (!scope) continue;
    const parents = parentNames(scope.within, scope.parents);
    for (const o of input.observation.kinds[kind]?.byId.values() ?? []) {
      const parent = parents.get(scope.parentId(o));
      if (parent !== undefined && !isClaimed(kind, o.id))
        out.push({ address: scope.address(o, parent), kind, id: o.id });
    }
  }
  return out.sort((a, b) => byString(a.address, b.address) || byString(a.id, b.id));
}
