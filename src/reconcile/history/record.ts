/**
 * What an apply, destroy, import or rollback records (pure): the objects it changed, each with the
 * snapshot of its settings after the step (none for a secret input: values are never kept), the
 * hash of what the history held before, and the plan's digest.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../canonical-json";
import { KINDS } from "../../kinds/registry";
import type { DesiredObject, LoadedProject } from "../../model/desired";
import type { Step } from "../plan";
import type { ApplyReport, Plan } from "../plan/plan-model";
import type { DeploymentObject, DeploymentOperation, Snapshot } from "./history-model";
import { hashedSnapshot, type HashedSnapshot, type NewDeployment } from "./history-store";

/** The settings rollback can put back: the desired object without secret inputs or source. */
export function snapshotOf(o: DesiredObject): Snapshot {
  const secret = new Set(KINDS[o.kind]?.secretInputs ?? []);
  const inputs = Object.fromEntries(Object.entries(o.inputs).filter(([k, v]) => !secret.has(k) && v !== undefined));
  const options = Object.fromEntries(Object.entries(o.options).filter(([, v]) => v !== undefined));
  // In sorted key order: its canonical text is made without a copy of it.
  return { inputs, kind: o.kind, options, refs: { ...o.refs } };
}

/**
 * The snapshots of desired objects, made once per object: a loaded object is not changed after the
 * load, and apply may make them ahead of its end ({@link prepareSnapshots}), while it waits.
 */
const hashed = new WeakMap<DesiredObject, HashedSnapshot>();

/** {@link snapshotOf} with its canonical text and hash, made once per object. */
export function hashedSnapshotOf(o: DesiredObject): HashedSnapshot {
  let h = hashed.get(o);
  if (!h) hashed.set(o, (h = hashedSnapshot(snapshotOf(o))));
  return h;
}

/**
 * Makes the snapshots of `objects` (see {@link hashedSnapshotOf}) a slice at a time between other
 * work (each slice in its own turn of the event loop), until all are made or `stop()` is called:
 * for time apply spends waiting (on the Python check) before any step. The deployment's record
 * makes those left when it needs them.
 */
export function prepareSnapshots(objects: readonly DesiredObject[], sliceMs = 4): { stop(): void } {
  let next = 0;
  let stopped = false;
  const slice = () => {
    if (stopped) return;
    const until = performance.now() + sliceMs;
    while (next < objects.length && performance.now() < until)
      for (const end = Math.min(objects.length, next + 50); next < end; next++) hashedSnapshotOf(objects[next]!);
    if (next < objects.length) setImmediate(slice);
  };
  setImmediate(slice);
  return { stop: () => void (stopped = true) };
}

/** SHA-256 of the plan's actions (secrets appear in them as fingerprints only). */
export function planDigest(plan: Plan): string {
  return createHash("sha256")
    .update(canonicalJson({ project: plan.project, target: plan.target, actions: plan.actions }))
    .digest("hex");
}

/**
 * {@link planDigest} made a slice at a time between other work (each slice in its own turn of the
 * event loop, as {@link prepareSnapshots}), for time apply spends waiting on the platform's answers;
 * `value()` makes what is left at once. The same digest: the canonical JSON of `{actions, project,
 * target}` (in that, sorted, order) is hashed an action at a time. The plan must not change meanwhile.
 */
export class PlanDigest {
  private readonly hash = createHash("sha256").update('{"actions":[');
  private next = 0;
  private digest: string | undefined;

  constructor(
    private readonly plan: Plan,
    sliceMs = 1,
  ) {
    const slice = () => {
      if (this.digest !== undefined) return;
      const until = performance.now() + sliceMs;
      while (this.next < plan.actions.length && performance.now() < until) this.step(50);
      if (this.next < plan.actions.length) setImmediate(slice);
    };
    setImmediate(slice);
  }

  private step(count: number): void {
    const actions = this.plan.actions;
    for (const end = Math.min(actions.length, this.next + count); this.next < end; this.next++)
      this.hash.update(`${this.next ? "," : ""}${canonicalJson(actions[this.next]) ?? "null"}`);
  }

