/**
 * What the loader produces from a repository: the desired objects of one project and target,
 * each with its source location. Pure data; the planner compares it with what the platform holds.
 *
 * Folder `src/model/`: what the kinds (`src/kinds`) and the engine (`src/reconcile`) share:
 * desired objects here, inventory entries in `inventory.ts`. Pure, below both; imports nothing.
 */

/** Where something stands in the repository: 1-based line and column, and the path inside the document. */
export interface SourceLocation {
  /** Path relative to the repository root, with `/` separators. */
  file: string;
  line: number;
  column: number;
  /** Path inside the document, e.g. `share.rotate_every` or `secrets.MAPBOX_TOKEN`; "" for the file itself. */
  path: string;
}

/** A validation error: where, what was found, what was expected. */
export interface LoadError extends SourceLocation {
  message: string;
}

/** The kinds a repository declares: one list of kinds, `kind-list.ts`. */
export type { DesiredKind } from "./kind-list";
import type { DesiredKind } from "./kind-list";

/**
 * One desired object. `inputs` are the kind's inputs (camelCase, as `src/kinds/<kind>/resource.ts`
 * checks them), except references to other objects, which stay symbolic in `refs` until the
 * planner resolves them against the platform (a canvas name becomes `canvasId`, a
 * `<canvas>/<slug>` becomes `udfId`).
 */
export interface DesiredObject {
  /** Stable, human address: `canvas.sales`, `udf.sales/loader`, `share.sales`, `cronjob.daily`, `secret.MAPBOX_TOKEN`, `service_account.ci`, `bucket_policy.demo-bucket`. */
  address: string;
  kind: DesiredKind;
  /** Never changed in place (replaced instead): the kinds' check of them is kept per inputs object. */
  inputs: Readonly<Record<string, unknown>>;
  refs: { canvas?: string; udf?: string };
  /** Reconciler options that are not platform fields (rotation policy, where to write outputs). */
  options: {
    /** `30d`, `12h`: rotate the token when its last rotation is older (shares, service accounts). */
    rotateEvery?: string;
    /** For bucket policies: the file (relative to the repository) to write the policy document to. */
    output?: string;
    /** For UDFs: visibility and order on the canvas. */
    isVisible?: boolean;
    position?: number;
    /** `protect: true`: a plan that would delete or replace it fails, whatever prune says (see protect.ts). */
    protect?: boolean;
    /** `on_drift:` in the object's own settings (a canvas: canvas.yaml), with where it is written. */
    onDrift?: DriftPolicySetting;
    /** For UDFs, `deploy: tested`: a body change is tested on a hidden candidate before the live UDF changes (see `switch-over.ts`). */
    deploy?: "tested";
  };
  source: SourceLocation;
  /**
   * The inputs whose values the repository writes with a `${var.NAME}` / `${env.NAME}` reference,
   * sorted by field: their values differ between targets, so the platform's value of one cannot be
   * written back into the shared file (drift offers no `import --keep` for them). Secret fields are
   * not listed (they are always references). Absent when there is none.
   * @default []
   */
  referenced?: ReferencedInput[];
}

/** An input of a desired object whose value is written with a reference. */
export interface ReferencedInput {
  /** The input as plans and drift name it: `dashboardBody`, `udfArgs`, `isVisible`. */
  field: string;
  /** The key it is read from, as the file names it: `dashboard_body`, `args`, `share.client_id`. */
  key: string;
  /** The first reference written in its value, as written: `${var.city}`. */
  reference: string;
  /** Where that reference is written; `path` is its place in the document, e.g. `dashboard_body`, `args.city`. */
  source: SourceLocation;
}

/**
 * One entry of a UDF's `tests:` (in `canvases/<canvas>/<slug>.yaml`): run the deployed UDF with
 * `args` and expect a result matching `expect`, or, with `expectError`, a failed run.
 */
export interface UdfTest {
  /** The UDF's address, `udf.<canvas>/<slug>` (`udf.<slug>` without a canvas). */
  address: string;
  /** Absent for a UDF without a canvas. */
  canvas?: string;
  slug: string;
  /** `name:`, else `#<position in the list, from 1>`. */
  name: string;
  /** The UDF's parameters. @default {} */
  args: Record<string, unknown>;
  /** A subset of the JSON result (objects by subset, recursively; arrays and scalars exactly); absent when `expectError`. */
  expect?: unknown;
  /** The run must fail (the UDF raises). */
  expectError: boolean;
  source: SourceLocation;
}

/** What `svc-iac drift --remediate` does with an object that drifted (`on_drift:`). */
export type DriftPolicy = "report" | "restore" | "keep";

