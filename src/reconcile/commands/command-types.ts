/**
 * The commands as functions (`svc-iac validate | plan | apply | drift | destroy`): what the CLI and the
 * GitHub Action call. Each returns data and an exit code; rendering is the caller's.
 */
import type { LoadError } from "../../model/desired";
import type { ApplyReport, DriftReport, Plan, RemediationReport } from "../plan/plan-model";
import type { WebhookOptions } from "../notify/webhooks";
import type { PolicyReport } from "../../policy/model";

/** A new token (service account, per-UDF shared token, share token) to hand to where the user asked. */
export interface PublishedToken {
  /** `service_account.ci`. */
  address: string;
  kind: string;
  /** A name usable as an environment variable / GitHub secret name: `SVC_SERVICE_ACCOUNT_CI_TOKEN`. */
  name: string;
  token: string;
}

/** A destination for new tokens: the `--outputs` file, GitHub Actions secrets, the log mask. */
export interface TokenPublisher {
  /** For the report: `outputs file .svc-iac/outputs.json`, `GitHub secret SVC_…`. */
  readonly name: string;
  /** Called as soon as a token exists, before any old credential is deleted. Throwing stops that rotation. */
  publish(token: PublishedToken): Promise<void>;
}

/** Progress events of apply, for a terminal display or plain lines. */
export type ProgressEvent =
  | { type: "start"; total: number }
  | { type: "begin"; address: string; action: string }
  | { type: "end"; address: string; action: string; status: "done" | "failed" | "skipped"; message?: string };

export interface CommandOptions {
  /** Repository folder (holding svc.yaml). @default "." */
  dir: string;
  /** @default "default" */
  target?: string;
  /** Environment for `${env.NAME}`, secrets and credentials. */
  env: Record<string, string | undefined>;
  /** Apply/plan: delete inventory objects that left the repository (or `prune: true` in svc.yaml). */
  prune?: boolean;
  /** Override svc.yaml's max_deletions. */
  maxDeletions?: number;
  /** Allow a plan that deletes every managed object. */
  allowDeleteAll?: boolean;
  /** Plan/apply/destroy: let deletions take objects the project does not manage with them (a hand-made UDF on a deleted canvas). */
  allowCascade?: boolean;
  /** Apply: where new tokens are written (JSON, mode 0600). */
  outputs?: string;
  /** Apply: create service accounts even though no destination for their tokens is configured. */
  discardTokens?: boolean;
  /** Apply: extra token destinations (GitHub secrets). */
  publishers?: TokenPublisher[];
  /**
   * Plan: also write the saved plan (format `schemas/plan.schema.json`) to this file, for
   * `apply --plan`. Written only when the plan succeeds.
   */
  planOut?: string;
  /**
   * Apply: execute exactly the saved plan in this file (written by `plan --out`). Apply re-observes
   * first and refuses, writing nothing, when the repository or any object the plan touches changed
   * since. The plan's own options (prune, limits, --only, --replace) and target apply.
   */
  planFile?: string;
  /** Plan/apply: only the objects whose address matches one of these patterns (`*` any text), and what they need. */
  only?: string[];
  /** Plan/apply: replace these objects (a new object, id and token) even though nothing forces it. */
  replace?: string[];
  /**
   * Apply as `svc-iac rollback`: plan the platform back to its state after deployment `to` of the
   * history (only `addresses`, patterns with `*`, when given), and record it as a rollback.
   */
  rollback?: { to: string; addresses: string[] };
  /** Apply: bounded concurrency (overrides svc.yaml). */
  concurrency?: number;
  /** Apply: lock holder description. */
  lockOwner?: string;
  /** Plan: exit 2 when there are changes (as `terraform plan -detailed-exitcode`); otherwise 0. */
  detailedExitCode?: boolean;
  /**
   * Apply, destroy: remove the lock with this id (or any lock with `true`) before taking it. An id
   * when there is no lock stops the command (exit 1, nothing changed); `true` then goes on.
   */
  forceUnlock?: string | true;
  /** Apply: lease length of the lock, renewed while apply runs. @default 600000 (10 min) */
  lockTtlMs?: number;
  /**
   * Apply, destroy: when the lease is renewed. Given `renew` and the interval, returns how to stop
   * renewing. Tests renew on a clock they control. @default every `max(1 s, lockTtlMs / 3)`
   */
  scheduleRenewal?: (renew: () => Promise<void>, everyMs: number) => () => void;
  /** The current time (rotation schedule, inventory times). @default the system clock */
  now?: () => Date;
  progress?: (e: ProgressEvent) => void;
  /** Apply: shown the plan before anything is changed; answering false stops with nothing done. @default always yes */
  confirm?: (plan: Plan) => Promise<boolean>;
  /**
   * Apply and destroy: called with the final plan once it is approved, right before the first
   * change (not when the command stops before changing anything), so it can be shown first.
   */
  approved?: (plan: Plan) => void;
  /**
   * Apply and destroy: why no new step may start (the user pressed Ctrl-C), or undefined to go
   * on. Steps in flight finish and are recorded; the rest are reported skipped.
   */
  interrupted?: () => string | undefined;
  /** Validate, plan, apply, drift: the policy rules from this file or folder instead of the repository's `policies.yaml`. */
  policies?: string;
  /** Validate, plan, apply, drift: `policies.yaml` at this git revision instead of the work tree's (a pull request's base). */
  policiesRef?: string;
  /** Messages for stderr (embedded emulator notice, warnings). */
  log?: (line: string) => void;
  /** Drift: act on each drifted object's `on_drift` policy (restore, keep, report), under the lock. */
  remediate?: boolean;
  /** Drift --remediate: restore these addresses even when contested (flapping) or not set to restore. */
  forceRestore?: string[];
  /** How `notify:` webhooks are called (tests shorten the timeout). */
  webhooks?: WebhookOptions;
}

/** Why a command stopped: the message, and the stable code of the error that stopped it (see `src/errors.ts`). */
export interface Stopped {
  message?: string;
  code?: string;
}

export type CommandResult =
  | {
      command: "validate";
      exitCode: 0 | 1;
      errors: LoadError[];
      objects: number;
      policy?: PolicyReport;
      notes?: string[];
    }
  | ({ command: "plan"; exitCode: 0 | 1 | 2; errors: LoadError[]; plan?: Plan } & Stopped)
  | ({ command: "apply"; exitCode: 0 | 1; errors: LoadError[]; plan?: Plan; report?: ApplyReport } & Stopped)
  | ({
      command: "drift";
      exitCode: 0 | 1 | 2;
      errors: LoadError[];
      drift?: DriftReport;
      /** `--remediate`: what was restored, kept, reported and contested. */
      remediation?: RemediationReport;
    } & Stopped)
  | ({ command: "destroy"; exitCode: 0 | 1; errors: LoadError[]; plan?: Plan; report?: ApplyReport } & Stopped);
