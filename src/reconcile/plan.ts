/**
 * Plan: desired objects + observation + inventory → what apply will do. Pure and deterministic:
 * the same inputs always give the same plan, in apply order.
 *
 * Matching, per declared object: the inventory's id when the platform still has it (managed),
 * else the natural key (adopt: found, never recorded), else nothing (create; "recreate" when the
 * inventory had it). Inventory objects no longer declared are deleted only with prune, and only
 * when they still exist; objects nobody declared are listed as unmanaged, never touched.
 */
import type { FieldChange, Observed } from "../resources/kind";
import { KINDS } from "../resources/registry";
import { canonicalJson } from "../resources/bucket-policy";
import { fingerprint } from "../resources/fingerprint";
import { UNKNOWN_ID, checkedInputs, rawInputs, tokenFingerprint, type InputContext } from "./kind-inputs";
import type { DesiredKind, DesiredObject, LoadedProject } from "./model";
import type { Observation } from "./observe";
import { byString, phaseOf } from "./phases";
import { ACTION_TYPES, REPORT_VERSION, type ActionType, type Plan, type PlanBlock, type PlannedAction } from "./plan-model";
import { effectiveRotation } from "./rotation";
import type { Inventory, InventoryEntry } from "./state/types";
import { findUnmanaged } from "./unmanaged";

export interface PlanInput {
  project: LoadedProject;
  observation: Observation;
  inventory: Inventory | undefined;
  now: Date;
  /** Delete inventory objects that left the repository. */
  prune: boolean;
  maxDeletions: number;
  allowDeleteAll: boolean;
  /** Drift: a due `rotate_every` is not a difference between the repository and the platform. */
  ignoreRotationSchedule?: boolean;
}

/** One step of apply: the public action plus what executing it needs (never rendered: may hold tokens). */
export interface Step {
  action: PlannedAction;
  desired?: DesiredObject;
  /** The object as observed (for updates, replaces, deletes and adopts). */
  observed?: Observed<any>;
  /** Kept state given to the kind's update/delete: the observation plus what the inventory kept. */
  olds?: Record<string, unknown>;
  inventory?: InventoryEntry;
  /** True when matched through the inventory (managed), false when found by key or not at all. */
  managed: boolean;
  /** The effective rotation value (shares, service accounts) and the trigger it came from. */
  rotation?: { value: string | number | undefined; trigger: unknown };
  /** Replace by deleting first (the kind's diff says both cannot exist at once). */
  deleteFirst: boolean;
  /** UDF visibility and order to set through the canvas. */
  layout?: { isVisible?: boolean; position?: number };
  /** Only the layout changes (no call to the kind). */
  layoutOnly?: boolean;
  /** Service accounts this address replaced that still exist: deleted by apply (see {@link retiredAccounts}). */
  retire?: string[];
}

export interface PlanOutcome {
  plan: Plan;
  steps: Step[];
  /** Ids known before apply, by address (matched objects). */
  ids: Map<string, string>;
  /** Inventory addresses whose object is gone and not declared: dropped from the inventory by apply. */
  forget: string[];
}

const SHARE_ROTATING = new Set(["rotation", "accessScope"]);
const SHARE_NOTE = "old share links and the session tokens minted for the old token stop working";
const SA_NOTE = "the new account is created and its token published before the old account is deleted";

/** Observed state plus the values only the inventory knows (see InventoryEntry.kept). */
export function keptOlds(kind: DesiredKind, state: Record<string, unknown>, kept: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...state };
  const set = (k: string, v: unknown) => (v === undefined ? delete out[k] : (out[k] = v));
  if (kind === "CanvasShare" && kept) {
    set("clientId", kept.clientId);
    set("rotation", kept.rotation);
    set("accessScope", kept.accessScope);
    const sameToken = typeof state.shareToken === "string" && kept.tokenFingerprint === tokenFingerprint(state.shareToken);
    if (sameToken && kept.mintedScope) out.mintedScope = kept.mintedScope;
  }
  if (kind === "ServiceAccount" && kept) set("rotation", kept.rotation);
  if (kind === "Udf" && kept && typeof kept.createSharedToken === "boolean") out.createSharedToken = kept.createSharedToken;
  return out;
}

