/**
 * Folder `history/`: the deployment history of a target, kept in its state backend beside the
 * inventory (`history/index.json` and `history/packs/<deployment>.json`), what a deployment
 * records, retention, and the platform as it was after a deployment (what `rollback` plans back
 * to). May import `src/model`, `src/kinds` (secret inputs), `../state` and `../plan` types.
 *
 * This module: the stored documents' shapes. Pure types and constants.
 */
import type { DesiredKind } from "../../model/desired";

/** Version of `history/index.json` and its packs; a newer one is refused, never overwritten. */
export const HISTORY_VERSION = 1;

/** What made a deployment. */
export type DeploymentOperation = "apply" | "destroy" | "import" | "rollback" | "remediate";

/** One object a deployment changed. */
export interface DeploymentObject {
  address: string;
  kind: DesiredKind;
  /** The plan's action (`create`, `update`, `delete`, …), or `import` for an adoption by `svc-iac import`. */
  action: string;
  /** Platform id after the step (before it, for a delete). */
  id?: string;
  /**
   * The object's recorded settings before the step: the hash of what the history held for it last
   * (its state after the deployment that last changed it), absent when the history had nothing.
   */
  before?: string;
  /** Its settings after the step (hash of a {@link Snapshot}); `null` when the step removed it. */
  after: string | null;
}

/** One deployment: an apply, destroy, import, rollback or drift remediation that changed something. */
export interface Deployment {
  /** `1`, `2`, …: numbered per target, never reused. */
  id: string;
  /** ISO time at which it finished. */
  time: string;
  target: string;
  /** The repository's git commit (full SHA) when it is in a git work tree. */
  commit?: string;
  /** Whether the work tree had changes not committed (then `commit` is not all it applied). */
  dirty?: boolean;
  /** Who ran it: the CI actor (`github:octocat`) or `user@host`. */
  actor: string;
  operation: DeploymentOperation;
  /** `rollback`: the deployment it went back to. */
  rollbackOf?: string;
  /** A digest of the plan that was applied (its actions and fields, secrets as fingerprints). */
  planDigest: string;
  /** Whether every step succeeded. */
  ok: boolean;
  /** Sorted by address. */
  objects: DeploymentObject[];
}

/**
 * `history/index.json`. The state after deployment X, per address, is `baseline` overlaid with the
 * `after` of each deployment up to X (oldest first); a deployment dropped by retention is folded
 * into `baseline` first.
 */
export interface HistoryIndex {
  version: typeof HISTORY_VERSION;
  project: string;
  target: string;
  /** The next deployment's id. */
  next: number;
  /** Objects as they were before the oldest kept deployment (address → snapshot hash). */
  baseline: Record<string, string>;
  /** Oldest first. */
  deployments: Deployment[];
  /** Which pack holds each snapshot (hash → pack name, `<deployment id>`). */
  blobs: Record<string, string>;
}

/**
 * An object's settings as the repository declared them when it was deployed (what rollback puts
 * back): the kind's inputs without secret inputs, the symbolic references and the reconciler
 * options. Stored once per distinct content (its hash is its name).
 */
export interface Snapshot {
  kind: DesiredKind;
  inputs: Record<string, unknown>;
  refs: { canvas?: string; udf?: string };
  options: Record<string, unknown>;
}

/** Retention: `history: {keep, max_age}` in svc.yaml (project, or per target). */
export interface HistoryRetention {
  /** Deployments kept, newest first. @default 100 */
  keep: number;
  /** Deployments older than this are dropped (the newest is always kept). */
  maxAgeMs?: number;
}

export const DEFAULT_HISTORY_KEEP = 100;
