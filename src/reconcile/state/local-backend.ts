/**
 * State in a local folder (default `.svc-iac/state/<project>/<target>/`): `inventory.json`, its
 * journal `inventory.journal` (changes appended during an apply, folded in by the next whole
 * write) and `lock.json`. Whole writes go through a temporary file and a rename; the lock is taken
 * by an exclusive create, so of two processes racing for it exactly one wins.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { chmod, link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { siblingTempName, writeFileAtomic } from "./json-file";
import { RepositoryJail } from "../../repository/jail";
import type { FingerprintKey } from "../../kinds/fingerprint";
import { FINGERPRINT_KEY_FILE, loadFingerprintKey } from "./fingerprint-key-file";
import { checkInventoryOwner, emptyInventory, parseInventory, serializeInventory } from "./inventory-file";
import { foldJournal, journalText } from "./inventory-journal";
import { LeaseHandle, forceUnlockIn, readLockIn, type LockStore } from "./lease";
import { LockedError } from "./lock-errors";
import {
  deadHolderReason,
  isExpired,
  newLockInfo,
  parseLock,
  serializeLock,
  type AcquireLockOptions,
} from "./lock-file";
import type { Inventory } from "../../model/inventory";
import {
  DOCUMENT_NAME,
  type InventoryJournal,
  type JournalRecord,
  type LockHandle,
  type LockInfo,
  type RestoreHistory,
  type StateBackend,
} from "./types";
import { SvcError } from "../../errors";
import { parseRestoreHistory, RESTORE_HISTORY_FILE, serializeRestoreHistory } from "./restore-history";

export interface LocalBackendOptions {
  /** Repository root; `path` is relative to it. */
  root: string;
  /** The state folder relative to `root`, already holding `<project>/<target>`: `.svc-iac/state/listings/default`. */
  path: string;
  project: string;
  target: string;
}

/** How many times acquire retries after clearing an expired lease or seeing a lock vanish, before giving up. */
const ACQUIRE_ATTEMPTS = 5;

function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

/** A state file's text through the repository's jail (a planted link is refused, never followed); undefined when missing. */
async function readTextOrUndefined(jail: RepositoryJail, file: string): Promise<string | undefined> {
  const read = jail.readText(file);
  if (read.kind === "refused") throw new SvcError("state_unreadable", `Cannot read the state: ${read.message}`);
  return read.kind === "text" ? read.text : undefined;
}

/** Appending to the journal: never through a link planted at its name. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/**
 * Creates `file` holding `text` only if it does not exist; `false` when it does. The content is
 * written to a temporary file first and hard-linked into place: `link` fails on an existing target
 * exactly like `open(O_CREAT|O_EXCL)` (the `wx` flag) but a reader never sees an empty, half-written
 * lock. File systems without hard links fall back to the `wx` flag.
 */
