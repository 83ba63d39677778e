/**
 * Many objects of one canvas (or of one kind) going through the same action, shown as one line:
 * `canvas.sales and its 100 UDFs (u00000 … u00099)`. A first apply of 2,000 UDFs is then 20 lines
 * to read, not 12,000; what a reviewer must read (updates, replacements, deletions, with their
 * diffs) is never grouped by the plan. `--verbose` shows every object instead.
 */
import type { DesiredKind } from "../../model/desired";
import type { ActionType } from "../plan/plan-model";
import { formatCount, oneLine } from "./values";

/** Fewer objects than this in a group are shown one by one. */
export const GROUP_MIN = 5;

/** What grouping needs to know of a planned action or an apply result. */
export interface Groupable {
  address: string;
  kind: DesiredKind;
  action: ActionType;
  /** The addresses it refers to (a UDF's canvas), as in the plan. */
  references?: string[];
}

export interface BulkGroup<T extends Groupable> {
  action: ActionType;
  /** The canvas the members belong to (`canvas.sales`); absent for a group of one kind (secrets). */
  canvas?: string;
  members: T[];
}

export type Shown<T extends Groupable> = { one: T } | { group: BulkGroup<T> };

const NOUNS: Record<DesiredKind, [string, string]> = {
  Canvas: ["canvas", "canvases"],
  Udf: ["UDF", "UDFs"],
  CanvasShare: ["share", "shares"],
  Cronjob: ["cronjob", "cronjobs"],
  Secret: ["secret", "secrets"],
  ServiceAccount: ["service account", "service accounts"],
  BucketPolicy: ["bucket policy", "bucket policies"],
};

/** `UDF` / `UDFs`: how the groups name a kind. */
export function kindNoun(kind: DesiredKind | string, count: number): string {
  return (NOUNS as Record<string, [string, string] | undefined>)[kind]?.[count === 1 ? 0 : 1] ?? kind;
}

/** The canvas an object belongs to: itself for a canvas, else the canvas it refers to, if any. */
export function canvasOf(o: Pick<Groupable, "address" | "kind" | "references">): string | undefined {
  if (o.kind === "Canvas") return o.address;
  return o.references?.find((r) => r.startsWith("canvas."));
}

/** The group an object falls in: its action and its canvas (or, without one, its kind). */
export function groupKeyOf(o: Groupable): string {
  return `${o.action}\0${canvasOf(o) ?? o.kind}`;
}

/**
 * `items` in their order, those that `groupable` accepts gathered by {@link groupKeyOf} into one
 * entry where the first of them stands, when a group has {@link GROUP_MIN} members or more.
 * `groupable` may return a text instead of `true`: only items with the same text share a group
 * (an apply report keeps what was done apart from what was skipped, and each reason apart).
 */
export function groupBulk<T extends Groupable>(
  items: readonly T[],
  groupable: (t: T) => boolean | string,
  min = GROUP_MIN,
): Shown<T>[] {
  const groups = new Map<string, T[]>();
  // Each item's key, made once (undefined when it is not groupable).
  const keys = items.map((t) => {
    const g = groupable(t);
    return g === false ? undefined : g === true ? groupKeyOf(t) : `${groupKeyOf(t)}\0${g}`;
  });
  items.forEach((t, i) => {
    const key = keys[i];
    if (key === undefined) return;
    const members = groups.get(key);
    if (members) members.push(t);
    else groups.set(key, [t]);
  });
  const shown: Shown<T>[] = [];
  const placed = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const t = items[i]!;
    const key = keys[i];
    const members = key === undefined ? undefined : groups.get(key)!;
    if (key === undefined || !members || members.length < min) {
      shown.push({ one: t });
      continue;
    }
    if (placed.has(key)) continue;
    placed.add(key);
    const canvas = canvasOf(t);
    shown.push({ group: { action: t.action, ...(canvas ? { canvas } : {}), members } });
  }
  return shown;
}

/** How many objects the groups among `shown` hold. */
export const groupedCount = (shown: readonly Shown<Groupable>[]): number =>
  shown.reduce((n, s) => n + ("group" in s ? s.group.members.length : 0), 0);

/**
 * The objects of a group, without its action: `canvas.sales and its 100 UDFs (u00000 … u00099)`,
 * `12 UDFs on canvas.sales (a … l)`, `7 secrets (A … G)`.
 */
export function describeGroup(group: BulkGroup<Groupable>): string {
  const own = group.canvas ? group.members.find((m) => m.address === group.canvas) : undefined;
  const byKind = new Map<DesiredKind, string[]>();
  for (const m of group.members) {
    if (m === own) continue;
    const names = byKind.get(m.kind);
    if (names) names.push(nameIn(m.address, group.canvas));
    else byKind.set(m.kind, [nameIn(m.address, group.canvas)]);
  }
  const canvas = group.canvas ? oneLine(group.canvas) : "";
  // "on canvas.sales" after the count when the canvas itself is not in the group.
  const on = group.canvas && !own ? ` on ${canvas}` : "";
  const parts = [...byKind].map(
    ([kind, names]) => `${formatCount(names.length)} ${kindNoun(kind, names.length)}${on} (${range(names)})`,
  );
  if (own) return parts.length ? `${canvas} and its ${parts.join(", ")}` : canvas;
  return parts.join(", ");
}

/** The name of an object inside its group: `u00042` for `udf.sales/u00042` on `canvas.sales`. */
function nameIn(address: string, canvas: string | undefined): string {
  const name = address.slice(address.indexOf(".") + 1);
  const folder = canvas ? `${canvas.slice(canvas.indexOf(".") + 1)}/` : undefined;
  return oneLine(folder && name.startsWith(folder) ? name.slice(folder.length) : name);
}

/** Up to three names in full, else the first and the last in sorted order (found without sorting a group of thousands). */
function range(names: string[]): string {
  if (names.length <= 3) return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(", ");
  let first = names[0]!;
  let last = first;
  for (const n of names) {
    if (n < first) first = n;
    if (n > last) last = n;
  }
  return `${first} … ${last}`;
}
