/**
 * The plan, the apply report and the drift report: plain, versioned, deterministic data. Planning
 * produces them without I/O; renderers turn them into text, Markdown or JSON.
 */
import type { FieldChange } from "../../kinds/kind";
import type { DesiredKind, DriftPolicy, SourceLocation } from "../../model/desired";
import type { PolicyReport } from "../../policy/model";

/** Version of the JSON documents below (`svc-iac plan --json`, `drift --format json`). */
export const REPORT_VERSION = 1;

/**
 * What apply does to one object.
 * - `create`: not on the platform; made new.
 * - `adopt`: found on the platform by its natural key but not in the inventory; taken over
 *   (and updated to match when `fields` is not empty).
 * - `update`: changed in place, field by field.
 * - `rename`: the object the inventory records under another address (`movedFrom`), renamed or
 *   moved in place (same id, tokens and references), with any other field changes.
 * - `replace`: a field that cannot change in place changed; the object is re-created.
 * - `delete`: in the inventory, gone from the repository (only with prune).
 * - `share` / `unshare`: a canvas share is made / removed.
 * - `rotate`: a token is replaced (share token, service-account token).
 * - `forget`: listed under `removed:` in svc.yaml: dropped from the inventory, left on the
 *   platform untouched (no call to the platform).
 */
export type ActionType =
  | "create"
  | "adopt"
  | "update"
  | "rename"
  | "replace"
  | "delete"
  | "share"
  | "unshare"
  | "rotate"
  | "forget";

export const ACTION_TYPES: readonly ActionType[] = [
  "create",
  "update",
  "rename",
  "replace",
  "delete",
  "share",
  "unshare",
  "rotate",
  "adopt",
  "forget",
];

export interface PlannedAction {
  /** `canvas.sales`, `udf.sales/loader`, … */
  address: string;
  kind: DesiredKind;
  action: ActionType;
  /** Platform id when the object exists. */
  id?: string;
  /** The address the inventory recorded the object under, when it was renamed or moved (`moved:` or found). */
  movedFrom?: string;
  /**
   * Field-level changes (secret fields as fingerprints only). For a create or share: what it makes,
   * each field with `to` only (a secret with neither value nor fingerprint; references to objects
   * the same apply creates left out). Empty for delete.
   */
  fields: FieldChange[];
  /** Why, when it is not the field changes: "rotate_every 30d elapsed (last rotation 2026-10-01)". */
  reason?: string;
  /** Consequences the user should know: "session tokens minted for the old token stop working". */
  notes: string[];
  /** Where the object is declared (absent for deletions). */
  source?: SourceLocation;
  /**
   * Addresses of the objects it refers to (a UDF's canvas, a cronjob's UDF), sorted: from the
   * repository for declared objects, from the platform's state for deletions. Absent when none.
   */
  references?: string[];
}

/** An object that exists on the platform, is not declared and is not in the inventory: reported, never deleted. */
export interface UnmanagedObject {
  address: string;
  kind: DesiredKind;
  id: string;
}

/**
 * An object a deletion takes with it without a step of its own: a UDF on a deleted canvas, the
 * canvas's share (`deleted`), a cronjob running a deleted UDF (`broken`: kept, every run fails).
 */
export interface CascadedObject {
  address: string;
  kind: DesiredKind;
  id: string;
  /** The address of the deleted object that takes it. */
  by: string;
  effect: "deleted" | "broken";
  /** Declared in the repository or recorded in the inventory; an unmanaged one stops apply unless `--allow-cascade`. */
  managed: boolean;
}

/** A safety rule that stops apply (prune guards); lifted by the flag it names. */
export interface PlanBlock {
  /** `max-deletions` | `delete-all` | `tokens-without-outputs` | `unreadable-token` | `protected` | `cascade` | `cross-target` | … */
  rule: string;
  message: string;
}

export interface Plan {
  version: typeof REPORT_VERSION;
  project: string;
  target: string;
  /**
   * Present when the plan covers part of the repository (`--only`): the patterns given, and the
   * `--replace` ones. Objects outside them and what they need were not planned.
   */
  partial?: { only: string[]; replace: string[] };
  /** In apply order: phases (secrets, service accounts, canvases, UDFs, shares, cronjobs; deletions in reverse), then address. */
  actions: PlannedAction[];
  /** Count per action type (every type present, zero included). */
  summary: Record<ActionType, number>;
  /** Inventory objects that left the repository but are kept because prune is off. */
  orphans: { address: string; kind: DesiredKind; id: string }[];
  unmanaged: UnmanagedObject[];
  /** What the deletions take with them (present only when they take something), sorted by address. */
  cascade?: CascadedObject[];
  /** Rules that stop this plan from being applied; empty when it may be applied. */
  blocks: PlanBlock[];
  warnings: string[];
  /** What the policy rules found (absent when the project has no rules); mandatory ones not met are also in `blocks` (rule `policy`). */
  policy?: PolicyReport;
}

