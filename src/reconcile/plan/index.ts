/**
 * Plan: desired objects + observation + inventory → what apply will do. Pure and deterministic:
 * the same inputs always give the same plan, in apply order.
 *
 * Matching, per declared object: the inventory's id when the platform still has it (managed),
 * else the natural key (adopt: found, never recorded), else nothing (create; "recreate" when the
 * inventory had it). Inventory objects no longer declared are deleted only with prune, and only
 * when they still exist; objects nobody declared are listed as unmanaged, never touched.
 *
 * Folder `plan/`: the pure steps from desired objects, observation and inventory to a plan or a
 * drift report (matching, renames, protection, targeting, cascade, the cross-target rule, unmanaged
 * objects, rotation, saved plans). No I/O. May import `src/model`, `src/kinds`, `../phases`,
 * `../checked-inputs`,
 * and the types or pure helpers of `../load`, `../observe`, `../state`, `../render` and
 * `../import/keep-fields`.
 */
import { switchesOver } from "../../kinds/udf/switch-over";
import type { FingerprintKey } from "../../kinds/fingerprint";
import type { FieldChange, Observed } from "../../kinds/kind";
import { KINDS } from "../../kinds/registry";
import type { ReconcileTraits, StepRotation } from "../../kinds/reconcile-traits";
import { intentKeys } from "../state/credential-intent";
import {
  UNKNOWN_ID,
  checkedInputs,
  dependenciesOf,
  rawInputs,
  referencedAddress,
  type InputContext,
} from "./kind-inputs";
import type { DesiredKind, DesiredObject, LoadedProject } from "../../model/desired";
import type { KindObservation, Observation } from "../observe";
import { addressPrefixOf, byString, phaseOf, traitsOf } from "../phases";
import {
  ACTION_TYPES,
  REPORT_VERSION,
  type ActionType,
  type Plan,
  type PlanBlock,
  type PlannedAction,
} from "./plan-model";
import { protectionBlocks } from "./protect";
import { effectiveRotation } from "./rotation";
import type { Inventory, InventoryEntry } from "../../model/inventory";
import { findUnmanaged } from "./unmanaged";
import { findRenames } from "./renames";
import { needsOf, WHOLE_REPOSITORY, type Targeting } from "./targeting";
import { planCascade } from "./cascade";
import { withTextDiffs } from "../render/text-diff";
import { isEmptyAttribute } from "../render/values";
import { closest } from "../../repository/diagnostics";

