/**
 * The objects a plan (or a drift report) touches and their references, as a graph: one node per
 * object, styled by what happens to it (created, updated, replaced, deleted, taken along by a
 * deletion, or only referenced), an edge from each object to what it refers to, and a dotted edge
 * from an object a deletion takes with it to that deletion. Pure.
 *
 * Kept readable at any size: past {@link MAX_NODES} nodes, the largest groups (same style, same
 * kind, same references; else same style and kind) are collapsed into one node with a count,
 * largest first and only as many as needed (see `groupsWithin`); there are few (style, kind) groups.
 *
 * Names come from the repository and the platform, so they are untrusted: the Mermaid and DOT
 * writers ({@link toMermaid}, {@link toDot}) never use them as ids (ids are `n1`, `n2`, … in a
 * stable order) and write them only inside quoted labels, escaped.
 */
import type { ActionType, DriftClass, DriftReport, Plan } from "../plan/plan-model";

/** How a node is drawn. */
export type NodeStyle =
  | "create"
  | "update"
  | "replace"
  | "delete"
  | "cascade"
  | "broken"
  | "missing"
  | "orphaned"
  | "unmanaged"
  | "pending"
  | "context";

/** One object of the graph, or a collapsed group of them (`count` > 1). */
export interface GraphNode {
  /** Generated id (`n1`, `n2`, …): never text from the repository or the platform. */
  id: string;
  style: NodeStyle;
  /** The object's address, or for a group what its members have in common. */
  title: string;
  /** What happens to it: `create`, `replace`, `deleted with canvas.x`, … */
  caption: string;
  /** How many objects the node stands for. */
  count: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** `ref`: `from` refers to `to`; `takes`: deleting `to` deletes (or breaks) `from`. */
  type: "ref" | "takes";
}

export interface ChangeGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Objects drawn inside collapsed groups (0 when every object has its own node). */
  collapsed: number;
  /** Objects in the graph, collapsed or not. */
  objects: number;
}

/** Most nodes a graph draws (GitHub renders a few dozen boxes legibly). */
export const MAX_NODES = 60;

/** Longest title drawn; longer names are cut with an ellipsis. */
const MAX_TITLE = 60;

/** An object before layout: its address, how it is drawn, what it refers to. */
interface Entry {
  address: string;
  kind: string;
  style: NodeStyle;
  caption: string;
  references: string[];
  /** The deletion that takes it along. */
  by?: string;
}

const ACTION_STYLE: Record<ActionType, NodeStyle> = {
  create: "create",
  share: "create",
  adopt: "create",
  update: "update",
  rename: "update",
  rotate: "update",
  replace: "replace",
  delete: "delete",
  unshare: "delete",
  // Forgotten: nothing changes on the platform; drawn as context, like an object the plan only refers to.
  forget: "context",
};

/** Drawing order: what changes most first. */
const STYLE_ORDER: readonly NodeStyle[] = [
  "delete",
  "replace",
  "cascade",
  "broken",
  "create",
  "update",
  "missing",
  "orphaned",
  "pending",
  "unmanaged",
  "context",
];

/** Fill and stroke of each style, and the words a collapsed group uses. */
export const STYLES: Record<NodeStyle, { fill: string; stroke: string; dashed?: boolean; words: string }> = {
  create: { fill: "#dafbe1", stroke: "#1a7f37", words: "created" },
  update: { fill: "#fff8c5", stroke: "#9a6700", words: "updated" },
  replace: { fill: "#ffebe9", stroke: "#bc4c00", words: "replaced" },
  delete: { fill: "#ffebe9", stroke: "#cf222e", words: "deleted" },
  cascade: { fill: "#ffebe9", stroke: "#cf222e", dashed: true, words: "deleted along" },
  broken: { fill: "#fff1e5", stroke: "#bc4c00", dashed: true, words: "left broken" },
  missing: { fill: "#ffebe9", stroke: "#cf222e", words: "missing" },
  orphaned: { fill: "#fff1e5", stroke: "#bc4c00", words: "orphaned" },
  pending: { fill: "#ddf4ff", stroke: "#0969da", words: "pending" },
  unmanaged: { fill: "#f6f8fa", stroke: "#57606a", dashed: true, words: "unmanaged" },
  context: { fill: "#f6f8fa", stroke: "#8c959f", words: "unchanged" },
};

