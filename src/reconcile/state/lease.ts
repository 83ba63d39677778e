/**
 * The parts of the lease protocol both backends share, over a {@link LockStore} (the lock file's
 * bytes wherever they live): renewing and releasing a held lease, and --force-unlock. Taking the
 * lease differs per backend (an exclusive create locally, write-and-read-back remotely).
 */
import { LockLostError, LockMismatchError, StateFileError } from "./lock-errors";
import { parseLock, serializeLock, unreadableLock } from "./lock-file";
import type { LockHandle, LockInfo } from "./types";

/** The lock file of one state location. */
export interface LockStore {
  /** The state location, for messages. */
  readonly location: string;
  /** The lock file, for messages: `<location>/lock.json`. */
  readonly file: string;
  /** The file's text, or `undefined` when there is none. */
  readText(): Promise<string | undefined>;
  /** Replaces the file's content in one step. */
  replaceText(text: string): Promise<void>;
  /** Deletes the file; no error when it is already gone. */
  remove(): Promise<void>;
}

/** The lock present, or `undefined`. @throws StateFileError when the file is not a lock. */
export async function readLockIn(store: LockStore): Promise<LockInfo | undefined> {
  const text = await store.readText();
  return text === undefined ? undefined : parseLock(text, store.file);
}

/** Like {@link readLockIn}, but an unreadable file counts as "not ours" rather than an error. */
async function readLockLenient(store: LockStore): Promise<LockInfo | undefined> {
  try {
    return await readLockIn(store);
  } catch (e) {
    if (e instanceof StateFileError) return undefined;
    throw e;
  }
}

/**
 * A held lease. `renew` and `release` check the file still holds our id first. Between that check
 * and the write there is a short window in which a run that found our lease expired could take
 * it; renewing well before expiry keeps that from happening.
 */
export class LeaseHandle implements LockHandle {
  #info: LockInfo;

  constructor(
    private readonly store: LockStore,
    info: LockInfo,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {
    this.#info = info;
  }

  /** The lease as last written (its `expiresAt` moves with each renew). */
  get info(): LockInfo {
    return this.#info;
  }

  async renew(): Promise<void> {
    const held = await readLockLenient(this.store);
    if (held?.id !== this.#info.id) throw new LockLostError(this.store.location, this.#info.id, held);
    const next = { ...this.#info, expiresAt: new Date(this.now().getTime() + this.ttlMs).toISOString() };
    await this.store.replaceText(serializeLock(next));
    this.#info = next;
  }

  async release(): Promise<void> {
    const held = await readLockLenient(this.store);
    if (held?.id === this.#info.id) await this.store.remove();
  }
}

/**
 * Removes the lock when its id is `id`, or whatever lock is there when `id` is undefined (even an
 * unreadable file). Returns what was removed, `undefined` when there was no lock.
 * @throws LockMismatchError when `id` names another lock (nothing is removed).
 */
export async function forceUnlockIn(store: LockStore, id: string | undefined): Promise<LockInfo | undefined> {
  let held: LockInfo | undefined;
  try {
    held = await readLockIn(store);
  } catch (e) {
    if (!(e instanceof StateFileError) || id !== undefined) throw e;
    await store.remove();
    return unreadableLock(store.file);
  }
  if (!held) return undefined;
  if (id !== undefined && held.id !== id) throw new LockMismatchError(store.location, id, held);
  await store.remove();
  return held;
}