export interface PlanInput {
  project: LoadedProject;
  observation: Observation;
  inventory: Inventory | undefined;
  now: Date;
  /** Delete inventory objects that left the repository. */
  prune: boolean;
  maxDeletions: number;
  /** Where `maxDeletions` came from, for messages. @default "max_deletions in svc.yaml" */
  maxDeletionsFrom?: string;
  allowDeleteAll: boolean;
  /** Drift: a due `rotate_every` is not a difference between the repository and the platform. */
  ignoreRotationSchedule?: boolean;
  /** `--only` and `--replace` (see targeting.ts). @default the whole repository, nothing replaced on request */
  targeting?: Targeting;
  /** Let deletions take objects the project does not manage with them (see cascade.ts). @default false */
  allowCascade?: boolean;
  /** The key the observation's fingerprints are under; the desired values are fingerprinted with it too. */
  fingerprintKey?: FingerprintKey;
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
  /** The effective rotation value (kinds with the `rotation` trait) and the trigger it came from. */
  rotation?: StepRotation;
  /** Replace by deleting first (the kind's diff says both cannot exist at once). */
  deleteFirst: boolean;
  /** Placement on the parent (the kind's `layout` trait: visibility and order), set through the parent. */
  layout?: { isVisible?: boolean; position?: number };
  /** Only the layout changes (no call to the kind). */
  layoutOnly?: boolean;
  /** Credentials this address replaced that still exist: deleted by apply (see {@link retiredObjects}). */
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

/** Observed state plus the values only the inventory knows (the kind's `readKept` trait). */
export function keptOlds(
  kind: DesiredKind,
  state: Record<string, unknown>,
  kept: Record<string, unknown> | undefined,
  fingerprintKey?: FingerprintKey,
): Record<string, unknown> {
  const read = traitsOf(kind).readKept;
  return kept && read ? read({ ...state }, kept, fingerprintKey) : { ...state };
}

/**
 * Credentials an address replaced or lost that are still on the platform: the old object of a
 * rotation whose delete failed (kept in `kept.retire` until deleted), and every object created
 * under the inventory's intent whose token was never delivered (a lost answer, a failed publish).
 * Their tokens are either live in the old hands or unknown to everyone, so apply deletes them once
 * a new token is published. `currentId` (the object the address keeps) is left out.
 */
function retiredObjects(
  inv: InventoryEntry | undefined,
  currentId: string,
  seen: KindObservation | undefined,
): Observed<any>[] {
  if (!inv) return [];
  const ids = new Set(Array.isArray(inv.kept?.retire) ? (inv.kept.retire as string[]) : []);
  for (const key of intentKeys(inv)) {
    const lost = seen?.byKey.get(key);
    if (lost) ids.add(lost.id);
  }
  ids.delete(currentId);
  return [...ids].sort().flatMap((id) => seen?.byId.get(id) ?? []);
}

/** A declared object being planned: what {@link Planner.declared}'s decisions share. */
interface DeclaredObject {
  d: DesiredObject;
  kind: (typeof KINDS)[string] & {};
  traits: ReconcileTraits;
  inv: InventoryEntry | undefined;
  movedFrom: string | undefined;
  seen: KindObservation | undefined;
  trigger: string | number | undefined;
  decision: ReturnType<typeof effectiveRotation> | undefined;
  /** The rotation value planned (replaced by {@link freshRotation}). */
  rotation: StepRotation | undefined;
  /** The checked inputs, with the planned rotation value. */
  news: Record<string, unknown>;
  base: Omit<PlannedAction, "action" | "fields"> & { notes: string[] };
  layout: DesiredObject["options"] | undefined;
  /** Takes a rotation value no object on the platform has yet, and the inputs with it. */
  freshRotation: () => void;
}

/** A found object compared with its declaration. */
interface Comparison {
  forced: boolean;
  redeliver: boolean;
  diff: ReturnType<ResourceKindOf["diff"]>;
  fields: FieldChange[];
  more: Partial<Step> & { managed: boolean };
}

type ResourceKindOf = (typeof KINDS)[string] & {};

class Planner {
  readonly ids = new Map<string, string>();
  readonly steps: Step[] = [];
  readonly forget: string[] = [];
  readonly orphans: Plan["orphans"] = [];
  readonly warnings: string[] = [];
  readonly blocks: PlanBlock[] = [];
  private readonly declaredObjects: Map<string, DesiredObject>;
  /** Addresses that get a new id in this apply (created, replaced): objects referring to them see an unknown id. */
  private readonly renewed = new Set<string>();
  /** New address → the inventory address of the object renamed to it (see renames.ts). */
  private readonly renames: Map<string, string>;
  /** Inventory addresses taken over by a rename: not leftovers. */
  readonly movedAway = new Set<string>();
  private readonly targeting: Targeting;
  /** Existing objects this plan re-creates (a new id): what refers to them must follow, even outside `--only`. */
  private readonly superseded = new Set<string>();

  constructor(private readonly input: PlanInput) {
    this.declaredObjects = new Map(input.project.objects.map((o) => [o.address, o]));
    this.targeting = input.targeting ?? WHOLE_REPOSITORY;
    const found = findRenames(input);
    this.renames = found.from;
    this.warnings.push(...(input.project.warnings ?? []), ...found.warnings);
  }

  private get ctx(): InputContext {
    return {
      idOf: (a) => (this.renewed.has(a) ? undefined : this.ids.get(a)),
      desired: (a) => this.declaredObjects.get(a),
    };
  }

  /**
   * The inventory entry of `d` and, when it is recorded under another address, that address: a
   * rename (`moved:` or found by content), or an object found by its natural key that an address
   * which left the repository recorded (a share or UDF whose canvas folder was renamed).
   */
  private inventoryOf(d: DesiredObject): { inv?: InventoryEntry; movedFrom?: string } {
    const objects = this.input.inventory?.objects ?? {};
    const renamed = this.renames.get(d.address);
    if (renamed) return this.moveFrom(renamed);
    const e = objects[d.address];
    if (e && e.kind === d.kind) return { inv: e };
    let key: string | undefined;
    try {
      key = KINDS[d.kind]!.key(checkedInputs(d, rawInputs(d, this.ctx, undefined)));
    } catch {
      return {};
    }
    const found = key.includes(UNKNOWN_ID) ? undefined : this.input.observation.kinds[d.kind]?.byKey.get(key);
    const former =
      found &&
      this.undeclaredById()
        .get(`${d.kind} ${found.id}`)
        ?.find((a) => !this.movedAway.has(a));
    return former ? this.moveFrom(former) : {};
  }

