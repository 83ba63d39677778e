/**
 * What the reconciler keeps between runs, per project and target: the inventory (what it created
 * or adopted, and when tokens were last rotated) and a lease lock (one apply at a time). Both live
 * in a state backend: a local folder (default `.svc-iac/state/<project>/<target>/`) or an
 * `s3://` / `gs://` path written through the platform's files API.
 *
 * Folder `state/`: what persists between runs (inventory file and journal, lease lock, fingerprint
 * key; local or remote backends), the credential intents and atomic JSON files. The inventory's own
 * types are in `src/model/inventory.ts`, below the kinds. May import `src/api`, `src/model`,
 * `src/kinds/fingerprint`, and `../load` (other targets' settings).
 */
import type { FingerprintKey } from "../../kinds/fingerprint";
import type { Inventory, InventoryEntry } from "../../model/inventory";

/** The holder of a lease lock. */
export interface LockInfo {
  /** Random id of this lease (what `--force-unlock ID` names). */
  id: string;
  /** `user@host pid 1234` or a CI run URL. */
  owner: string;
  /** `apply`. */
  operation: string;
  acquiredAt: string;
  /** The lease ends here unless renewed; an expired lock may be taken over. */
  expiresAt: string;
  /**
   * Where the holder runs: host name, kernel boot id (Linux) and process id. A local lock whose
   * holder ran on this host and is no longer running is taken over at once. Absent in locks
   * written by older versions (the lease rule alone applies to them).
   */
  process?: LockProcess;
}

/** The process holding a lease. */
export interface LockProcess {
  host: string;
  /** `/proc/sys/kernel/random/boot_id` where readable: tells a pid from before a reboot. */
  bootId?: string;
  pid: number;
}

/** Options of {@link StateBackend.acquireLock}. */
export interface AcquireLockOptions {
  owner: string;
  operation: string;
  ttlMs: number;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * Told when an unexpired lease was taken over because its holder is known to be dead (a local
   * lock whose process, on this host, no longer runs), so the caller can say so.
   */
  onTakeover?: (dead: LockInfo, reason: string) => void;
}

/** A held lease: renew it while working, release it when done. */
export interface LockHandle {
  readonly info: LockInfo;
  /** Extends the lease by its ttl; throws LockLostError if another holder took it over. */
  renew(): Promise<void>;
  /** Removes the lock if it is still ours. */
  release(): Promise<void>;
}

/** One change of the inventory: the entry now at `address`, or `null` when it was removed. */
export interface JournalRecord {
  address: string;
  entry: InventoryEntry | null;
}

/**
 * The inventory's journal: changes appended as they happen, each write costing what changed, not
 * the whole inventory. `readInventory` folds it into the inventory it returns (in order, so a
 * replay over an inventory that already holds it changes nothing); `writeInventory` writes the
 * whole inventory and then drops the journal. A write cut short by a kill leaves at most one torn
 * last record, which is ignored; after a stopped run the inventory is written whole (`foldDue`)
 * before anything is appended, so nothing is appended after a torn record.
 */
export interface InventoryJournal {
  append(records: JournalRecord[]): Promise<void>;
  /** Whether the last `readInventory` found journal records or no inventory file: the whole inventory is due to be written. */
  readonly foldDue: boolean;
}

/**
 * What `svc-iac drift --remediate` restored, per address (`restore-history.json` beside the
 * inventory): each restore's time and the digest of what the repository declared then, so an
 * object restored again and again is noticed (flapping) until the repository changes it.
 */
export interface RestoreHistory {
  version: 1;
  project: string;
  target: string;
  restores: Record<string, RestoreRecord[]>;
}

export interface RestoreRecord {
  /** ISO time of the restore. */
  at: string;
  /** A keyed digest of the object as the repository declared it (never a value). */
  declared: string;
}

export interface StateBackend {
  /** Where the state lives, for messages: `.svc-iac/state/listings/default` or `s3://acme/state/listings/prod`. */
  readonly location: string;
  /** `undefined` when nothing was applied yet. Throws a clear error when the file is corrupt. */
  readInventory(): Promise<Inventory | undefined>;
  /** Writes atomically (a reader never sees half a file); then drops the journal, which it holds. */
  writeInventory(inventory: Inventory): Promise<void>;
  /** Backends that can append changes (local folders); others are written whole, in batches. */
  readonly journal?: InventoryJournal;
  /**
   * Takes the lease, or throws LockedError naming the holder, its expiry and `--force-unlock <id>`.
   * An expired lease is taken over.
   */
  acquireLock(opts: AcquireLockOptions): Promise<LockHandle>;
  readLock(): Promise<LockInfo | undefined>;
  /** Removes the lock when its id is `id` (or any lock when `id` is undefined); returns what was removed. */
  forceUnlock(id?: string): Promise<LockInfo | undefined>;
  /**
   * The project's fingerprint key (`fingerprint-key.json` beside the inventory; local: mode 0600),
   * made on first use when `create` is set; `undefined` when there is none and `create` is not.
   */
  fingerprintKey(opts: { create: boolean }): Promise<FingerprintKey | undefined>;
  /**
   * Other documents kept beside the inventory (the deployment history, `history/…`), by a name of
   * lower-case `[a-z0-9._-]` parts joined by `/` ({@link DOCUMENT_NAME}): read (`undefined` when
   * missing; at most `maxBytes`), written whole and atomically, removed.
   */
  readDocument(name: string, maxBytes: number): Promise<string | undefined>;
  writeDocument(name: string, text: string): Promise<void>;
  removeDocument(name: string): Promise<void>;
  /** The restore history (`restore-history.json` beside the inventory); empty when there is none. */
  readRestoreHistory(): Promise<RestoreHistory>;
  /** Writes the restore history whole (atomically where the backend can). */
  writeRestoreHistory(history: RestoreHistory): Promise<void>;
}

/** The name of a document beside the inventory: relative, lower-case parts, no `..`. */
export const DOCUMENT_NAME = /^(?:[a-z0-9][a-z0-9._-]*\/)*[a-z0-9][a-z0-9._-]*$/;