const DRIFT_STYLE: Record<DriftClass, NodeStyle> = {
  changed: "update",
  missing: "missing",
  orphaned: "orphaned",
  unmanaged: "unmanaged",
  pending: "pending",
};

/** The graph of a plan: its actions, what its deletions take along, and the unchanged objects they refer to. */
export function planGraph(plan: Plan, maxNodes = MAX_NODES): ChangeGraph {
  const entries: Entry[] = plan.actions.map((a) => ({
    address: a.address,
    kind: a.kind,
    style: ACTION_STYLE[a.action],
    caption: a.action,
    references: a.references ?? [],
  }));
  for (const c of plan.cascade ?? []) {
    entries.push({
      address: c.address,
      kind: c.kind,
      style: c.effect === "deleted" ? "cascade" : "broken",
      caption: `${c.effect === "deleted" ? "deleted" : "broken"} with ${c.by}${c.managed ? "" : " (not managed)"}`,
      references: [],
      by: c.by,
    });
  }
  return layout(entries, maxNodes);
}

/** The graph of a drift report: each drifted object by class, and the unchanged objects they refer to. */
export function driftGraph(drift: DriftReport, maxNodes = MAX_NODES): ChangeGraph {
  const entries: Entry[] = drift.items.map((i) => ({
    address: i.address,
    kind: i.kind,
    style: DRIFT_STYLE[i.class],
    caption: i.class,
    references: i.references ?? [],
  }));
  return layout(entries, maxNodes);
}

/** The kind of an address that is only referenced (`canvas` of `canvas.sales`). */
const prefixOf = (address: string) => address.slice(0, Math.max(0, address.indexOf("."))) || address;

/** Entries, plus context nodes for referenced objects that do not change, collapsed to at most `maxNodes` nodes. */
function layout(changed: Entry[], maxNodes: number): ChangeGraph {
  const byAddress = new Map<string, Entry>();
  for (const e of changed) if (!byAddress.has(e.address)) byAddress.set(e.address, e);
  for (const e of changed) {
    for (const r of [...e.references, ...(e.by ? [e.by] : [])]) {
      if (!byAddress.has(r))
        byAddress.set(r, { address: r, kind: prefixOf(r), style: "context", caption: "unchanged", references: [] });
    }
  }
  const rank = new Map(STYLE_ORDER.map((st, i) => [st, i] as const));
  const entries = [...byAddress.values()].sort(
    (a, b) => rank.get(a.style)! - rank.get(b.style)! || cmp(a.address, b.address),
  );
  return build(entries, groupsWithin(entries, maxNodes));
}

/**
 * Each entry's group, merged until the node count fits. Candidates are the fine groups (same
 * style, kind, references and deletion) and the coarse ones (same style and kind), ranked by the
 * nodes each saves over the fine grouping (a fine group: its members less one; a coarse group: its
 * fine groups less one), fine first on a tie; they are merged in that order only while the graph
 * is too large. So 500 UDFs updated on each of three canvases become three boxes, and 100 cronjobs
 * each running another UDF one box, while the canvases they refer to keep a box each.
 */