  private undeclared?: Map<string, string[]>;
  /** Inventory addresses no longer declared, by kind and id. */
  private undeclaredById(): Map<string, string[]> {
    if (!this.undeclared) {
      this.undeclared = new Map();
      const objects = this.input.inventory?.objects ?? {};
      for (const a of Object.keys(objects).sort(byString)) {
        if (this.declaredObjects.has(a)) continue;
        const k = `${objects[a]!.kind} ${objects[a]!.id}`;
        this.undeclared.set(k, [...(this.undeclared.get(k) ?? []), a]);
      }
    }
    return this.undeclared;
  }

  private moveFrom(address: string): { inv: InventoryEntry; movedFrom: string } {
    this.movedAway.add(address);
    return { inv: this.input.inventory!.objects[address]!, movedFrom: address };
  }

  /**
   * Whether a targeted plan covers `d`: selected by `--only` (or moved from a selected address),
   * or referring to an object this plan re-creates (its reference must follow the new id).
   */
  private covers(address: string, d?: DesiredObject, movedFrom?: string): boolean {
    const selected = this.targeting.selected;
    if (!selected || selected.has(address) || (movedFrom && selected.has(movedFrom))) return true;
    return !!d && needsOf(d).some((n) => this.superseded.has(n));
  }

  private step(d: DesiredObject | undefined, action: PlannedAction, more: Partial<Step> & { managed: boolean }): void {
    if (!this.covers(action.address, d, action.movedFrom)) return;
    if (d && (action.action === "create" || action.action === "share" || action.action === "replace"))
      this.renewed.add(d.address);
    if (action.action === "replace" || (action.action === "rotate" && !traitsOf(action.kind).rotation?.inPlace))
      this.superseded.add(action.address);
    this.steps.push({ desired: d, deleteFirst: false, ...more, action });
  }

  private block(address: string, d: DesiredObject | undefined, b: PlanBlock): void {
    if (this.covers(address, d)) this.blocks.push(b);
  }

  /** The plan field listing the replaced or orphaned credentials apply deletes. */
  /**
   * What a create makes, as field changes from nothing: each input the platform gets (a name after
   * name_prefix/name_suffix), a secret only as set, text as a line count when rendered; empty
   * values (`[]`, `{}`, `""`) are left out.
   * References to objects made by the same apply are left out (their ids are not known yet).
   */
  private createdFields(d: DesiredObject, news: Record<string, unknown>): FieldChange[] {
    const kindName = d.kind;
    const diff = KINDS[kindName]!.diff({} as never, news as never, { fingerprintKey: this.input.fingerprintKey });
    // A shown reference is named by its address, id known or not (see ReconcileTraits.references).
    const shown = new Map(
      (traitsOf(kindName).references ?? [])
        .filter((r) => r.shown && referencedAddress(d, r.ref) !== undefined)
        .map((r) => [r.field, referencedAddress(d, r.ref)!] as const),
    );
    // A new secret has nothing to be compared with: it is said to be set, without a fingerprint.
    return diff.fields
      .filter((f) =>
        f.secret
          ? f.toFingerprint !== undefined
          : f.to !== undefined && f.to !== null && f.to !== UNKNOWN_ID && !isEmptyAttribute(f),
      )
      .filter((f) => !shown.has(f.field))
      .map(({ note: _note, from: _from, fromFingerprint: _was, toFingerprint: _print, diff: _diff, ...f }) => ({
        ...f,
        action: "update" as const,
      }))
      .concat([...shown].map(([field, address]) => ({ field, action: "update" as const, secret: false, to: address })))
      .sort((a, b) => byString(a.field, b.field));
  }

  private retiredField(traits: ReconcileTraits, retire: Observed<any>[]): FieldChange {
    return {
      field: traits.credential!.retiredField,
      action: "update",
      secret: false,
      from: retire.map((r) => r.key),
      to: [],
      note: traits.credential!.retiredNote,
    };
  }

