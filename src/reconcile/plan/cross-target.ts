/**
 * The cross-target rule: a plan never adopts an object that another target of the same project
 * has in its inventory. Targets of one project declare the same names, so on one team the
 * natural key of `staging`'s canvas is `default`'s canvas; adopting it would rewrite (and with
 * prune, delete) what the other target manages. Adopting an object no inventory knows stays
 * automatic. Pure: the planned steps and the other inventories in, blocks and warnings out.
 */
import type { LoadedProject } from "../../model/desired";
import { traitsOf } from "../phases";
import type { PlanBlock, PlannedAction } from "./plan-model";
import type { TargetInventory } from "../state/other-targets";
import type { Inventory } from "../../model/inventory";

export const CROSS_TARGET_RULE = "cross-target";

/** An object the plan would take over: found on the platform by its natural key, not in this target's inventory. */
export interface AdoptionCandidate {
  address: string;
  kind: string;
  id: string;
}

/**
 * What this plan would take over: its `adopt` steps, and credentials found by key that it refuses
 * to adopt (their token cannot be read), so their owner is named too. `selected`: the addresses a
 * targeted plan covers (undefined: all).
 */
export function adoptionCandidates(
  project: LoadedProject,
  outcome: { steps: readonly { action: PlannedAction }[]; ids: ReadonlyMap<string, string> },
  inventory: Inventory | undefined,
  selected?: ReadonlySet<string>,
): AdoptionCandidate[] {
  const adopted = outcome.steps.flatMap(({ action: a }) =>
    a.action === "adopt" && a.id ? [{ address: a.address, kind: a.kind, id: a.id }] : [],
  );
  const credentials = project.objects.filter((d) => traitsOf(d.kind).credential);
  if (!credentials.length) return adopted;
  const own = new Set(Object.values(inventory?.objects ?? {}).map((e) => `${e.kind} ${e.id}`));
  const planned = new Set(outcome.steps.map((st) => st.action.address));
  const refused = credentials.flatMap((d) => {
    const id = outcome.ids.get(d.address);
    const credential = !!traitsOf(d.kind).credential;
    return id &&
      credential &&
      !planned.has(d.address) &&
      !own.has(`${d.kind} ${id}`) &&
      (!selected || selected.has(d.address))
      ? [{ address: d.address, kind: d.kind, id }]
      : [];
  });
  return [...adopted, ...refused];
}

/** Where one object is recorded in another target's inventory. */
interface Owner {
  target: string;
  location: string;
  address: string;
}

/** Kind and id → where another target records it (the first target, in name order, when several do). */
function owners(others: readonly TargetInventory[]): Map<string, Owner> {
  const out = new Map<string, Owner>();
  for (const t of others) {
    for (const [address, e] of Object.entries(t.inventory.objects).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const k = `${e.kind} ${e.id}`;
      if (!out.has(k)) out.set(k, { target: t.target, location: t.location, address });
    }
  }
  return out;
}

/** How to keep two targets apart, in the words of svc.yaml. */
function separation(project: LoadedProject, owner: string): string {
  const t = project.target;
  return (
    `Keep the targets apart: give "${t}" its own names (name_prefix under targets.${t} in svc.yaml, e.g. name_prefix: "${t}_"), ` +
    `or its own credentials (targets.${t}.credentials naming another team's token), or remove the object from "${owner}" first.`
  );
}

/**
 * One block per other target whose objects this plan would adopt, naming each object, the owner and
 * how to separate the targets.
 */
export function crossTargetBlocks(
  project: LoadedProject,
  candidates: readonly AdoptionCandidate[],
  others: readonly TargetInventory[],
): PlanBlock[] {
  const owned = owners(others);
  const byOwner = new Map<string, { owner: Owner; objects: string[] }>();
  for (const a of candidates) {
    const owner = owned.get(`${a.kind} ${a.id}`);
    if (!owner) continue;
    const entry = byOwner.get(owner.target) ?? byOwner.set(owner.target, { owner, objects: [] }).get(owner.target)!;
    entry.objects.push(`${a.address} (id ${a.id}${owner.address !== a.address ? `, ${owner.address} there` : ""})`);
  }
  return [...byOwner.values()]
    .sort((a, b) => (a.owner.target < b.owner.target ? -1 : 1))
    .map(({ owner, objects }) => ({
      rule: CROSS_TARGET_RULE,
      message:
        `Target "${project.target}" would adopt ${objects.length === 1 ? "an object" : `${objects.length} objects`} that target "${owner.target}" of project ${project.project} manages ` +
        `(its inventory at ${owner.location}): ${objects.join(", ")}. A target never adopts another target's objects: applying this would change them under "${owner.target}". ` +
        separation(project, owner.target),
    }));
}