/**
 * Service accounts an address replaced that are still on the platform: the old account of a
 * rotation whose delete failed (kept in `kept.retire` until deleted), and a new account whose
 * create answer was lost during a rotation (its tagged name is the inventory's `intent`). Their
 * tokens are either live in the old hands or unknown to everyone, so apply deletes them.
 */
function retiredAccounts(inv: InventoryEntry, currentId: string, seen: Observation["kinds"]["ServiceAccount"]): Observed<any>[] {
  const ids = new Set(Array.isArray(inv.kept?.retire) ? (inv.kept.retire as string[]) : []);
  const lost = inv.intent ? seen?.byKey.get(inv.intent.key) : undefined;
  if (lost) ids.add(lost.id);
  ids.delete(currentId);
  return [...ids].sort().flatMap((id) => seen?.byId.get(id) ?? []);
}

/** The pretty JSON written to a bucket policy's output file. */
export function policyFileText(policy: string): string {
  return JSON.stringify(JSON.parse(policy), null, 2) + "\n";
}

function layoutChanges(d: DesiredObject, state: Record<string, unknown> | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  const { isVisible, position } = d.options;
  if (isVisible !== undefined && state?.isVisible !== isVisible) out.push({ field: "isVisible", action: "update", secret: false, from: state?.isVisible, to: isVisible });
  if (position !== undefined && state?.position !== position) out.push({ field: "position", action: "update", secret: false, from: state?.position, to: position });
  return out;
}

function bucketPolicyChanges(d: DesiredObject, state: Record<string, unknown>, inv: InventoryEntry | undefined, files: Map<string, string>): FieldChange[] {
  const out: FieldChange[] = [];
  const policy = String(state.policy);
  const print = fingerprint(canonicalJson(JSON.parse(policy)), "BucketPolicy:policy");
  if (inv?.kept?.policyFingerprint && inv.kept.policyFingerprint !== print) {
    out.push({ field: "policy", action: "update", secret: false, note: "the environment's policy document changed since the last apply" });
  }
  const output = d.options.output;
  if (output && files.get(output) !== policyFileText(policy)) {
    out.push({ field: "output", action: "update", secret: false, to: output, note: files.has(output) ? "the output file differs from the policy document" : "the output file does not exist" });
  }
  return out;
}

class Planner {
  readonly ids = new Map<string, string>();
  readonly steps: Step[] = [];
  readonly forget: string[] = [];
  readonly orphans: Plan["orphans"] = [];
  readonly warnings: string[] = [];
  readonly blocks: PlanBlock[] = [];
  private readonly canvases = new Map<string, DesiredObject>();
  /** Addresses that get a new id in this apply (created, replaced): objects referring to them see an unknown id. */
  private readonly renewed = new Set<string>();

  constructor(private readonly input: PlanInput) {
    for (const o of input.project.objects) if (o.kind === "Canvas") this.canvases.set(String(o.inputs.name), o);
  }

  private get ctx(): InputContext {
    return { idOf: (a) => (this.renewed.has(a) ? undefined : this.ids.get(a)), canvas: (n) => this.canvases.get(n) };
  }

  private inventoryOf(d: DesiredObject): InventoryEntry | undefined {
    const e = this.input.inventory?.objects[d.address];
    return e && e.kind === d.kind ? e : undefined;
  }

  private step(d: DesiredObject | undefined, action: PlannedAction, more: Partial<Step> & { managed: boolean }): void {
    if (d && (action.action === "create" || action.action === "share" || action.action === "replace")) this.renewed.add(d.address);
    this.steps.push({ desired: d, deleteFirst: false, ...more, action });
  }

