/**
 * State in object storage (`s3://bucket/prefix` or `gs://bucket/prefix`), read and written through
 * the platform's files API: `<prefix>/inventory.json` and `<prefix>/lock.json`. An upload replaces
 * an object in one step, so a reader never sees half an inventory.
 */
import type { SvcClient } from "../../api/client";
import { isApiError } from "../../api/errors";
import type { FingerprintKey } from "../../kinds/fingerprint";
import { FINGERPRINT_KEY_FILE, loadFingerprintKey } from "./fingerprint-key-file";
import { checkInventoryOwner, parseInventory, serializeInventory } from "./inventory-file";
import { LeaseHandle, forceUnlockIn, readLockIn, type LockStore } from "./lease";
import { LockedError } from "./lock-errors";
import { isExpired, newLockInfo, serializeLock, type AcquireLockOptions } from "./lock-file";
import type { Inventory } from "../../model/inventory";
import { DOCUMENT_NAME, type LockHandle, type LockInfo, type RestoreHistory, type StateBackend } from "./types";
import { AnswerTooLarge } from "../../api/files";
import { SvcError } from "../../errors";
import { parseRestoreHistory, RESTORE_HISTORY_FILE, serializeRestoreHistory } from "./restore-history";

export interface RemoteBackendOptions {
  /** `s3://acme-iac/state/listings/prod`: the prefix, already holding `<project>/<target>`. */
  url: string;
  client: SvcClient;
  project: string;
  target: string;
  /**
   * How long acquire waits between writing its lock and reading it back (see
   * {@link RemoteStateBackend.acquireLock}).
   * @default 300
   */
  settleMs?: number;
}

const JSON_TYPE = "application/json";

/** A {@link StateBackend} over an `s3://` or `gs://` prefix, through the files API. */
export class RemoteStateBackend implements StateBackend {
  readonly location: string;
  private readonly lock: LockStore;
  private readonly settleMs: number;

  constructor(private readonly opts: RemoteBackendOptions) {
    if (!/^(s3|gs):\/\/[^/]+/.test(opts.url)) {
      throw new SvcError(
        "state_location_invalid",
        `Invalid remote state location "${opts.url}". It must be an s3:// or gs:// URL such as "s3://my-bucket/state/${opts.project}/${opts.target}".`,
      );
    }
    this.location = opts.url.replace(/\/+$/, "");
    this.settleMs = opts.settleMs ?? 300;
    const lockUrl = `${this.location}/lock.json`;
    this.lock = {
      location: this.location,
      file: lockUrl,
      readText: () => this.download(lockUrl),
      replaceText: async (text) =>
        void (await opts.client.files.upload(lockUrl, Buffer.from(text), { contentType: JSON_TYPE })),
      remove: async () => void (await opts.client.files.delete(lockUrl)),
    };
  }

  private get inventoryUrl(): string {
    return `${this.location}/inventory.json`;
  }

  /** The object's text, or `undefined` when there is no object at `url`. */
  private async download(url: string, maxBytes?: number): Promise<string | undefined> {
    try {
      return (await this.opts.client.files.download(url, maxBytes === undefined ? {} : { maxBytes })).toString("utf8");
    } catch (e) {
      if (isApiError(e, "not_found")) return undefined;
      throw e;
    }
  }

  async readInventory(): Promise<Inventory | undefined> {
    const text = await this.download(this.inventoryUrl);
    if (text === undefined) return undefined;
    return checkInventoryOwner(parseInventory(text, this.inventoryUrl), this.opts, this.inventoryUrl);
  }

  async writeInventory(inventory: Inventory): Promise<void> {
    const text = serializeInventory(inventory, this.inventoryUrl);
    await this.opts.client.files.upload(this.inventoryUrl, Buffer.from(text), { contentType: JSON_TYPE });
  }

