/**
 * The deployment history in a state backend: `history/index.json` (the deployments, the baseline
 * and where each snapshot is) and one pack per deployment, `history/packs/<id>.json`, holding the
 * snapshots that deployment introduced, each named by the SHA-256 of its canonical JSON. A body
 * deployed once is stored once, however many deployments keep it: 100 deployments of 10,000 UDFs
 * cost the 10,000 first bodies and the changed ones. Packs are written before the index, so a run
 * stopped between the two leaves at most an unreferenced pack, removed by the next write.
 */
import { hash } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "../../canonical-json";
import { SvcError } from "../../errors";
import type { StateBackend } from "../state/types";
import {
  HISTORY_VERSION,
  type Deployment,
  type DeploymentObject,
  type HistoryIndex,
  type HistoryRetention,
  type Snapshot,
} from "./history-model";

export const INDEX_DOCUMENT = "history/index.json";
const packDocument = (pack: string) => `history/packs/${pack}.json`;
/** The largest index or pack read (a pack holds at most one deployment's new bodies). */
const MAX_HISTORY_BYTES = 512 * 1024 * 1024;

export class HistoryError extends SvcError {
  override readonly name = "HistoryError";
  constructor(message: string) {
    super("history_invalid", message);
  }
}

/** The name of a snapshot: SHA-256 of its canonical JSON, hex. */
export function snapshotHash(snapshot: Snapshot): string {
  return hashedSnapshot(snapshot).hash;
}

/** A snapshot with its canonical JSON text and its name (the SHA-256 of that text). */
export interface HashedSnapshot {
  snapshot: Snapshot;
  text: string;
  hash: string;
}

/** The snapshot's canonical text and name, made once: the text is what its pack holds (see {@link recordDeployment}). */
export function hashedSnapshot(snapshot: Snapshot): HashedSnapshot {
  const text = canonicalJson(snapshot);
  return { snapshot, text, hash: hash("sha256", text, "hex") };
}

const ObjectSchema = z.object({
  address: z.string(),
  kind: z.string(),
  action: z.string(),
  id: z.string().optional(),
  before: z.string().optional(),
  after: z.string().nullable(),
});

const DeploymentSchema = z.object({
  id: z.string(),
  time: z.string(),
  target: z.string(),
  commit: z.string().optional(),
  dirty: z.boolean().optional(),
  actor: z.string(),
  operation: z.enum(["apply", "destroy", "import", "rollback", "remediate"]),
  rollbackOf: z.string().optional(),
  planDigest: z.string(),
  ok: z.boolean(),
  objects: z.array(ObjectSchema),
});

const IndexSchema = z.object({
  version: z.literal(HISTORY_VERSION),
  project: z.string(),
  target: z.string(),
  next: z.number().int().min(1),
  baseline: z.record(z.string(), z.string()),
  deployments: z.array(DeploymentSchema),
  blobs: z.record(z.string(), z.string()),
});

/** An empty history for `project` and `target`. */
export function emptyHistory(project: string, target: string): HistoryIndex {
  return { version: HISTORY_VERSION, project, target, next: 1, baseline: {}, deployments: [], blobs: {} };
}

/** The target's history (empty when none was recorded). @throws HistoryError when the index is damaged or newer. */
export async function readHistory(backend: StateBackend, project: string, target: string): Promise<HistoryIndex> {
  const where = `${backend.location}/${INDEX_DOCUMENT}`;
  const text = await backend.readDocument(INDEX_DOCUMENT, MAX_HISTORY_BYTES);
  if (text === undefined) return emptyHistory(project, target);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new HistoryError(`${where} is not JSON. Move it away to start a new history.`);
  }
  const version = (doc as { version?: unknown })?.version;
  if (typeof version === "number" && version > HISTORY_VERSION)
    throw new HistoryError(
      `${where} has format version ${version}; this svc-iac reads version ${HISTORY_VERSION}. Upgrade svc-iac.`,
    );
  const parsed = IndexSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HistoryError(
      `${where} is not a svc-iac deployment history: at ${issue.path.join(".") || "(root)"}, ${issue.message}. Move it away to start a new history.`,
    );
  }
  const index = parsed.data as HistoryIndex;
  if (index.project !== project || index.target !== target)
    throw new HistoryError(
      `${where} is the history of ${index.project} (${index.target}), not of ${project} (${target}).`,
    );
  return index;
}

/** Address → snapshot hash after deployment `id` (`undefined`: the state before the oldest kept one). */
export function stateAfter(index: HistoryIndex, id?: string): Map<string, string> {
  const state = new Map(Object.entries(index.baseline));
  if (id === undefined) return state;
  for (const d of index.deployments) {
    fold(state, d.objects);
    if (d.id === id) return state;
  }
  throw new HistoryError(`There is no deployment ${id} in the history.`);
}

function fold(state: Map<string, string>, objects: readonly DeploymentObject[]): void {
  for (const o of objects) {
    if (o.after === null) state.delete(o.address);
    else state.set(o.address, o.after);
  }
}