  /** Plans one declared object (called in phase order, so the ids it refers to are known when they exist). */
  declared(d: DesiredObject): void {
    const kind = KINDS[d.kind]!;
    const inv = this.inventoryOf(d);
    const seen = this.input.observation.kinds[d.kind];
    const rotating = d.kind === "CanvasShare" || d.kind === "ServiceAccount";
    const trigger = d.inputs.rotation as string | number | undefined;
    const every = this.input.ignoreRotationSchedule ? undefined : d.options.rotateEvery;
    const decision = rotating ? effectiveRotation(trigger, every, inv?.kept, inv?.rotatedAt, this.input.now) : undefined;
    let rotation = decision && { value: decision.rotation, trigger };
    let news = checkedInputs(d, rawInputs(d, this.ctx, rotation?.value));
    const base = { address: d.address, kind: d.kind, source: d.source, notes: [] as string[] };

    let found = inv ? seen?.byId.get(inv.id) : undefined;
    const managed = !!found;
    const key = kind.key(news);
    if (!found && !key.includes(UNKNOWN_ID)) found = seen?.byKey.get(key);

    if (!found) {
      const action: ActionType = d.kind === "CanvasShare" ? "share" : "create";
      const reason = inv?.id ? (d.kind === "CanvasShare" ? "unshared on the platform out of band" : "deleted on the platform out of band") : undefined;
      const notes = d.kind === "ServiceAccount" ? ["its token exists only now: it is published to the configured outputs"] : [];
      this.step(d, { ...base, action, fields: [], ...(reason ? { reason } : {}), notes }, { managed: false, inventory: inv, rotation, layout: d.kind === "Udf" ? d.options : undefined });
      return;
    }
    this.ids.set(d.address, found.id);

    if (d.kind === "ServiceAccount" && !managed) {
      // Found by its tagged name but not recorded: its token cannot be read.
      if (inv?.intent?.key === found.key) {
        rotation = { value: `${trigger ?? ""}@${this.input.now.toISOString()}`, trigger };
        news = checkedInputs(d, rawInputs(d, this.ctx, rotation.value));
        this.step(d, { ...base, action: "rotate", id: found.id, fields: [], reason: "an earlier apply stopped after creating this account, so its token is unknown", notes: [SA_NOTE] }, {
          managed: false, observed: found, olds: found.state, inventory: inv, rotation,
        });
        return;
      }
      this.blocks.push({
        rule: "unreadable-token",
        message: `${d.address}: a service account named "${found.key}" (id ${found.id}) already exists but this project did not create it, and its token cannot be read. Delete it on the platform if nothing uses it, or change \`rotation\` in ${d.source.file} to create a new one.`,
      });
      return;
    }

    const retire = d.kind === "ServiceAccount" && managed ? retiredAccounts(inv!, found.id, seen) : [];
    if (retire.some((r) => r.key === kind.key(news))) {
      // The account a rotation would create is the one whose answer was lost: make another one.
      rotation = { value: `${trigger ?? ""}@${this.input.now.toISOString()}`, trigger };
      news = checkedInputs(d, rawInputs(d, this.ctx, rotation.value));
    }
    const olds = keptOlds(d.kind, found.state, inv?.kept);
    const diff = kind.diff(olds as never, news as never);
    let fields = diff.fields;
    if (retire.length) {
      fields = [...fields, { field: "replacedAccounts", action: "update", secret: false, from: retire.map((r) => r.key), to: [], note: "accounts an earlier rotation replaced are still on the platform; they are deleted, so their tokens stop working" }];
    }
    let layoutOnly = false;
    if (d.kind === "Udf") {
      const layout = layoutChanges(d, found.state);
      layoutOnly = fields.length === 0 && layout.length > 0;
      fields = [...fields, ...layout];
    }
    if (d.kind === "BucketPolicy") fields = bucketPolicyChanges(d, found.state, inv, this.input.observation.files);
    const more = { observed: found, olds, inventory: inv, rotation, managed, deleteFirst: diff.deleteBeforeReplace, layout: d.kind === "Udf" ? d.options : undefined, layoutOnly, ...(retire.length ? { retire: retire.map((r) => r.id) } : {}) };

    if (!managed && d.kind !== "BucketPolicy") {
      // Adopting a share keeps its token: the trigger is recorded, not acted on.
      if (d.kind === "CanvasShare") fields = fields.filter((f) => f.field !== "rotation");
      this.step(d, { ...base, action: "adopt", id: found.id, fields }, more);
      return;
    }
    if (d.kind === "BucketPolicy" && !inv) {
      this.step(d, { ...base, action: "create", id: found.id, fields: [] }, more);
      return;
    }
    if (!fields.length) return;
    let action: ActionType = diff.replaces.length ? "replace" : "update";
    const notes: string[] = [];
    if (d.kind === "CanvasShare" && fields.some((f) => SHARE_ROTATING.has(f.field))) {
      action = "rotate";
      notes.push(SHARE_NOTE);
    }
    if (d.kind === "ServiceAccount" && diff.fields.length) {
      action = "rotate";
      notes.push(SA_NOTE);
    }
    if (action === "replace" && diff.deleteBeforeReplace) notes.push("the old object is deleted before the new one is created");
    this.step(d, { ...base, action, id: found.id, fields, notes, ...(decision?.reason ? { reason: decision.reason } : {}) }, more);
  }