  async readRestoreHistory(): Promise<RestoreHistory> {
    const url = `${this.location}/${RESTORE_HISTORY_FILE}`;
    return parseRestoreHistory(await this.download(url), url, this.opts);
  }

  async writeRestoreHistory(history: RestoreHistory): Promise<void> {
    const url = `${this.location}/${RESTORE_HISTORY_FILE}`;
    await this.opts.client.files.upload(url, Buffer.from(serializeRestoreHistory(history)), { contentType: JSON_TYPE });
  }

  readLock(): Promise<LockInfo | undefined> {
    return readLockIn(this.lock);
  }

  /**
   * Takes the lease. The files API has no conditional write, so this reads the lock; throws
   * LockedError if another run holds an unexpired lease; otherwise writes a lease with a fresh id,
   * waits `settleMs`, reads the lock back, and holds the lease only if the id read back is its own
   * (the last writer wins; every other contender sees the winner and throws LockedError naming it).
   *
   * Race window: two runs both hold the lease if one run's read-then-write takes longer than the
   * other's whole write-settle-read, i.e. a write of ours lands more than `settleMs` after our read
   * of "no lock". With the default 300 ms against writes of a few milliseconds that needs a stalled
   * request; a longer `settleMs` narrows it further. A lease lost this way is noticed at the next
   * renew (LockLostError).
   */
  async acquireLock(opts: AcquireLockOptions): Promise<LockHandle> {
    const now = opts.now ?? (() => new Date());
    const held = await this.readLock();
    if (held && !isExpired(held, now())) throw new LockedError(this.location, held);
    const info = newLockInfo({ ...opts, now });
    await this.lock.replaceText(serializeLock(info));
    if (this.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, this.settleMs));
    const after = await this.readLock();
    if (after?.id === info.id) return new LeaseHandle(this.lock, info, opts.ttlMs, now);
    if (after) throw new LockedError(this.location, after);
    throw new SvcError(
      "lock_lost",
      `The lock on state ${this.location} disappeared while it was being taken (another run's --force-unlock?). Run again.`,
    );
  }

  private documentUrl(name: string): string {
    if (!DOCUMENT_NAME.test(name) || name.split("/").includes(".."))
      throw new SvcError("state_document_invalid", `"${name}" cannot name a state document.`);
    return `${this.location}/${name}`;
  }

  async readDocument(name: string, maxBytes: number): Promise<string | undefined> {
    const url = this.documentUrl(name);
    // Bounded as it streams: a document grown past its limit is never downloaded whole.
    try {
      return await this.download(url, maxBytes);
    } catch (e) {
      if (e instanceof AnswerTooLarge)
        throw new SvcError(
          "state_unreadable",
          `Cannot read the state: ${url} holds more than the limit of ${maxBytes} bytes for it.`,
        );
      throw e;
    }
  }

  async writeDocument(name: string, text: string): Promise<void> {
    await this.opts.client.files.upload(this.documentUrl(name), Buffer.from(text), { contentType: JSON_TYPE });
  }

  async removeDocument(name: string): Promise<void> {
    try {
      await this.opts.client.files.delete(this.documentUrl(name));
    } catch (e) {
      if (!isApiError(e, "not_found")) throw e;
    }
  }

  forceUnlock(id?: string): Promise<LockInfo | undefined> {
    return forceUnlockIn(this.lock, id);
  }

  /** The key at `<prefix>/fingerprint-key.json`: as private as the state prefix the token may read. */
  fingerprintKey(opts: { create: boolean }): Promise<FingerprintKey | undefined> {
    const url = `${this.location}/${FINGERPRINT_KEY_FILE}`;
    return loadFingerprintKey(
      {
        file: url,
        read: () => this.download(url),
        create: async (text) => {
          // No conditional write: write, let a racing writer land, and use what is read back.
          await this.opts.client.files.upload(url, Buffer.from(text), { contentType: JSON_TYPE });
          if (this.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, this.settleMs));
        },
      },
      opts,
    );
  }
}