/** The snapshots named by `hashes`, read from their packs; each checked against its name. */
export async function readSnapshots(
  backend: StateBackend,
  index: HistoryIndex,
  hashes: Iterable<string>,
): Promise<Map<string, Snapshot>> {
  const byPack = new Map<string, string[]>();
  for (const h of new Set(hashes)) {
    const pack = index.blobs[h];
    if (!pack) throw new HistoryError(`The history names a snapshot ${h.slice(0, 12)}… that no pack holds.`);
    byPack.set(pack, [...(byPack.get(pack) ?? []), h]);
  }
  const out = new Map<string, Snapshot>();
  for (const [pack, wanted] of byPack) {
    const where = `${backend.location}/${packDocument(pack)}`;
    const text = await backend.readDocument(packDocument(pack), MAX_HISTORY_BYTES);
    if (text === undefined) throw new HistoryError(`${where} is missing: the history lost that deployment's bodies.`);
    let doc: Record<string, Snapshot>;
    try {
      doc = JSON.parse(text) as Record<string, Snapshot>;
    } catch {
      throw new HistoryError(`${where} is not JSON.`);
    }
    for (const h of wanted) {
      const s = doc[h];
      if (!s || snapshotHash(s) !== h)
        throw new HistoryError(`${where} does not hold the snapshot ${h.slice(0, 12)}… it should (damaged).`);
      out.set(h, s);
    }
  }
  return out;
}

/** What a deployment adds: its record without id, and the snapshots it names. */
export interface NewDeployment {
  deployment: Omit<Deployment, "id">;
  snapshots: Map<string, Snapshot>;
  /**
   * Objects the deployment left as they were, by address: recorded in the baseline when the history
   * is empty, so that the first deployment's state is whole.
   */
  unchanged: Map<string, string>;
  /**
   * The canonical JSON text of snapshots, by hash, when already made (to name them): the pack is
   * put together from these texts instead of serializing every snapshot again.
   */
  texts?: ReadonlyMap<string, string>;
}

/**
 * The pack of `fresh` (hash → snapshot): its canonical JSON, the same text as `canonicalJson(fresh)`,
 * put together from the snapshots' texts in `texts` when it has all of them (the keys are hex hashes:
 * sorted as canonicalJson sorts them, and written as they are).
 */
export function packText(fresh: ReadonlyMap<string, Snapshot>, texts: ReadonlyMap<string, string> = new Map()): string {
  const hashes = [...fresh.keys()].sort();
  const parts: string[] = [];
  for (const h of hashes) {
    const text = texts.get(h);
    if (text === undefined) return canonicalJson(Object.fromEntries(fresh));
    parts.push(`${JSON.stringify(h)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * Appends a deployment: writes its pack (the snapshots no earlier pack holds), applies retention
 * (dropped deployments folded into the baseline, packs nothing names any more removed) and writes
 * the index. Returns the new index and the deployment's id.
 */
export async function recordDeployment(
  backend: StateBackend,
  index: HistoryIndex,
  added: NewDeployment,
  retention: HistoryRetention,
  now: Date,
): Promise<{ index: HistoryIndex; id: string }> {
  const id = String(index.next);
  const next: HistoryIndex = {
    ...index,
    next: index.next + 1,
    baseline: { ...index.baseline },
    blobs: { ...index.blobs },
    deployments: [...index.deployments, { id, ...added.deployment }],
  };
  if (!index.deployments.length)
    for (const [address, h] of added.unchanged) if (!(address in next.baseline)) next.baseline[address] = h;
  const fresh = new Map<string, Snapshot>();
  for (const [h, s] of added.snapshots) {
    if (next.blobs[h]) continue;
    fresh.set(h, s);
    next.blobs[h] = id;
  }
  if (fresh.size) await backend.writeDocument(packDocument(id), packText(fresh, added.texts));
  const unreferenced = retain(next, retention, now);
  await backend.writeDocument(INDEX_DOCUMENT, `${canonicalJson(next)}\n`);
  for (const pack of unreferenced) await backend.removeDocument(packDocument(pack));
  return { index: next, id };
}

/**
 * Drops the deployments retention does not keep (folding them into the baseline) and the blobs
 * nothing names; returns the packs no kept blob is in (to remove once the index is written).
 */
export function retain(index: HistoryIndex, retention: HistoryRetention, now: Date): string[] {
  const packsBefore = new Set(Object.values(index.blobs));
  const tooOld = (d: Deployment) =>
    retention.maxAgeMs !== undefined && now.getTime() - Date.parse(d.time) > retention.maxAgeMs;
  while (
    index.deployments.length > 1 &&
    (index.deployments.length > Math.max(1, retention.keep) || tooOld(index.deployments[0]!))
  ) {
    const dropped = index.deployments.shift()!;
    const state = new Map(Object.entries(index.baseline));
    fold(state, dropped.objects);
    index.baseline = Object.fromEntries([...state].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  const named = new Set<string>(Object.values(index.baseline));
  for (const d of index.deployments)
    for (const o of d.objects) {
      if (o.after) named.add(o.after);
      if (o.before) named.add(o.before);
    }
  for (const h of Object.keys(index.blobs)) if (!named.has(h)) delete index.blobs[h];
  const kept = new Set(Object.values(index.blobs));
  return [...packsBefore].filter((p) => !kept.has(p)).sort();
}