  /**
   * Plans one declared object (called in phase order, so the ids it refers to are known when they
   * exist): match it with the platform, then one decision per outcome.
   */
  declared(d: DesiredObject): void {
    const o = this.declaredObject(d);
    const { found, managed } = this.match(o);
    if (!found) return this.planMissing(o);
    this.ids.set(d.address, found.id);
    // A credential whose token was never delivered (its create answer lost, or its publish failed).
    const undelivered = !!o.traits.credential && intentKeys(o.inv).includes(found.key);
    if (o.traits.credential && (!managed || undelivered))
      return this.planUnheldCredential(o, found, managed, undelivered);
    const c = this.compare(o, found, managed);
    if (!managed && !o.traits.alwaysExists) return this.planAdopt(o, found, c);
    if (o.traits.alwaysExists && !o.inv)
      return this.step(d, { ...o.base, action: "create", id: found.id, fields: [] }, c.more);
    if (c.forced && !o.traits.rotation) return this.planForcedReplace(o, found, c);
    this.planChange(o, found, c);
  }

  /** What planning a declared object starts from: its kind, inventory entry, rotation and inputs. */
  private declaredObject(d: DesiredObject): DeclaredObject {
    const kind = KINDS[d.kind]!;
    const traits = traitsOf(d.kind);
    const { inv, movedFrom } = this.inventoryOf(d);
    const trigger = d.inputs.rotation as string | number | undefined;
    const every = this.input.ignoreRotationSchedule ? undefined : d.options.rotateEvery;
    const decision = traits.rotation
      ? effectiveRotation(trigger, every, inv?.kept, inv?.rotatedAt, this.input.now)
      : undefined;
    const rotation: StepRotation | undefined = decision && { value: decision.rotation, trigger };
    const references = dependenciesOf(d).sort(byString);
    const o: DeclaredObject = {
      d,
      kind,
      traits,
      inv,
      movedFrom,
      seen: this.input.observation.kinds[d.kind],
      trigger,
      decision,
      rotation,
      news: checkedInputs(d, rawInputs(d, this.ctx, rotation?.value)),
      base: {
        address: d.address,
        kind: d.kind,
        ...(movedFrom ? { movedFrom } : {}),
        source: d.source,
        notes: [] as string[],
        ...(references.length ? { references } : {}),
      },
      layout: traits.layout ? d.options : undefined,
      // A rotation value no object on the platform has yet (the wanted one belongs to an orphan).
      freshRotation: () => {
        o.rotation = { value: `${trigger ?? ""}@${this.input.now.toISOString()}`, trigger };
        o.news = checkedInputs(d, rawInputs(d, this.ctx, o.rotation.value));
      },
    };
    return o;
  }

  /** The platform's object: the one the inventory records (managed), else the one with the natural key. */
  private match(o: DeclaredObject): { found: Observed<any> | undefined; managed: boolean } {
    let found = o.inv ? o.seen?.byId.get(o.inv.id) : undefined;
    const managed = !!found;
    const key = o.kind.key(o.news);
    if (!found && !key.includes(UNKNOWN_ID)) found = o.seen?.byKey.get(key);
    return { found, managed };
  }

  /** Not on the platform: create it (and retire the orphans of lost answers once the new token is out). */
  private planMissing(o: DeclaredObject): void {
    const { d, traits, inv } = o;
    if (this.targeting.replaced.has(d.address))
      this.warnings.push(`--replace ${d.address}: it is not on the platform, so it is created.`);
    const action: ActionType = traits.verbs?.create ?? "create";
    const reason = inv?.id ? (traits.verbs?.goneOutOfBand ?? "deleted on the platform out of band") : undefined;
    // Orphans of earlier attempts (lost answers under other keys) go once the new token is out.
    const lost = traits.credential ? retiredObjects(inv, "", o.seen) : [];
    const fields = [...this.createdFields(d, o.news), ...(lost.length ? [this.retiredField(traits, lost)] : [])];
    this.step(
      d,
      { ...o.base, action, fields, ...(reason ? { reason } : {}), notes: [...(traits.createNotes ?? [])] },
      {
        managed: false,
        inventory: inv,
        rotation: o.rotation,
        layout: o.layout,
        ...(lost.length ? { retire: lost.map((r) => r.id) } : {}),
      },
    );
  }

