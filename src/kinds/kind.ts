/**
 * The contract every resource kind fulfils. One module per kind implements it; the Pulumi
 * provider and the GitOps reconciler both call it and re-implement nothing.
 *
 * Vocabulary borrowed from Pulumi's dynamic providers: `check` validates and normalizes inputs and
 * reports every failure at once; `diff` says which fields change in place and which replace;
 * CRUD goes through the typed client only.
 */
import type { SvcClient } from "../api/client";
import type { FingerprintKey } from "./fingerprint";
import type { SharedReads } from "./fresh-listings";

/** A validation failure: the property path (`schedule`, `headers[0].moduleName`) and why. */
export interface CheckFailure {
  property: string;
  reason: string;
}

export interface CheckResult<I> {
  /** Normalized inputs (defaults applied); present even when there are failures. */
  inputs: I;
  failures: CheckFailure[];
}

/** One field's change, as plans and previews show it. Secret fields carry fingerprints only. */
export interface FieldChange {
  field: string;
  /** `update`: changed in place; `replace`: the object is re-created. */
  action: "update" | "replace";
  secret: boolean;
  /** Old and new value (omitted for secret fields). */
  from?: unknown;
  to?: unknown;
  /** Short fingerprints of a secret's old and new value (never the value; keyed, see `fingerprint.ts`). */
  fromFingerprint?: string;
  toFingerprint?: string;
  /** Why this change happens when it is not obvious ("a scope change on a shared canvas needs a new token"). */
  note?: string;
  /**
   * For text fields (code, dashboards, metadata as JSON): the unified diff from the platform's
   * value to the repository's, bounded per object (the plan adds it; see `render/text-diff.ts`).
   * Never on a secret field.
   */
  diff?: string;
}

export interface DiffResult {
  changes: boolean;
  /** Input fields whose change replaces the object. */
  replaces: string[];
  /** Input fields that did not change. */
  stables: string[];
  /** Delete the old object before creating the new one (when both cannot exist at once). */
  deleteBeforeReplace: boolean;
  /** Field-level detail for plans. */
  fields: FieldChange[];
}

/** What create returns: the platform id and the state to keep (inputs plus outputs). */
export interface Created<S> {
  id: string;
  state: S;
  /** True when the object already existed (found by natural key) and was adopted, not created. */
  adopted: boolean;
}

/** One object as the platform has it, found by a bulk listing. */
export interface Observed<S> {
  id: string;
  /** The natural key, as {@link ResourceKind.key} computes it from inputs. */
  key: string;
  state: S;
}

/** Everything a kind's CRUD needs besides its inputs. */
export interface KindContext {
  client: SvcClient;
  /** The current time (token expiry). @default now */
  now?: () => Date;
  /** Reads shared by the look-ups of one pass (see `fresh-listings.ts`); without it, each look-up reads. */
  reads?: SharedReads;
  /**
   * The project's fingerprint key: secret fingerprints in the state are keyed with it. Without one
   * (the Pulumi provider) they are key-less and kept in secret outputs.
   */
  fingerprintKey?: FingerprintKey;
}

/** How {@link ResourceKind.create} looks for an existing object with the key (see `fresh-listings.ts`). */
export interface CreateOptions {
  /**
   * `first` (default): look up, adopt what is found, else create. `never`: the caller observed that
   * no object has the key: create at once; an unknown outcome throws `CreateOutcomeUnknown`.
   * `only`: look up and adopt; `NothingToAdopt` when there is none. Kinds without the distinction
   * always look up first.
   */
  lookup?: "first" | "never" | "only";
}

/**
 * A resource kind. `I` is the normalized desired state (Pulumi inputs, camelCase), `S` the state
 * kept after create/update: the inputs plus the outputs the platform returned (`id`, tokens …).
 */
export interface ResourceKind<I extends object, S extends object> {
  /** `Canvas`, `Udf`, … */
  readonly kind: string;
  /** Output fields that hold secrets (Pulumi `additionalSecretOutputs`). */
  readonly secretOutputs: readonly string[];
  /** Input fields that hold secrets (shown as fingerprints in diffs). */
  readonly secretInputs: readonly string[];
  /** Validates and normalizes raw inputs; pure. Reports every failure at once. */
  check(raw: unknown): CheckResult<I>;
  /** The natural key: what identifies the object on the platform without its id. */
  key(inputs: I): string;
  /** Compares the kept state with new desired inputs; pure. */
  diff(olds: S, news: I, ctx?: { now?: () => Date; fingerprintKey?: FingerprintKey }): DiffResult;
  /** Looks the object up by natural key and adopts it, else creates it (see {@link CreateOptions}). */
  create(ctx: KindContext, inputs: I, opts?: CreateOptions): Promise<Created<S>>;
  /** Reads the current state; `undefined` when the object is gone. */
  read(ctx: KindContext, id: string, olds: S): Promise<S | undefined>;
  /** Updates in place the fields the diff allows; returns the new state. */
  update(ctx: KindContext, id: string, olds: S, news: I): Promise<S>;
  /** Deletes (or unshares, revokes); an object already gone is not an error. */
  delete(ctx: KindContext, id: string, olds: S): Promise<void>;
  /**
   * Every object of this kind in the caller's environment, through list endpoints that return full
   * records (requests grow with N/300, not N). Kinds the platform cannot list return `[]`.
   */
  observeAll(ctx: KindContext): Promise<Observed<S>[]>;
}
