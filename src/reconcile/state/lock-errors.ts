/**
 * The errors of the state backends (the lease lock, and state files that cannot be read), each with
 * a stable `code` the CLI can branch on. Messages name the state location, the holder and the lock
 * id, and say what to do next.
 */
import { SvcError } from "../../errors";
import type { LockInfo } from "./types";

/** Another run holds an unexpired lease on this state. */
export class LockedError extends SvcError {
  override readonly name = "LockedError";
  constructor(
    /** The state location, as {@link StateBackend.location} gives it. */
    readonly location: string,
    /** The holder of the lease. */
    readonly holder: LockInfo,
  ) {
    super(
      "locked",
      `State ${location} is locked by ${holder.owner} (${holder.operation}, since ${holder.acquiredAt}, lease until ${holder.expiresAt}). ` +
        `Wait for it to finish, or run with --force-unlock ${holder.id} if that run is gone.`,
    );
  }
}

/** Our lease was taken over (it expired and another run took it) or removed with --force-unlock. */
export class LockLostError extends SvcError {
  override readonly name = "LockLostError";
  constructor(
    readonly location: string,
    /** The id of the lease we held. */
    readonly lostId: string,
    /** Who holds the lock now; `undefined` when nobody does. */
    readonly holder: LockInfo | undefined,
  ) {
    super(
      "lock_lost",
      holder
        ? `Lost the lock on state ${location}: lease ${lostId} was taken over by ${holder.owner} (lock ${holder.id}, ${holder.operation}). Stop and run again once that run has finished.`
        : `Lost the lock on state ${location}: lease ${lostId} was removed (--force-unlock or an expired lease cleared). Stop and run again.`,
    );
  }
}

/** `--force-unlock ID` named a lock that is not the one present: nothing was removed. */
export class LockMismatchError extends SvcError {
  override readonly name = "LockMismatchError";
  constructor(
    readonly location: string,
    /** The id given to --force-unlock. */
    readonly requestedId: string,
    /** The lock actually present. */
    readonly holder: LockInfo,
  ) {
    super(
      "lock_mismatch",
      `State ${location} is locked with id ${holder.id} by ${holder.owner} (${holder.operation}, lease until ${holder.expiresAt}), not ${requestedId}; nothing was removed. ` +
        `Run with --force-unlock ${holder.id} to remove that lock.`,
    );
  }
}

/** A state file (inventory or lock) that cannot be read: not JSON, wrong shape, or a version this svc-iac does not read. */
export class StateFileError extends SvcError {
  override readonly name = "StateFileError";
  /** The file: `.svc-iac/state/listings/default/inventory.json` or `s3://acme/state/listings/prod/inventory.json`. */
  declare readonly file: string;

  constructor(file: string, message: string) {
    super("state_file_invalid", message, { file });
  }
}
