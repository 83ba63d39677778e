/**
 * Renames without loss: which declared objects are platform objects the inventory knows under an
 * address that left the repository, so the plan updates them in place (same id, tokens and
 * references) instead of deleting and creating them, as Terraform's `moved` blocks do.
 *
 * A rename is taken from a `moved:` entry of svc.yaml, or found from the inventory when it is
 * unambiguous: the old address is gone, the new one is not recorded, and exactly one of each has
 * the same content identity (the kind's `renames` trait). Objects whose address follows another's
 * (a share follows its canvas, a UDF the folder it is in) are matched by the planner itself: found
 * by their natural key, they are the object an address that left the repository recorded. Pure.
 */
import { canonicalJson } from "../../canonical-json";
import type { Observed } from "../../kinds/kind";
import { checkedInputs, rawInputs, referencedAddress } from "./kind-inputs";
import type { DesiredKind, DesiredObject, LoadedProject } from "../../model/desired";
import type { Observation } from "../observe";
import { byString, PHASES, traitsOf } from "../phases";
import type { Inventory } from "../../model/inventory";
import type { RefName } from "../../kinds/reconcile-traits";

export interface RenameInput {
  project: LoadedProject;
  observation: Observation;
  inventory: Inventory | undefined;
}

export interface Renames {
  /** New address → the address the inventory records the object under. */
  from: Map<string, string>;
  /** Renames that could not be told apart: say which with `moved:`. */
  warnings: string[];
}

/** The identity of a declared object from its inputs (references unresolved: identities leave them out). */
function desiredIdentity(d: DesiredObject, declared: readonly DesiredObject[]): string | undefined {
  const r = traitsOf(d.kind).renames;
  if (r?.identity) {
    try {
      return r.identity(checkedInputs(d, rawInputs(d, { idOf: () => undefined, desired: () => undefined }, undefined)));
    } catch {
      return undefined;
    }
  }
  if (!r?.byReferrers) return undefined;
  // Only referrers known by their content count (a canvas's UDFs, not its share).
  const referrers = declared.filter(
    (o) =>
      traitsOf(o.kind).renames?.identity &&
      (Object.keys(o.refs) as RefName[]).some((ref) => referencedAddress(o, ref) === d.address),
  );
  const ids = referrers.map((o) => desiredIdentity(o, declared));
  return ids.length && ids.every((i) => i !== undefined) ? canonicalJson(ids.sort()) : undefined;
}

/** The identity of an observed object of `kind` (its referrers: objects whose reference field holds its id). */
function observedIdentity(kind: DesiredKind, o: Observed<any>, observation: Observation): string | undefined {
  const r = traitsOf(kind).renames;
  if (r?.identity) return r.identity(o.state);
  if (!r?.byReferrers) return undefined;
  const prefix = traitsOf(kind).addressPrefix;
  const ids: (string | undefined)[] = [];
  for (const k of PHASES.filter((x) => traitsOf(x).renames?.identity)) {
    const fields = (traitsOf(k).references ?? []).filter((x) => x.ref === prefix).map((x) => x.field);
    if (!fields.length) continue;
    for (const child of observation.kinds[k]?.byId.values() ?? []) {
      if (fields.some((f) => child.state[f] === o.id)) ids.push(observedIdentity(k, child, observation));
    }
  }
  return ids.length && ids.every((i) => i !== undefined) ? canonicalJson(ids.sort()) : undefined;
}