  /** The digest, the actions not hashed yet hashed now. */
  value(): string {
    if (this.digest === undefined) {
      this.step(Number.POSITIVE_INFINITY);
      // `{"project":…,"target":…}` without its brace, or `{}` when both are absent.
      const rest = canonicalJson({ project: this.plan.project, target: this.plan.target });
      this.digest = this.hash.update(rest === "{}" ? "]}" : `],${rest.slice(1)}`).digest("hex");
    }
    return this.digest;
  }
}

const GONE = new Set(["delete", "unshare", "forget"]);

export interface RecordInput {
  operation: DeploymentOperation;
  project: LoadedProject;
  plan: Plan;
  steps: readonly Step[];
  report: ApplyReport;
  /** What the history held for each address before (its state after the last deployment). */
  before: ReadonlyMap<string, string>;
  /** Addresses managed before this run (the inventory's). */
  managedBefore: ReadonlySet<string>;
  time: Date;
  actor: string;
  git?: { commit: string; dirty: boolean };
  rollbackOf?: string;
  /** The plan's digest, made ahead (see {@link PlanDigest}); else made from `plan`. */
  digest?: PlanDigest;
  /** The history is empty: record the objects left as they were too, as its baseline. */
  seed: boolean;
}

/** The deployment to record, or undefined when no step changed anything. */
export function deploymentOf(input: RecordInput): NewDeployment | undefined {
  const done = new Set(input.report.results.filter((r) => r.status === "done").map((r) => `${r.action} ${r.address}`));
  const ids = new Map(input.report.results.filter((r) => r.id).map((r) => [r.address, r.id!]));
  const snapshots = new Map<string, Snapshot>();
  const texts = new Map<string, string>();
  const byAddress = new Map<string, DeploymentObject>();
  const keep = (o: DesiredObject) => {
    const h = hashedSnapshotOf(o);
    snapshots.set(h.hash, h.snapshot);
    texts.set(h.hash, h.text);
    return h.hash;
  };
  const add = (address: string, o: Omit<DeploymentObject, "address" | "before">) => {
    const before = input.before.get(address);
    // Two steps on one address (a token rotated beside an update, an old credential retired): what it holds after wins.
    if (byAddress.get(address)?.after && o.after === null) return;
    byAddress.set(address, { address, ...(before ? { before } : {}), ...o });
  };
  for (const step of input.steps) {
    const a = step.action;
    if (!done.has(`${a.action} ${a.address}`)) continue;
    const id = ids.get(a.address) ?? a.id;
    if (GONE.has(a.action) || !step.desired) {
      add(a.address, { kind: a.kind, action: a.action, ...(id ? { id } : {}), after: null });
    } else {
      add(a.address, { kind: a.kind, action: a.action, ...(id ? { id } : {}), after: keep(step.desired) });
      if (a.movedFrom && !byAddress.has(a.movedFrom))
        add(a.movedFrom, { kind: a.kind, action: a.action, ...(id ? { id } : {}), after: null });
    }
  }
  if (!byAddress.size) return undefined;
  const touched = new Set(byAddress.keys());
  const unchanged = new Map<string, string>();
  if (input.seed)
    for (const o of input.project.objects)
      if (!touched.has(o.address) && input.managedBefore.has(o.address)) unchanged.set(o.address, keep(o));
  const objects = [...byAddress.values()].sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
  return {
    deployment: {
      time: input.time.toISOString(),
      target: input.project.target,
      ...(input.git ? { commit: input.git.commit, dirty: input.git.dirty } : {}),
      actor: input.actor,
      operation: input.operation,
      ...(input.rollbackOf ? { rollbackOf: input.rollbackOf } : {}),
      planDigest: input.digest?.value() ?? planDigest(input.plan),
      ok: input.report.ok,
      objects,
    },
    snapshots,
    unchanged,
    texts,
  };
}

/** Who runs this: the GitHub actor under Actions, else `user@host`. */
export function actorOf(env: Record<string, string | undefined>, user: string, host: string): string {
  if (env.GITHUB_ACTIONS === "true" && env.GITHUB_ACTOR) return `github:${env.GITHUB_ACTOR}`;
  return `${user}@${host}`;
}