async function createExclusive(file: string, text: string, mode?: number): Promise<boolean> {
  const tmp = siblingTempName(file);
  await writeFile(tmp, text, { flag: "wx", mode });
  // The umask cannot widen it, but a mode is set explicitly so it holds whatever the umask is.
  if (mode !== undefined) await chmod(tmp, mode);
  try {
    await link(tmp, file);
    return true;
  } catch (e) {
    if (errnoCode(e) === "EEXIST") return false;
    if (!["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"].includes(errnoCode(e) ?? "")) throw e;
    try {
      await writeFile(file, text, { flag: "wx", mode });
      return true;
    } catch (e2) {
      if (errnoCode(e2) === "EEXIST") return false;
      throw e2;
    }
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A {@link StateBackend} over a local folder. */
export class LocalStateBackend implements StateBackend {
  readonly location: string;
  readonly journal: InventoryJournal;
  private readonly dir: string;
  private readonly lock: LockStore;
  private foldDue = true;
  /** The journal's file descriptor, open for appending (from the first append to the next whole write). */
  private journalFd: number | undefined;

  private readonly jail: RepositoryJail;

  /** @throws JailError when the state folder is outside the repository (through a link) or under .git. */
  constructor(private readonly opts: LocalBackendOptions) {
    this.location = opts.path.split(path.sep).join("/").replace(/\/+$/, "");
    this.jail = RepositoryJail.forProject(opts.root);
    // Its real path, every existing part checked: what is created later is made under it.
    this.dir = this.jail.folder(opts.path, { create: false });
    const jail = this.jail;
    const lockFile = path.join(this.dir, "lock.json");
    this.lock = {
      location: this.location,
      file: `${this.location}/lock.json`,
      readText: () => readTextOrUndefined(jail, lockFile),
      replaceText: (text) => writeFileAtomic(lockFile, text),
      remove: () => rm(lockFile, { force: true }),
    };
    const self = this;
    this.journal = {
      append: (records) => this.appendJournal(records),
      get foldDue() {
        return self.foldDue;
      },
    };
  }

  private get journalFile(): string {
    return path.join(this.dir, "inventory.journal");
  }

  private get inventoryFile(): string {
    return path.join(this.dir, "inventory.json");
  }

  private documentFile(name: string): string {
    if (!DOCUMENT_NAME.test(name) || name.split("/").includes(".."))
      throw new SvcError("state_document_invalid", `"${name}" cannot name a state document.`);
    return path.join(this.dir, ...name.split("/"));
  }

  async readDocument(name: string, maxBytes: number): Promise<string | undefined> {
    const read = this.jail.readText(this.documentFile(name), { maxBytes });
    if (read.kind === "refused") throw new SvcError("state_unreadable", `Cannot read the state: ${read.message}`);
    return read.kind === "text" ? read.text : undefined;
  }

  async writeDocument(name: string, text: string): Promise<void> {
    const parts = path.relative(this.dir, this.documentFile(name)).split(path.sep);
    // Its folder through the jail: a link planted at history/ is refused, not followed.
    const dir = this.jail.folder(path.join(this.opts.path, ...parts.slice(0, -1)), { create: true });
    await writeFileAtomic(path.join(dir, parts.at(-1)!), text);
  }

  async removeDocument(name: string): Promise<void> {
    await rm(this.documentFile(name), { force: true });
  }

  private get lockFile(): string {
    return path.join(this.dir, "lock.json");
  }

  async readRestoreHistory(): Promise<RestoreHistory> {
    const text = await readTextOrUndefined(this.jail, path.join(this.dir, RESTORE_HISTORY_FILE));
    return parseRestoreHistory(text, `${this.location}/${RESTORE_HISTORY_FILE}`, this.opts);
  }

  async writeRestoreHistory(history: RestoreHistory): Promise<void> {
    await writeFileAtomic(path.join(this.dir, RESTORE_HISTORY_FILE), serializeRestoreHistory(history));
  }

  async readInventory(): Promise<Inventory | undefined> {
    const [text, journal] = await Promise.all([
      readTextOrUndefined(this.jail, this.inventoryFile),
      readTextOrUndefined(this.jail, this.journalFile),
    ]);
    const shown = `${this.location}/inventory.json`;
    const inventory =
      text === undefined ? undefined : checkInventoryOwner(parseInventory(text, shown), this.opts, shown);
    if (!journal) {
      this.foldDue = inventory === undefined;
      return inventory;
    }
    // A run stopped before its final write: its changes are in the journal.
    const folded = inventory ?? emptyInventory(this.opts.project, this.opts.target);
    const records = foldJournal(folded, journal, `${this.location}/inventory.journal`);
    this.foldDue = true;
    return inventory || records ? folded : undefined;
  }

  async writeInventory(inventory: Inventory): Promise<void> {
    await writeFileAtomic(this.inventoryFile, serializeInventory(inventory, `${this.location}/inventory.json`));
    // Everything the journal held is in the file now.
    if (this.journalFd !== undefined) closeSync(this.journalFd);
    this.journalFd = undefined;
    await rm(this.journalFile, { force: true });
    this.foldDue = false;
  }

  private async appendJournal(records: JournalRecord[]): Promise<void> {
    // After a stopped run, the journal may end in a torn record: the whole write comes first and drops it.
    if (this.foldDue)
      throw new SvcError(
        "internal",
        `The inventory at ${this.location} is due to be written whole before changes are appended to its journal.`,
      );
    this.journalFd ??= openSync(this.journalFile, APPEND_FLAGS, 0o666);
    // Whole lines in one write to the page cache (microseconds, so done synchronously): a kill
    // leaves at most the last line torn.
    const bytes = Buffer.from(journalText(records));
    let done = 0;
    while (done < bytes.length) done += writeSync(this.journalFd, bytes, done);
  }

  readLock(): Promise<LockInfo | undefined> {
    return readLockIn(this.lock);
  }

  async acquireLock(opts: AcquireLockOptions): Promise<LockHandle> {
    const now = opts.now ?? (() => new Date());
    await mkdir(this.dir, { recursive: true });
    for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
      const info = newLockInfo({ ...opts, now });
      if (await createExclusive(this.lockFile, serializeLock(info)))
        return new LeaseHandle(this.lock, info, opts.ttlMs, now);
      const held = await this.readLock();
      if (!held) continue; // released between our create and our read
      if (!isExpired(held, now())) {
        // A lease whose holder died on this host (kill -9, a crash) is not a wall: take it over now.
        const dead = deadHolderReason(held);
        if (!dead) throw new LockedError(this.location, held);
        if (await this.clearExpired(held)) opts.onTakeover?.(held, dead);
        continue;
      }
      await this.clearExpired(held);
    }
    throw new SvcError(
      "locked",
      `Could not take the lock on state ${this.location}: other runs kept taking it at the same moment. Run again.`,
    );
  }

  forceUnlock(id?: string): Promise<LockInfo | undefined> {
    return forceUnlockIn(this.lock, id);
  }

  fingerprintKey(opts: { create: boolean }): Promise<FingerprintKey | undefined> {
    const file = path.join(this.dir, FINGERPRINT_KEY_FILE);
    return loadFingerprintKey(
      {
        file: `${this.location}/${FINGERPRINT_KEY_FILE}`,
        read: () => readTextOrUndefined(this.jail, file),
        create: async (text) => {
          await mkdir(this.dir, { recursive: true });
          // Readable by its owner only; of two runs making one at once, the first link wins.
          await createExclusive(file, text, 0o600);
        },
      },
      opts,
    );
  }

  /**
   * Moves an expired lease out of the way so the next exclusive create can be tried; the create
   * then decides between contenders. The move is a rename to a private name, and what was moved is
   * checked: if a contender replaced the expired lease in the meantime, its fresh lease is put back
   * (with `link`, which never overwrites). Should a third run create a lock in the instant between,
   * the restored lease is dropped, and its holder learns it at its next renew (LockLostError).
   * Also used for a lease whose holder is dead. Returns true when it was this call that cleared it.
   */
  private async clearExpired(expired: LockInfo): Promise<boolean> {
    const moved = siblingTempName(this.lockFile, "expired");
    try {
      await rename(this.lockFile, moved);
    } catch (e) {
      if (errnoCode(e) === "ENOENT") return false; // another contender moved it first
      throw e;
    }
    try {
      if (movedId(await readFile(moved, "utf8"), moved) === expired.id) return true;
      try {
        await link(moved, this.lockFile);
      } catch (e) {
        if (errnoCode(e) !== "EEXIST") throw e;
      }
      return false;
    } finally {
      await rm(moved, { force: true });
    }
  }
}

function movedId(text: string, file: string): string | undefined {
  try {
    return parseLock(text, file).id;
  } catch {
    return undefined;
  }
}
