/**
 * A command that changes the platform (apply, destroy) runs holding the project's lock: the lease
 * is renewed in the background while it works, and when a renewal fails (another run took the
 * lock over) the command is told to start nothing more. Always released at the end.
 */
import type { CommandOptions } from "../commands/command-types";
import { defaultLockOwner } from "../state/lock-file";
import type { StateBackend } from "../state/types";

export const DEFAULT_LOCK_TTL_MS = 10 * 60_000;

/** Why no further step may start (the lock was lost), or undefined to go on. */
export type StopReason = () => string | undefined;

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Renews on the system clock, every `everyMs`. */
const renewEvery = (renew: () => Promise<void>, everyMs: number) => {
  const timer = setInterval(() => void renew(), everyMs);
  return () => clearInterval(timer);
};

/** Runs `body` holding the lock of `backend` for `operation`. */
export async function withHeldLock<T>(
  backend: StateBackend,
  opts: CommandOptions,
  operation: string,
  body: (stopReason: StopReason) => Promise<T>,
): Promise<T> {
  const ttlMs = opts.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;
  const lock = await backend.acquireLock({
    owner: opts.lockOwner ?? defaultLockOwner(),
    operation,
    ttlMs,
    now: opts.now ?? (() => new Date()),
    onTakeover: (dead, reason) =>
      opts.log?.(`Took over the lock ${dead.id} of ${dead.owner}: ${reason}, so that run ended without releasing it.`),
  });
  let renewal: Promise<void> = Promise.resolve();
  let lockLost: string | undefined;
  const renew = () => {
    renewal = lock.renew().catch((e) => {
      // Another run may now be changing the platform: start nothing more.
      lockLost = `the lock could not be renewed (${messageOf(e)})`;
      opts.log?.(`Stopping: ${lockLost}.`);
    });
    return renewal;
  };
  const stopRenewing = (opts.scheduleRenewal ?? renewEvery)(renew, Math.max(1000, Math.floor(ttlMs / 3)));
  try {
    return await body(() => lockLost ?? opts.interrupted?.());
  } finally {
    stopRenewing();
    await renewal;
    await lock.release();
  }
}

/**
 * `--force-unlock ID|all`, before the lock is taken. Returns why the command must stop: `ID` named a
 * lock that is not there (as `terraform force-unlock` fails when there is no lock: the run the user
 * meant to clear may have finished, or another removed it). With `all` ("any lock") the command goes
 * on, saying there was none. A lock of another id throws `LockMismatchError`, removing nothing.
 */
export async function forceUnlockFirst(backend: StateBackend, opts: CommandOptions): Promise<string | undefined> {
  if (opts.forceUnlock === undefined) return undefined;
  const removed = await backend.forceUnlock(opts.forceUnlock === true ? undefined : opts.forceUnlock);
  if (removed) {
    opts.log?.(`Removed the lock ${removed.id} held by ${removed.owner} since ${removed.acquiredAt}.`);
    return undefined;
  }
  if (opts.forceUnlock === true) {
    opts.log?.(`No lock to remove: state ${backend.location} was not locked (--force-unlock all); going on.`);
    return undefined;
  }
  return `No lock to remove: state ${backend.location} is not locked, so there is no lock ${opts.forceUnlock}; nothing was changed. The run that held it has finished or its lock was removed already: run again without --force-unlock.`;
}