  /** An inventory object no longer declared: delete with prune, else keep and say so. */
  leftover(address: string, e: InventoryEntry): void {
    const found = this.input.observation.kinds[e.kind]?.byId.get(e.id);
    if (!found) {
      this.forget.push(address);
      this.warnings.push(`${address} (id ${e.id}) is in the inventory but no longer on the platform; it is dropped from the inventory.`);
      return;
    }
    if (!this.input.prune) {
      this.orphans.push({ address, kind: e.kind, id: e.id });
      return;
    }
    const action: ActionType = e.kind === "CanvasShare" ? "unshare" : "delete";
    this.step(undefined, { address, kind: e.kind, action, id: e.id, fields: [], reason: "removed from the repository", notes: [] }, {
      managed: true, observed: found, olds: keptOlds(e.kind, found.state, e.kept), inventory: e,
    });
  }

  guards(): void {
    const deletions = this.steps.filter(isDeletion).length;
    const { maxDeletions, allowDeleteAll } = this.input;
    if (deletions > maxDeletions) {
      this.blocks.push({
        rule: "max-deletions",
        message: `This plan deletes ${deletions} objects, more than the limit of ${maxDeletions} (max_deletions in svc.yaml). Check the list, then run again with --max-deletions ${deletions} to allow it.`,
      });
    }
    const existing = Object.values(this.input.inventory?.objects ?? {}).filter((e) => this.input.observation.kinds[e.kind]?.byId.has(e.id)).length;
    if (deletions > 0 && deletions === existing && !allowDeleteAll) {
      this.blocks.push({
        rule: "delete-all",
        message: `This plan deletes every object the project manages (${deletions}). If that is really what you want, run again with --allow-delete-all.`,
      });
    }
  }
}

/** Deletions (and unshares) run after everything else, in reverse phase order. */
export const isDeletion = (s: Step) => s.action.action === "delete" || s.action.action === "unshare";

/** Apply order: creates and updates by phase, then deletions in reverse phase; address order within. */
export function orderSteps(steps: Step[]): Step[] {
  const key = (s: Step) => (isDeletion(s) ? 100 - phaseOf(s.action.kind) : phaseOf(s.action.kind));
  return [...steps].sort((a, b) => key(a) - key(b) || byString(a.action.address, b.action.address));
}

/** Plans `input`; pure. */
export function planChanges(input: PlanInput): PlanOutcome {
  const planner = new Planner(input);
  const declared = [...input.project.objects].sort((a, b) => phaseOf(a.kind) - phaseOf(b.kind) || byString(a.address, b.address));
  for (const d of declared) planner.declared(d);
  const addresses = new Set(input.project.objects.map((o) => o.address));
  for (const address of Object.keys(input.inventory?.objects ?? {}).sort(byString)) {
    if (!addresses.has(address)) planner.leftover(address, input.inventory!.objects[address]!);
  }
  planner.guards();
  const steps = orderSteps(planner.steps);
  const actions = steps.map((s) => s.action);
  const summary = Object.fromEntries(ACTION_TYPES.map((t) => [t, actions.filter((a) => a.action === t).length])) as Plan["summary"];
  const plan: Plan = {
    version: REPORT_VERSION,
    project: input.project.project,
    target: input.project.target,
    actions,
    summary,
    orphans: planner.orphans,
    unmanaged: findUnmanaged(input, planner.ids),
    blocks: planner.blocks,
    warnings: planner.warnings,
  };
  return { plan, steps, ids: planner.ids, forget: planner.forget };
}