export type ResultStatus = "done" | "failed" | "skipped";

export interface ActionResult {
  address: string;
  kind: DesiredKind;
  action: ActionType;
  status: ResultStatus;
  id?: string;
  /** For failures: the error message (secrets scrubbed). For skips: why (a dependency failed). */
  message?: string;
}

export interface ApplyReport {
  version: typeof REPORT_VERSION;
  project: string;
  target: string;
  ok: boolean;
  results: ActionResult[];
  counts: Record<ResultStatus, number>;
  /** Addresses whose new token was published (to --outputs, GitHub secrets); never the token. */
  published: { address: string; to: string[] }[];
  /** The id the deployment history gave this run (`svc-iac history`); absent when nothing changed or it was not written. */
  deployment?: string;
}

/**
 * - `changed`: managed, exists, differs from the repository (field level).
 * - `missing`: in the inventory, deleted on the platform out of band.
 * - `orphaned`: in the inventory, no longer in the repository, still on the platform: what
 *   `apply --prune` would delete.
 * - `unmanaged`: exists where this project manages objects, declared nowhere, not in the inventory.
 * - `pending`: declared, never applied (not in the inventory).
 */
export type DriftClass = "changed" | "missing" | "orphaned" | "unmanaged" | "pending";

export const DRIFT_CLASSES: readonly DriftClass[] = ["changed", "missing", "orphaned", "unmanaged", "pending"];

export interface DriftItem {
  address: string;
  kind: DesiredKind;
  class: DriftClass;
  id?: string;
  fields: FieldChange[];
  source?: SourceLocation;
  /** The addresses it refers to, as its plan action has them (see {@link PlannedAction.references}). */
  references?: string[];
  /**
   * For changed objects, the commands that settle the difference, to run in the repository:
   * `restore` puts the repository's version back on the platform; `keep` (`svc-iac import
   * --keep ADDRESS`) brings the platform's version of the drifted fields into the files that
   * declare them, and nothing else; when it cannot, `keepUnavailable` says why instead.
   */
  commands?: { restore: string; keep?: string; keepUnavailable?: string };
}

export interface DriftReport {
  version: typeof REPORT_VERSION;
  project: string;
  target: string;
  drift: boolean;
  /** Sorted by class (order of {@link DRIFT_CLASSES}), then address. */
  items: DriftItem[];
  counts: Record<DriftClass, number>;
  /** A stable fingerprint of the drift set (addresses, classes and changed field names): equal sets, equal fingerprints. */
  fingerprint: string;
  /** What the policy rules found on the platform's objects (absent when the project has no rules). */
  policy?: PolicyReport;
}

/** One drifted object in the report of `svc-iac drift --remediate`. */
export interface RemediationEntry {
  address: string;
  kind: DesiredKind;
  class: DriftClass;
  /** The fields that drifted (changed objects). */
  fields: string[];
  /** Its `on_drift`, and where that is set (`on_drift in canvases/sales/canvas.yaml`, `the default on_drift`). */
  policy: DriftPolicy;
  policy_from: string;
  /** Why it is reported or contested, or how it was settled. */
  detail: string;
  /** Contested and restored objects: the times of the restores that count (ISO), oldest first. */
  restores?: string[];
  /** Kept objects: the repository files written. */
  files?: string[];
  /** Restored by `--force-restore`. */
  forced?: boolean;
}

/**
 * The report of `svc-iac drift --remediate`: each drifted object restored, kept, reported or
 * contested (restored too often: not restored again). `drift` is the drift found before acting.
 */
export interface RemediationReport {
  version: typeof REPORT_VERSION;
  project: string;
  target: string;
  restored: RemediationEntry[];
  kept: RemediationEntry[];
  reported: RemediationEntry[];
  contested: RemediationEntry[];
  /** Objects still drifted afterwards (reported and contested): exit 2 when not 0. */
  remaining: number;
  drift: DriftReport;
}
