/**
 * The commands as functions (`svc-iac validate | plan | apply | drift | destroy`): what the CLI and the
 * GitHub Action call. Each returns data and an exit code; rendering is the caller's.
 */
import type { TransportOptions } from "../../api/transport";
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

/** What every command of the reconciler takes: the repository, the target, the environment. */
export interface RepositoryOptions {
  /** Repository folder (holding svc.yaml). @default "." */
  dir: string;
  /** @default "default" */
  target?: string;
  /** Environment for `${env.NAME}`, secrets and credentials. */
  env: Record<string, string | undefined>;
  /** The current time (rotation schedule, inventory times). @default the system clock */
  now?: () => Date;
  /** Messages for stderr (embedded emulator notice, warnings). */
  log?: (line: string) => void;
  /**
   * How the platform client sends, for a program that calls the commands: retries and their
   * back-off, the per-request time-out, connections per origin, request and retry callbacks.
   * @default the client's own (4 attempts from a 200 ms back-off, 30 s per request)
   * @example await applyCommand({ dir: ".", env: process.env, client: { retry: { maxAttempts: 6 } } });
   */
  client?: ClientTuning;
}

/** The platform client's options a command's caller may set (see {@link RepositoryOptions.client}). */
export type ClientTuning = Partial<
  Pick<TransportOptions, "retry" | "timeoutMs" | "connections" | "onRetry" | "onRequest">
>;

/** Where the policy rules come from (validate, plan, apply, drift). */
export interface PolicyOptions {
  /** The policy rules from this file or folder instead of the repository's `policies.yaml`. */
  policies?: string;
  /** `policies.yaml` at this git revision instead of the work tree's (a pull request's base). */
  policiesRef?: string;
}

/** What a plan covers and the guards it is held to (plan, apply, destroy; drift's restores). */
export interface PlanningOptions {
  /** Delete inventory objects that left the repository (or `prune: true` in svc.yaml). */
  prune?: boolean;
  /** Override svc.yaml's max_deletions. */
  maxDeletions?: number;
  /** Allow a plan that deletes every managed object. */
  allowDeleteAll?: boolean;
  /** Let deletions take objects the project does not manage with them (a hand-made UDF on a deleted canvas). */
  allowCascade?: boolean;
  /** Only the objects whose address matches one of these patterns (`*` any text), and what they need. */
  only?: string[];
  /** Replace these objects (a new object, id and token) even though nothing forces it. */
  replace?: string[];
}

/** Where new tokens go (plan checks there is somewhere; apply and restores hand them over). */
export interface TokenOptions {
  /** Where new tokens are written (JSON, mode 0600). */
  outputs?: string;
  /** Create service accounts even though no destination for their tokens is configured. */
  discardTokens?: boolean;
  /** Extra token destinations (GitHub secrets). */
  publishers?: TokenPublisher[];
}

/** The lock held while the platform is changed (apply, destroy, drift --remediate). */
export interface LockOptions {
  /** Lock holder description. */
  lockOwner?: string;
  /**
   * Remove the lock with this id (or any lock with `true`) before taking it. An id when there is
   * no lock stops the command (exit 1, nothing changed); `true` then goes on.
   */
  forceUnlock?: string | true;
  /** Lease length of the lock, renewed while the command runs. @default 600000 (10 min) */
  lockTtlMs?: number;
  /**
   * When the lease is renewed. Given `renew` and the interval, returns how to stop renewing. Tests
   * renew on a clock they control. @default every `max(1 s, lockTtlMs / 3)`
   */
  scheduleRenewal?: (renew: () => Promise<void>, everyMs: number) => () => void;
}

/** How the changes run and are shown (apply, destroy, drift --remediate). */
export interface ChangeOptions {
  /** Bounded concurrency (overrides svc.yaml). */
  concurrency?: number;
  progress?: (e: ProgressEvent) => void;
  /** Shown the plan before anything is changed; answering false stops with nothing done. @default always yes */
  confirm?: (plan: Plan) => Promise<boolean>;
  /**
   * Called with the final plan once it is approved, right before the first change (not when the
   * command stops before changing anything), so it can be shown first.
   */
  approved?: (plan: Plan) => void;
  /**
   * Why no new step may start (the user pressed Ctrl-C), or undefined to go on. Steps in flight
   * finish and are recorded; the rest are reported skipped.
   */
  interrupted?: () => string | undefined;
}

/** `svc-iac validate`. */
export interface ValidateOptions extends RepositoryOptions, PolicyOptions {}

/** `svc-iac plan`. */
export interface PlanOptions extends RepositoryOptions, PolicyOptions, PlanningOptions, TokenOptions {
  /**
   * Also write the saved plan (format `schemas/plan.schema.json`) to this file, for
   * `apply --plan`. Written only when the plan succeeds.
   */
  planOut?: string;
  /** Exit 2 when there are changes (as `terraform plan -detailed-exitcode`); otherwise 0. */
  detailedExitCode?: boolean;
}

/** `svc-iac apply` (and `svc-iac rollback`, an apply with `rollback`). */
export interface ApplyOptions
  extends RepositoryOptions,
    PolicyOptions,
    PlanningOptions,
    TokenOptions,
    LockOptions,
    ChangeOptions {
  /**
   * Execute exactly the saved plan in this file (written by `plan --out`). Apply re-observes
   * first and refuses, writing nothing, when the repository or any object the plan touches changed
   * since. The plan's own options (prune, limits, --only, --replace) and target apply.
   */
  planFile?: string;
  /**
   * Apply as `svc-iac rollback`: plan the platform back to its state after deployment `to` of the
   * history (only `addresses`, patterns with `*`, when given), and record it as a rollback.
   */
  rollback?: { to: string; addresses: string[] };
}

/** `svc-iac drift` (and `drift --remediate`, which restores through apply's plan under the lock). */
export interface DriftOptions
  extends RepositoryOptions,
    PolicyOptions,
    Pick<PlanningOptions, "allowCascade" | "maxDeletions">,
    TokenOptions,
    LockOptions,
    ChangeOptions {
  /** Act on each drifted object's `on_drift` policy (restore, keep, report), under the lock. */
  remediate?: boolean;
  /** With `remediate`: restore these addresses even when contested (flapping) or not set to restore. */
  forceRestore?: string[];
  /** How `notify:` webhooks are called (tests shorten the timeout). */
  webhooks?: WebhookOptions;
}

/** `svc-iac destroy`. */
export interface DestroyOptions
  extends RepositoryOptions,
    Pick<PlanningOptions, "allowCascade" | "only">,
    LockOptions,
    ChangeOptions {}

/**
 * Every command's options at once: what the command line and the GitHub Action build before they
 * know which command runs. Each command reads only its own ({@link PlanOptions}, {@link ApplyOptions}, …).
 */
export type CommandOptions = ValidateOptions & PlanOptions & ApplyOptions & DriftOptions & DestroyOptions;

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