  /** A credential nobody holds the token of: rotate it when this project made it, else refuse. */
  private planUnheldCredential(o: DeclaredObject, found: Observed<any>, managed: boolean, undelivered: boolean): void {
    const { d, traits, inv } = o;
    const credential = traits.credential!;
    if (!undelivered) {
      // Found by its key but not recorded: its token cannot be read.
      this.block(d.address, d, { rule: "unreadable-token", message: credential.unrecorded(d, found) });
      return;
    }
    // Made by an earlier attempt of this project, and nobody holds its token: replace it.
    o.freshRotation();
    const lost = retiredObjects(inv, found.id, o.seen);
    this.step(
      d,
      {
        ...o.base,
        action: "rotate",
        id: found.id,
        fields: lost.length ? [this.retiredField(traits, lost)] : [],
        reason: credential.lostAnswerReason,
        notes: traits.rotation ? [traits.rotation.note] : [],
      },
      {
        managed,
        observed: found,
        olds: found.state,
        inventory: inv,
        rotation: o.rotation,
        ...(lost.length ? { retire: lost.map((r) => r.id) } : {}),
      },
    );
  }

  /** The declared object against the platform's: the diff, the fields shown and what apply needs. */
  private compare(o: DeclaredObject, found: Observed<any>, managed: boolean): Comparison {
    const { d, kind, traits, inv } = o;
    // --replace of a rotating kind is a rotation now: a new token, a new account.
    const forced = managed && this.targeting.replaced.has(d.address);
    // A token the last apply minted but could not hand over: mint another and hand it over.
    const redeliver = managed && !!inv?.undelivered && !!traits.rotation;
    if ((forced || redeliver) && traits.rotation) o.freshRotation();
    const retire = traits.credential && managed ? retiredObjects(inv, found.id, o.seen) : [];
    // The object a rotation would create is the one whose answer was lost: make another one.
    if (retire.some((r) => r.key === kind.key(o.news))) o.freshRotation();
    const olds = keptOlds(d.kind, found.state, inv?.kept, this.input.fingerprintKey);
    const diff = kind.diff(olds as never, o.news as never, { fingerprintKey: this.input.fingerprintKey });
    let fields = diff.fields;
    if (retire.length) fields = [...fields, this.retiredField(traits, retire)];
    let layoutOnly = false;
    if (traits.layout) {
      const changes = traits.layout.changes(d, found.state);
      layoutOnly = fields.length === 0 && changes.length > 0;
      fields = [...fields, ...changes];
    }
    if (traits.planFields)
      fields = traits.planFields({
        desired: d,
        state: found.state,
        inventory: inv,
        files: this.input.observation.files,
        fingerprintKey: this.input.fingerprintKey,
      });
    fields = withTextDiffs(fields, traits.textFields);
    const more = {
      observed: found,
      olds,
      inventory: inv,
      rotation: o.rotation,
      managed,
      deleteFirst: diff.deleteBeforeReplace,
      layout: o.layout,
      layoutOnly,
      ...(retire.length ? { retire: retire.map((r) => r.id) } : {}),
    };
    return { forced, redeliver, diff, fields, more };
  }

  /** Found by its natural key, not in the inventory: adopt it (fields the kind ignores when adopting left out). */
  private planAdopt(o: DeclaredObject, found: Observed<any>, c: Comparison): void {
    const { d, traits } = o;
    if (this.targeting.replaced.has(d.address))
      this.warnings.push(
        `--replace ${d.address}: it is not in the inventory yet, so it is adopted (id ${found.id}); replace it in a later run.`,
      );
    const ignored = new Set(traits.adoptIgnores ?? []);
    this.step(
      d,
      { ...o.base, action: "adopt", id: found.id, fields: c.fields.filter((f) => !ignored.has(f.field)) },
      c.more,
    );
  }

  /** `--replace` of a kind that does not rotate: its create adopts by natural key, so delete first. */
  private planForcedReplace(o: DeclaredObject, found: Observed<any>, c: Comparison): void {
    const notes = ["the old object is deleted, then created again"];
    this.step(
      o.d,
      {
        ...o.base,
        action: "replace",
        id: found.id,
        fields: c.fields,
        notes,
        reason: "replacement asked for with --replace",
      },
      { ...c.more, deleteFirst: true, layoutOnly: false },
    );
  }

