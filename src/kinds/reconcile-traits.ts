/**
 * What the GitOps reconciler needs to know about a kind beyond its CRUD: where it stands in apply
 * order, which inputs refer to other objects, what the inventory keeps about it, whether it mints
 * tokens, where unmanaged objects of it are looked for, and what apply does besides calling the
 * kind. Each kind declares its traits beside its {@link ResourceKind} in `src/kinds/<kind>/resource.ts`
 * as data and small pure functions; the engine (`src/reconcile/plan/`, `apply/`, `observe/`) reads
 * only these and names no kind.
 */
import type { SvcClient } from "../api/client";
import type { DesiredKind, DesiredObject } from "../model/desired";
import type { LayoutItem } from "./udf/udf-layout";
import type { InventoryEntry } from "../model/inventory";
import type { FingerprintKey } from "./fingerprint";
import type { Created, FieldChange, KindContext, Observed } from "./kind";

/** A reference from one desired object to another, by the loader's `refs` name (`canvas`, `udf`). */
export type RefName = keyof DesiredObject["refs"];

/** The address of the object a reference names: refs are named after the address prefix of their kind. */
export const refAddress = (ref: RefName, name: string): string => `${ref}.${name}`;

/** The effective rotation of a rotating kind at this step, and the trigger it came from (see `rotation.ts`). */
export interface StepRotation {
  value: string | number | undefined;
  trigger: unknown;
}

/**
 * How a text field is compared line by line in plans and drift reports: `text` (a string as is),
 * `json` (pretty-printed, sorted keys), or the kind's own rendering (helper modules one after
 * another). See `src/reconcile/render/text-diff.ts`.
 */
export type TextForm = "text" | "json" | ((value: unknown) => string);