function groupsWithin(entries: Entry[], maxNodes: number): Map<Entry, string> {
  const groupOf = new Map<Entry, string>(entries.map((e) => [e, `one ${e.address}`]));
  if (entries.length <= maxNodes) return groupOf;
  const fineKey = (e: Entry) => `fine ${e.style} ${e.kind} ${e.references.join(",")} ${e.by ?? ""}`;
  const coarseKey = (e: Entry) => `coarse ${e.style} ${e.kind}`;
  const candidates = new Map<string, { members: Entry[]; fine: Set<string>; coarse: boolean }>();
  for (const e of entries) {
    const fine = fineKey(e);
    for (const [key, coarse] of [
      [fine, false],
      [coarseKey(e), true],
    ] as const) {
      const c = candidates.get(key) ?? { members: [], fine: new Set<string>(), coarse };
      c.members.push(e);
      c.fine.add(fine);
      candidates.set(key, c);
    }
  }
  const score = (c: { members: Entry[]; fine: Set<string>; coarse: boolean }) =>
    (c.coarse ? c.fine.size : c.members.length) - 1;
  const order = [...candidates.entries()].filter(([, c]) => score(c) > 0);
  order.sort(([ka, a], [kb, b]) => score(b) - score(a) || Number(a.coarse) - Number(b.coarse) || cmp(ka, kb));
  let nodes = entries.length;
  for (const [key, c] of order) {
    if (nodes <= maxNodes) break;
    const saves = new Set(c.members.map((e) => groupOf.get(e))).size - 1;
    for (const e of c.members) groupOf.set(e, key);
    nodes -= saves;
  }
  return groupOf;
}

/** Nodes and edges from the entries and their groups. */
function build(entries: Entry[], groupOf: Map<Entry, string>): ChangeGraph {
  const members = new Map<string, Entry[]>();
  for (const e of entries) {
    const g = groupOf.get(e)!;
    const list = members.get(g) ?? [];
    list.push(e);
    members.set(g, list);
  }
  const nodeOfGroup = new Map<string, GraphNode>();
  let n = 0;
  for (const [g, list] of members) {
    const first = list[0]!;
    const node: GraphNode =
      list.length === 1
        ? { id: `n${++n}`, style: first.style, title: first.address, caption: first.caption, count: 1 }
        : {
            id: `n${++n}`,
            style: first.style,
            title: groupTitle(list),
            caption: `${list.length} ${STYLES[first.style].words}`,
            count: list.length,
          };
    nodeOfGroup.set(g, node);
  }
  const index = new Map(entries.map((e) => [e.address, e] as const));
  const nodeOf = (address: string) => {
    const e = index.get(address);
    return e && nodeOfGroup.get(groupOf.get(e)!);
  };
  const edges = new Map<string, GraphEdge>();
  for (const e of entries) {
    const from = nodeOfGroup.get(groupOf.get(e)!)!;
    const add = (address: string, type: GraphEdge["type"]) => {
      const to = nodeOf(address);
      if (!to || to === from) return;
      edges.set(`${from.id} ${to.id} ${type}`, { from: from.id, to: to.id, type });
    };
    for (const r of e.references) add(r, "ref");
    if (e.by) add(e.by, "takes");
  }
  const nodes = [...nodeOfGroup.values()];
  const collapsed = nodes.filter((x) => x.count > 1).reduce((s, x) => s + x.count, 0);
  return { nodes, edges: [...edges.values()], collapsed, objects: entries.length };
}

/** What a group's members share: `udf.sales/*` when they share a prefix past the kind, else the kind. */
function groupTitle(list: Entry[]): string {
  const addresses = list.map((e) => e.address);
  let prefix = addresses[0]!;
  for (const a of addresses) while (!a.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const kind = prefixOf(addresses[0]!);
  const cut = Math.max(prefix.lastIndexOf("/"), prefix.lastIndexOf("."));
  return cut > kind.length ? `${prefix.slice(0, cut + 1)}*` : `${kind}.*`;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A title no longer than {@link MAX_TITLE} characters (whole code points). */
export function shortTitle(s: string): string {
  const chars = [...s];
  return chars.length > MAX_TITLE ? `${chars.slice(0, MAX_TITLE - 1).join("")}…` : s;
}