/** Finds the renames of `input` (see the module comment). */
export function findRenames(input: RenameInput): Renames {
  const { project, observation, inventory } = input;
  const objects = inventory?.objects ?? {};
  const declared = new Map(project.objects.map((o) => [o.address, o]));
  const exists = (address: string) => {
    const e = objects[address];
    return !!e && !!observation.kinds[e.kind]?.byId.has(e.id);
  };
  // Gone from the repository, still on the platform; and declared, not recorded.
  const gone = new Set(Object.keys(objects).filter((a) => !declared.has(a) && exists(a)));
  const fresh = new Set(project.objects.filter((o) => objects[o.address]?.kind !== o.kind).map((o) => o.address));
  const from = new Map<string, string>();
  const take = (to: string, old: string) => {
    from.set(to, old);
    gone.delete(old);
    fresh.delete(to);
  };

  for (const m of project.moved ?? []) {
    if (gone.has(m.from) && fresh.has(m.to) && objects[m.from]!.kind === declared.get(m.to)!.kind) take(m.to, m.from);
  }

  const warnings: string[] = [];
  // A rename needs an old object of the same kind: only those kinds' new objects are looked at.
  const goneKinds = new Set([...gone].map((a) => objects[a]!.kind));
  if (!goneKinds.size) return { from, warnings };
  const candidates = new Map<string, { news: string[]; olds: string[] }>();
  const at = (kind: DesiredKind, identity: string) => {
    const k = `${kind} ${identity}`;
    if (!candidates.has(k)) candidates.set(k, { news: [], olds: [] });
    return candidates.get(k)!;
  };
  for (const address of fresh) {
    const d = declared.get(address)!;
    if (!goneKinds.has(d.kind)) continue;
    const identity = desiredIdentity(d, project.objects);
    if (identity !== undefined) at(d.kind, identity).news.push(address);
  }
  for (const address of gone) {
    const e = objects[address]!;
    const o = observation.kinds[e.kind]!.byId.get(e.id)!;
    const identity = observedIdentity(e.kind, o, observation);
    if (identity !== undefined) at(e.kind, identity).olds.push(address);
  }
  const ambiguous = new Set<string>();
  for (const { news, olds } of [...candidates.values()].sort((a, b) => byString(a.news[0] ?? "", b.news[0] ?? ""))) {
    if (!news.length || !olds.length) continue;
    if (news.length === 1 && olds.length === 1) {
      take(news[0]!, olds[0]!);
      continue;
    }
    news.sort(byString);
    olds.sort(byString);
    for (const a of [...news, ...olds]) ambiguous.add(a);
    warnings.push(
      `${news.join(", ")} and ${olds.join(", ")} have the same content, so which was renamed to which is ambiguous: they are planned as new objects${olds.length ? " (the old ones kept, or deleted with prune)" : ""}. To keep the platform objects, say which is which in svc.yaml: moved: [{from: ${olds[0]}, to: ${news[0]}}, …].`,
    );
  }
  const removed = new Set((project.removed ?? []).map((r) => r.address));
  const kindOf = (a: string) => declared.get(a)?.kind ?? objects[a]!.kind;
  warnings.push(
    ...editedRenameHints(
      [...fresh].filter((a) => !ambiguous.has(a)),
      [...gone].filter((a) => !ambiguous.has(a) && !removed.has(a)),
      kindOf,
    ),
  );
  return { from, warnings };
}

/** `udf.sales` for `udf.sales/loader`, `canvas` for `canvas.sales`: where a rename without a move stays. */
const parentOf = (address: string) =>
  address.includes("/") ? address.slice(0, address.indexOf("/")) : address.slice(0, address.indexOf("."));

/**
 * A rename made together with an edit has no content to be found by: it plans a new object and
 * keeps the old one. Where one old object of the kind (on the same canvas, first) is the only
 * candidate, the plan says so and names the `moved:` entry that keeps the platform object.
 */
function editedRenameHints(fresh: string[], gone: string[], kindOf: (address: string) => DesiredKind): string[] {
  // Grouped once: a change that renames every file (a canvas folder renamed) has thousands of each.
  const goneBy = new Map<string, string[]>();
  for (const a of gone) {
    const kind = kindOf(a);
    for (const key of [kind, `${kind} ${parentOf(a)}`]) goneBy.set(key, [...(goneBy.get(key) ?? []), a].slice(0, 2));
  }
  const hints: string[] = [];
  for (const to of fresh.sort(byString)) {
    const kind = kindOf(to);
    if (!traitsOf(kind).renames) continue;
    // Only the count (one, or more) matters: two are kept per group.
    const olds = goneBy.get(kind) ?? [];
    const near = goneBy.get(`${kind} ${parentOf(to)}`) ?? [];
    const old = near.length === 1 ? near[0] : olds.length === 1 ? olds[0] : undefined;
    if (!old) continue;
    hints.push(
      `${to} is new and ${old} left the repository with other content: if ${to} is ${old} renamed and edited, say so in svc.yaml (moved: [{from: ${old}, to: ${to}}]) to keep the platform object and its id. As planned, ${to} is created and ${old} is kept (deleted with prune).`,
    );
  }
  return hints;
}