  /** A managed object: no change, or an update, rename, replace or rotation, with its reason. */
  private planChange(o: DeclaredObject, found: Observed<any>, c: Comparison): void {
    const { d, traits, inv } = o;
    let fields = c.fields;
    if (!fields.length && !o.movedFrom) return;
    let action: ActionType = c.diff.replaces.length ? "replace" : o.movedFrom ? "rename" : "update";
    const notes: string[] = [];
    const rotatesOn = traits.rotation?.on;
    if (
      rotatesOn &&
      (rotatesOn === "any" ? c.diff.fields.length > 0 : fields.some((f) => rotatesOn.includes(f.field)))
    ) {
      action = "rotate";
      notes.push(traits.rotation!.note);
      // The rotation field's own note says what the action's note says: not twice.
      fields = fields.map(({ note, ...f }) =>
        f.field === "rotation" ? f : { ...f, ...(note !== undefined ? { note } : {}) },
      );
    }
    if (action === "replace" && c.diff.deleteBeforeReplace)
      notes.push("the old object is deleted before the new one is created");
    if (switchesOver(d, action, fields)) {
      const n = (this.input.project.tests ?? []).filter((t) => t.address === d.address).length;
      notes.push(
        `deploy: tested: the new body runs its ${n} test${n === 1 ? "" : "s"} on a hidden candidate first; the live UDF changes only if they pass`,
      );
    }
    const reason = c.forced
      ? "replacement asked for with --replace"
      : c.redeliver
        ? `the token minted by the apply of ${inv!.undelivered} never reached its outputs (writing or publishing it failed): a new one is minted and published`
        : o.decision?.reason;
    this.step(d, { ...o.base, action, id: found.id, fields, notes, ...(reason ? { reason } : {}) }, c.more);
  }

  /** An inventory object no longer declared: delete with prune, else keep and say so. */
  leftover(address: string, e: InventoryEntry): void {
    if (!this.covers(address)) return;
    const found = this.input.observation.kinds[e.kind]?.byId.get(e.id);
    if (!found) {
      this.forget.push(address);
      this.warnings.push(
        `${address} (id ${e.id}) is in the inventory but no longer on the platform; it is dropped from the inventory.`,
      );
      return;
    }
    if (this.input.project.removed?.some((r) => r.address === address)) {
      this.step(
        undefined,
        {
          address,
          kind: e.kind,
          action: "forget",
          id: e.id,
          fields: [],
          reason: "listed under removed: in svc.yaml; the platform is untouched",
          notes: [],
        },
        {
          managed: true,
          observed: found,
          inventory: e,
        },
      );
      return;
    }
    this.warnRemovedTypo(address);
    if (!this.input.prune) {
      this.orphans.push({ address, kind: e.kind, id: e.id });
      return;
    }
    const traits = traitsOf(e.kind);
    const action: ActionType = traits.verbs?.delete ?? "delete";
    // A credential goes with the ones it replaced and never handed out: none stays live.
    const retire = traits.credential ? retiredObjects(e, found.id, this.input.observation.kinds[e.kind]) : [];
    const references = this.stateReferences(e.kind, found.state);
    this.step(
      undefined,
      {
        address,
        kind: e.kind,
        action,
        id: e.id,
        fields: retire.length ? [this.retiredField(traits, retire)] : [],
        reason: "removed from the repository",
        notes: [...(traits.deleteNotes ?? [])],
        ...(references.length ? { references } : {}),
      },
      {
        managed: true,
        observed: found,
        olds: keptOlds(e.kind, found.state, e.kept, this.input.fingerprintKey),
        inventory: e,
        ...(retire.length ? { retire: retire.map((r) => r.id) } : {}),
      },
    );
  }

  /** The `removed:` entries that match nothing the inventory records or forgot (typos), found once. */
  private unmatchedRemoved?: NonNullable<LoadedProject["removed"]>;
  /** Edit distances left to compute for {@link warnRemovedTypo}: a courtesy, bounded for any repository. */
  private typoBudget = 200_000;