export interface ReconcileTraits {
  /** Apply order: lower phases are created and updated first and deleted last. */
  readonly phase: number;
  /**
   * The input holding the object's name on the platform, which a target's `name_prefix` and
   * `name_suffix` wrap (preview environments beside production). Addresses never change. A
   * function names it per address, for kinds whose objects are only sometimes named on their own
   * (a UDF without a canvas; one on a canvas is told apart by its canvas's name).
   */
  readonly nameInput?: string | ((address: string) => string | undefined);
  /**
   * One object per team whatever the target (a secret key): a target with a `name_prefix` or
   * `name_suffix`, which shares the team with the unprefixed target, cannot rename it and leaves it
   * to that target (it neither adopts nor destroys production's).
   */
  readonly teamWide?: boolean;
  /** Address prefix: `canvas` in `canvas.sales`; also the `refs` name other objects use for it. */
  readonly addressPrefix: string;
  /**
   * Other prefixes the kind's addresses may have, for variants of the kind that are one kind on
   * the platform (a UDF record that is a sticky note or a widget: `note.sales/intro`).
   */
  readonly variantPrefixes?: readonly string[];
  /**
   * Inputs that hold the platform id of a referenced object: `{ field: "canvasId", ref: "canvas" }`.
   * `shown`: a create's plan names the object referred to (`udfId: udf.sales/daily`), when what
   * the object does cannot be read without it (which UDF a cronjob runs).
   */
  readonly references?: readonly { field: string; ref: RefName; shown?: boolean }[];
  /**
   * Addresses the object uses besides its references, which a targeted plan (`--only`) takes
   * along: the secrets a UDF reads (`secret.KEY`). Addresses nothing declares are ignored.
   */
  uses?(d: DesiredObject): string[];
  /**
   * Why `--replace` refuses this kind, when re-creating an object of it would take other objects
   * with it (a canvas's UDFs). Kinds with a `rotation` trait are replaced by a rotation (a new
   * token, a new account); others are deleted and created again.
   */
  readonly replaceRefused?: string;
  /** Inputs copied from a referenced object's desired inputs, when set there (a share takes its canvas's `accessScope`). */
  readonly inherits?: readonly { ref: RefName; field: string }[];
  /**
   * Kinds with the same group share a listing scope and are observed together whenever any of them
   * is in play (so unmanaged objects of one are found when another is declared).
   */
  readonly observeGroup?: string;
  /**
   * Observed one object at a time by `read`, for the ids the project names (declared inputs and
   * inventory), instead of by `observeAll`.
   */
  readonly observeEach?: { idOf(inputs: Record<string, unknown>): string };
  /**
   * Objects of the kind that the bulk listing (`observeAll`) does not carry (a UDF without a
   * canvas): `wants` tells them by address; `read` reads those the inventory records (by id) and
   * looks up those only declared (by natural key). Called only when the project names some, so a
   * project without them reads nothing more.
   */
  readonly observeOutside?: {
    wants(address: string): boolean;
    read(
      ctx: KindContext,
      named: { recorded: readonly { address: string; id: string }[]; declared: readonly DesiredObject[] },
    ): Promise<Observed<any>[]>;
  };
  /**
   * State fields the platform moves by itself or through other objects (a canvas's `lastUpdated`
   * moves when one of its UDFs changes; a cronjob's `lastRun` with every run): not a change of the
   * object, so the state hash of a saved plan leaves them out (see `saved-plan.ts`).
   */
  readonly volatile?: readonly string[];
  /**
   * The object can be renamed in place: its update changes what its address names (a canvas's
   * name, a UDF's slug and canvas, a cronjob's name), so a `moved:` entry of svc.yaml, or a rename
   * found in the inventory, keeps the platform object (id, tokens, references). `identity` tells a
   * renamed object by its content (equal identities, same object; `undefined`: unknown), from its
   * checked inputs or its observed state; `byReferrers` tells it by the identities of the objects
   * referring to it (a canvas is known by its UDFs). Without either, only `moved:` renames it.
   */
  readonly renames?: { identity?(values: Record<string, unknown>): string | undefined; byReferrers?: boolean };
  /** Words of the plan: the action that makes one (`create`, `share`) and removes one (`delete`, `unshare`). */
  readonly verbs?: { create: "create" | "share"; delete: "delete" | "unshare"; goneOutOfBand: string };
  /**
   * Fields shown as a unified diff (platform → repository) when they change, and their text form.
   * A multi-line string field gets one without being listed.
   */
  readonly textFields?: Readonly<Record<string, TextForm>>;
  /** Notes shown on a create (what the user should know). */
  readonly createNotes?: readonly string[];
  /** Notes shown on a delete (what it does, or does not do, on the platform). */
  readonly deleteNotes?: readonly string[];
  /**
   * The kind has a `rotation` input the reconciler drives (`rotate_every`): changes of the listed
   * fields (or of any field the kind's diff reports, `"any"`) are a token rotation; `inPlace`
   * rotations go through `update`, others create the new object before deleting the old one.
   */
  readonly rotation?: { on: readonly string[] | "any"; note: string; inPlace: boolean };
  /** Fields the plan leaves out when it adopts an object (a share's token is kept, not rotated). */
  readonly adoptIgnores?: readonly string[];
  /**
   * The object is a credential whose token is readable only in the create answer. Apply notes the
   * intent in the inventory before creating it; the plan never adopts one it did not record (it
   * blocks, or rotates when the inventory's intent shows it is the orphan of a lost answer); and
   * replaced objects are retired (deleted, crossed off in `kept.retire`) after the new token is
   * published, so no live credential is left behind whatever fails.
   */
  readonly credential?: {
    /** The block message when an object with the wanted key exists that this project did not record. */
    unrecorded(d: DesiredObject, found: Observed<any>): string;
    /** Why the plan rotates an object the inventory's intent shows is an orphan of a lost answer. */
    lostAnswerReason: string;
    /** The plan field listing replaced objects still on the platform, and its note. */
    retiredField: string;
    retiredNote: string;
  };
  /**
   * The object always exists on the platform (derived from the environment): never adopted; the
   * first apply records it (`create` with its id).
   */
  readonly alwaysExists?: boolean;
  /**
   * The field changes the plan shows, when they are not the kind's diff (a document compared with
   * what the inventory kept and with its output file).
   */
  planFields?(c: {
    desired: DesiredObject;
    state: Record<string, any>;
    inventory: InventoryEntry | undefined;
    files: Map<string, string>;
    fingerprintKey?: FingerprintKey;
  }): FieldChange[];
  /**
   * Placement on a parent (visibility and order on a canvas) set through the parent once the phase
   * is done: `ref` names the parent, `changes` compares the desired options with the observed state,
   * `apply` sets them.
   */
  readonly layout?: {
    ref: RefName;
    changes(d: DesiredObject, state: Record<string, unknown> | undefined): FieldChange[];
    /** Sets the placements through their parents; returns the failures by address. */
    apply(client: SvcClient, items: LayoutItem[], concurrency: number): Promise<Map<string, string>>;
  };
  /** Values the inventory keeps after a step (see `InventoryEntry.kept`); never a secret; fingerprints keyed with `fingerprintKey`. */
  keep?(c: {
    state: Record<string, any>;
    rotation: StepRotation | undefined;
    old: InventoryEntry | undefined;
    fingerprintKey?: FingerprintKey;
  }): Record<string, unknown>;
  /** Observed state plus what only the inventory knows: the `olds` given to the kind's diff, update and delete. */
  readKept?(
    state: Record<string, unknown>,
    kept: Record<string, unknown>,
    fingerprintKey?: FingerprintKey,
  ): Record<string, unknown>;
  /**
   * The kept values with key-less fingerprints (an inventory of an older version) rewritten under
   * `fingerprintKey`, each only when it still matches the observed state (so the rewrite hides no
   * change); `undefined` when there is nothing to rewrite.
   */
  rekeyKept?(
    kept: Record<string, unknown>,
    state: Record<string, any>,
    fingerprintKey: FingerprintKey,
  ): Record<string, unknown> | undefined;
  /** Whether a create minted a new token (the inventory's `rotatedAt`). @default never */
  minted?(created: Created<any>): boolean;
  /** The token to publish (outputs file, GitHub secrets) after a step, if any. */
  tokenOf?(state: Record<string, any>, minted: boolean): string | null | undefined;
  /** A file apply writes from the object's state (a policy document), and its text. */
  readonly outputFile?: { path(d: DesiredObject): string | undefined; text(state: Record<string, any>): string };
  /**
   * What deleting this object's parent does to it, the parent being the `unmanaged` trait's
   * `within` kind, found by its `parentId`: the platform deletes it too (`deleted`: a canvas's UDFs
   * and its share), or leaves it in place but broken (`broken`: a cronjob whose UDF is deleted).
   * Plans list such objects under the delete that takes them (see `cascade.ts`), and stop when one
   * is not the project's.
   */
  readonly cascade?: { effect: "deleted" | "broken"; why: string };
  /**
   * Where unmanaged objects are looked for: those whose parent (an object of kind `within`, found
   * by `parentId`) is this project's. `parents: "declared"` counts declared parents only,
   * `"claimed"` also those in the inventory. `address` names the object in the report.
   */
  readonly unmanaged?: {
    within: DesiredKind;
    parents: "declared" | "claimed";
    parentId(o: Observed<any>): string;
    address(o: Observed<any>, parentName: string): string;
  };
  /**
   * What `plan` (and apply, before its first write) checks with reads, so that apply never stops
   * half-way on it: a real-time instance the team does not have. `read` runs once per
   * plan when an object of the kind is declared; `check` gives each problem of one object.
   */
  readonly preflight?: Preflight;
}

/** A check made with reads before any write (see {@link ReconcileTraits.preflight}). */
export interface Preflight<Facts = any> {
  read(client: SvcClient): Promise<Facts>;
  check(desired: DesiredObject, facts: Facts): PreflightProblem[];
}

/**
 * Names the platform gave (real-time instances), as an error shows them: the platform's text is
 * untrusted, so each is quoted and cut, and a long list is cut too.
 * @example
 * platformNames(["rt-a", "rt-b"]) // '"rt-a", "rt-b"'
 */
export function platformNames(names: readonly string[], max = 10): string {
  const shown = [...new Set(names)]
    .sort()
    .slice(0, max)
    .map((n) => JSON.stringify(n.length > 64 ? `${n.slice(0, 63)}…` : n));
  const more = new Set(names).size - shown.length;
  return shown.join(", ") + (more > 0 ? ` and ${more} more` : "");
}

/** One problem of a declared object: the field as the file names it, found and expected. */
export interface PreflightProblem {
  /** The key in the file, e.g. `share.client_id`. */
  path: string;
  message: string;
}