export const DRIFT_POLICIES: readonly DriftPolicy[] = ["report", "restore", "keep"];

/** An `on_drift:` as written, with where: `on_drift in canvases/sales/canvas.yaml`. */
export interface DriftPolicySetting {
  policy: DriftPolicy;
  /** For reports: `on_drift of target prod in svc.yaml`. */
  from: string;
}

/** `flapping:` of svc.yaml: an object restored `restores` times within `within` is not restored again. */
export interface FlappingSettings {
  /** @default 3 */
  restores: number;
  /** As written, `7d`. @default "7d" */
  within: string;
}

/** Events a `notify:` target can ask for. */
export type NotifyEvent =
  | "apply_failed"
  | "apply_succeeded"
  | "drift_found"
  | "drift_restored"
  | "drift_contested"
  | "test_failed";

export const NOTIFY_EVENTS: readonly NotifyEvent[] = [
  "apply_failed",
  "apply_succeeded",
  "drift_found",
  "drift_restored",
  "drift_contested",
  "test_failed",
];

/** One `notify:` entry of svc.yaml: a webhook whose URL is in the environment variable `urlEnv`. */
export interface NotifyTarget {
  name: string;
  urlEnv: string;
  events: NotifyEvent[];
}

export type StateLocation = { kind: "local"; path: string } | { kind: "remote"; url: string };

export interface ProjectSettings {
  /** Delete inventory objects that left the repository. @default false */
  prune: boolean;
  /** A plan deleting more than this many objects stops unless allowed. @default 10 */
  maxDeletions: number;
  /** Where {@link maxDeletions} came from, as messages name it (`max_deletions of target prod in svc.yaml`). @default "max_deletions in svc.yaml" */
  maxDeletionsFrom?: string;
  /** Where the inventory and lock live. @default local `.svc-iac/state/<project>/<target>` */
  state: StateLocation;
  /** Names of the environment variables holding this target's credentials (defaults `SVC_*`). */
  credentials: { baseUrlEnv: string; udfBaseUrlEnv: string; tokenEnv: string; serviceTokenEnv: string };
  /** Apply concurrency. @default 8 */
  concurrency: number;
  /** Deployment history retention (`history:` in svc.yaml, the target's keys over the project's); `off`: `history: false`, nothing recorded. */
  history: { keep: number; maxAgeMs?: number; off?: true };
  /** The target's `name_prefix` / `name_suffix`, when it sets one (preview environments). */
  names?: { prefix: string; suffix: string };
  /** `on_drift:` of the target, else of the project; absent: `report`. */
  onDrift?: DriftPolicySetting;
  /** `flapping:` of svc.yaml. @default {restores: 3, within: "7d"} */
  flapping?: FlappingSettings;
  /** `notify:` of svc.yaml. @default [] */
  notify?: NotifyTarget[];
}

/** A `moved:` entry of svc.yaml: the object the inventory records under `from` is now declared as `to`. */
export interface MovedEntry {
  from: string;
  to: string;
  /** Where `to` is written (and `from`, for errors about it). */
  source: SourceLocation;
  fromSource: SourceLocation;
}

/**
 * A `removed:` entry of svc.yaml: the object at `address` is no longer managed; apply drops it from
 * the inventory and leaves it on the platform.
 */
export interface RemovedEntry {
  address: string;
  source: SourceLocation;
}

export interface LoadedProject {
  /** Absolute path of the repository root (the folder holding `svc.yaml`). */
  root: string;
  project: string;
  target: string;
  settings: ProjectSettings;
  /** Sorted by address. */
  objects: DesiredObject[];
  /** Names of the secret values used (environment variable names), for redaction. */
  secretEnvNames: string[];
  /** `moved:` entries of svc.yaml (renames the inventory cannot tell by itself). @default [] */
  moved?: MovedEntry[];
  /** `removed:` entries of svc.yaml (objects to stop managing, left on the platform). @default [] */
  removed?: RemovedEntry[];
  /** Every target svc.yaml declares, `default` included (their inventories are checked before adopting). @default [target] */
  targets?: string[];
  /** `tests:` of the UDFs, by address then position. @default [] */
  tests?: UdfTest[];
  /** What the loader left out and why (a prefixed target's team-wide objects); shown as plan warnings. @default [] */
  warnings?: string[];
}

export type LoadResult = { ok: true; project: LoadedProject } | { ok: false; errors: LoadError[] };

/** `file:line:column: message`, the form editors and CI annotations understand. */
export function formatLoadError(e: LoadError): string {
  return `${e.file}:${e.line}:${e.column}: ${e.path ? `${e.path}: ` : ""}${e.message}`;
}