  /**
   * An entry of `removed:` that matches nothing the inventory records or forgot, but is a near miss
   * of this object that left the repository: as written, the object is not forgotten (prune deletes it).
   * A pull request may write many such entries and delete many objects: the comparisons are bounded
   * ({@link typoBudget}), and an entry whose length differs too much is not compared.
   */
  private warnRemovedTypo(address: string): void {
    const inventory = this.input.inventory;
    this.unmatchedRemoved ??= (this.input.project.removed ?? []).filter(
      (r) => !inventory?.objects[r.address] && !inventory?.forgotten?.[r.address],
    );
    for (const r of this.unmatchedRemoved) {
      // closest() allows max(2, length / 3) edits, and no fewer than the lengths differ.
      if (Math.abs(r.address.length - address.length) > Math.max(2, Math.floor(r.address.length / 3))) continue;
      if (this.typoBudget-- <= 0) return;
      if (closest(r.address, [address], { wholeWord: true }) !== address) continue;
      const fate = this.input.prune ? "this plan deletes it" : "it stays managed, and prune would delete it";
      this.warnings.push(
        `${r.source.file}:${r.source.line}:${r.source.column}: removed: lists "${r.address}", which this target's inventory does not record; did you mean ${address}? ${address} left the repository but is not forgotten: ${fate}.`,
      );
    }
  }

  private stateReferences(kind: DesiredKind, state: Record<string, unknown>): string[] {
    return stateReferences(kind, state, this.input.inventory);
  }

  guards(): void {
    const deletions = this.steps.filter(isDeletion).length;
    const { maxDeletions, allowDeleteAll } = this.input;
    if (deletions > maxDeletions) {
      this.blocks.push({
        rule: "max-deletions",
        message: `This plan deletes ${deletions} objects, more than the limit of ${maxDeletions} (${this.input.maxDeletionsFrom ?? "max_deletions in svc.yaml"}). Check the list, then run again with --max-deletions ${deletions} to allow it.`,
      });
    }
    const existing = Object.values(this.input.inventory?.objects ?? {}).filter((e) =>
      this.input.observation.kinds[e.kind]?.byId.has(e.id),
    ).length;
    if (deletions > 0 && deletions === existing && !allowDeleteAll) {
      this.blocks.push({
        rule: "delete-all",
        message: `This plan deletes every object the project manages (${deletions}). If that is really what you want, run again with --allow-delete-all.`,
      });
    }
  }
}

/**
 * The inventory addresses an observed state refers to through its kind's reference fields (a
 * deleted UDF's canvas, an orphaned cronjob's UDF), sorted.
 */
export function stateReferences(
  kind: DesiredKind,
  state: Record<string, unknown>,
  inventory: Inventory | undefined,
): string[] {
  const objects = Object.entries(inventory?.objects ?? {});
  const out = (traitsOf(kind).references ?? []).flatMap((r) => {
    const id = state[r.field];
    const hit =
      typeof id === "string" ? objects.find(([, x]) => x.id === id && addressPrefixOf(x.kind) === r.ref) : undefined;
    return hit ? [hit[0]] : [];
  });
  return [...new Set(out)].sort(byString);
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
  const declared = [...input.project.objects].sort(
    (a, b) => phaseOf(a.kind) - phaseOf(b.kind) || byString(a.address, b.address),
  );
  for (const d of declared) planner.declared(d);
  const addresses = new Set(input.project.objects.map((o) => o.address));
  for (const address of Object.keys(input.inventory?.objects ?? {}).sort(byString)) {
    if (!addresses.has(address) && !planner.movedAway.has(address))
      planner.leftover(address, input.inventory!.objects[address]!);
  }
  planner.guards();
  planner.blocks.push(...protectionBlocks(planner.steps));
  const steps = orderSteps(planner.steps);
  const actions = steps.map((s) => s.action);
  const declaredKinds = new Map(input.project.objects.map((o) => [o.address, o.kind] as const));
  const { cascade, blocks: cascadeBlocks } = planCascade(actions, {
    ...input,
    declaredIds: planner.ids,
    declaredKinds,
    allowCascade: input.allowCascade ?? false,
  });
  planner.blocks.push(...cascadeBlocks);
  const summary = Object.fromEntries(
    ACTION_TYPES.map((t) => [t, actions.filter((a) => a.action === t).length]),
  ) as Plan["summary"];
  const targeting = input.targeting ?? WHOLE_REPOSITORY;
  const plan: Plan = {
    version: REPORT_VERSION,
    project: input.project.project,
    target: input.project.target,
    ...(targeting.only.length ? { partial: { only: [...targeting.only], replace: [...targeting.replace] } } : {}),
    actions,
    summary,
    orphans: planner.orphans,
    unmanaged: findUnmanaged(input, planner.ids).filter((u) => targeting.matches(u.address)),
    ...(cascade.length ? { cascade } : {}),
    blocks: planner.blocks,
    warnings: planner.warnings,
  };
  return { plan, steps, ids: planner.ids, forget: planner.forget };
}
