/**
 * The inventory during apply: changed in memory after every step and written to the state
 * backend in the background, in batches: at most one write in flight, and the changes made
 * meanwhile coalesced into the next one.
 *
 * A write costs what changed, not the whole inventory: a backend with a journal (local folders)
 * gets the changed entries appended, one append per batch of at most {@link JOURNAL_BATCH_RECORDS}
 * changes or {@link JOURNAL_BATCH_MS} after the first of them, whichever comes first; one without
 * (object storage) gets the whole inventory, at most once per {@link WHOLE_WRITE_INTERVAL_MS}. The
 * first write of a run is whole when the inventory file is missing or a journal left by a stopped
 * run was read; `fold()` at the end writes the whole inventory once, which drops the journal.
 *
 * What a kill can lose: `whenWritten()` tells when every change made so far is written, and apply
 * reports a step done only then, so a step reported done is in the state (the journal is written
 * to the page cache, which survives the kill of the process); a step finished but not yet reported
 * may be lost, and the next run finds its object again by natural key. `flush()` writes at once
 * and waits.
 */
import type { Inventory, InventoryEntry } from "../../model/inventory";
import type { StateBackend } from "../state/types";
import { INVENTORY_VERSION } from "../../model/inventory";

/** The least time between two whole writes of a backend without a journal (each is one upload of the inventory). */
export const WHOLE_WRITE_INTERVAL_MS = 2000;
/** The longest a change waits for the journal append of its batch. */
export const JOURNAL_BATCH_MS = 200;
/** A batch of this many changed entries is appended at once, without waiting for {@link JOURNAL_BATCH_MS}. */
export const JOURNAL_BATCH_RECORDS = 100;

export class InventoryWriter {
  readonly inventory: Inventory;
  /** Changes not yet written: the entry now at each address, `null` when removed. */
  private pending = new Map<string, InventoryEntry | null>();
  /** When the oldest of the pending changes was made (`performance.now()`). */
  private pendingSince = 0;
  /** Changes made so far, and how many of them are written. */
  private recorded = 0;
  private written = 0;
  /** Callers of `whenWritten()`, each waiting for the changes made up to `upTo`. */
  private waiters: { upTo: number; resolve: (written: boolean) => void }[] = [];
  private writing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A flush is waiting: write without waiting for the batch. */
  private urgent = false;
  private failure: unknown;
  /** The next write is of the whole inventory. */
  private wholeDue: boolean;
  /** Something changed in this run (the final fold is due). */
  private changedInRun = false;
  private lastWholeWrite = 0;

  constructor(
    private readonly backend: StateBackend,
    current: Inventory | undefined,
    project: { project: string; target: string },
    private readonly now: () => Date,
  ) {
    // Entries are replaced, never changed in place: a copy of the map is enough.
    this.inventory = current
      ? { ...current, objects: { ...current.objects } }
      : {
          version: INVENTORY_VERSION,
          project: project.project,
          target: project.target,
          updatedAt: now().toISOString(),
          objects: {},
        };
    this.wholeDue = !backend.journal || backend.journal.foldDue;
  }

  get(address: string): InventoryEntry | undefined {
    return this.inventory.objects[address];
  }

  set(address: string, entry: InventoryEntry): void {
    this.inventory.objects[address] = entry;
    this.changed(address, entry);
  }

  /**
   * Stops managing the object at `address`: its entry leaves the inventory and its kind and id go
   * to `forgotten`, so it is not reported as unmanaged either. Written whole: a journal holds
   * objects only.
   */
  forget(address: string, at: string): void {
    const entry = this.inventory.objects[address];
    if (!entry) return;
    this.inventory.forgotten = { ...this.inventory.forgotten, [address]: { kind: entry.kind, id: entry.id, at } };
    this.wholeDue = true;
    this.remove(address);
  }

  remove(address: string): void {
    if (!(address in this.inventory.objects)) return;
    delete this.inventory.objects[address];
    this.changed(address, null);
  }

  /**
   * Resolves to true once every change made so far is written (in its batch's turn: it does not
   * hurry the batch), or to false when a write failed first (the failure is thrown by `flush`).
   */
  whenWritten(): Promise<boolean> {
    if (this.failure) return Promise.resolve(false);
    if (this.written >= this.recorded) return Promise.resolve(true);
    return new Promise((resolve) => this.waiters.push({ upTo: this.recorded, resolve }));
  }

  /** Writes every change made so far at once and waits for it; throws if a write failed. */
  async flush(): Promise<void> {
    this.urgent = true;
    try {
      while (!this.failure && (this.writing || this.pending.size)) {
        if (!this.writing) this.startWrite();
        await this.writing;
      }
    } finally {
      this.urgent = false;
    }
    if (this.failure) throw this.failure;
  }

  /**
   * Ends the run's writes: everything is written, and the inventory is written whole when this run
   * changed it or a stopped run's journal was read (which drops the journal).
   */
  async fold(): Promise<void> {
    await this.flush();
    // Without a journal, the flush wrote the whole inventory already.
    if (!this.backend.journal || (!this.changedInRun && !this.backend.journal.foldDue)) return;
    await this.writeWhole();
    if (this.failure) throw this.failure;
  }

  private changed(address: string, entry: InventoryEntry | null): void {
    if (!this.pending.size) this.pendingSince = performance.now();
    this.pending.set(address, entry);
    this.recorded++;
    this.changedInRun = true;
    this.schedule();
  }

  /** Starts the next write now when it is due, else sets a timer for when it will be. */
  private schedule(): void {
    if (this.writing || this.failure || !this.pending.size) return;
    const wait = this.urgent ? 0 : this.untilDue();
    if (wait <= 0) return this.startWrite();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
  }

  /** Milliseconds until the pending changes are due to be written. */
  private untilDue(): number {
    const journal = this.backend.journal;
    // Without a journal, changes are batched: at most one whole write per interval.
    if (!journal) return this.lastWholeWrite + WHOLE_WRITE_INTERVAL_MS - performance.now();
    if (this.wholeDue || this.pending.size >= JOURNAL_BATCH_RECORDS) return 0;
    return this.pendingSince + JOURNAL_BATCH_MS - performance.now();
  }

  private async writeWhole(): Promise<void> {
    this.inventory.updatedAt = this.now().toISOString();
    this.lastWholeWrite = performance.now();
    // Serialized synchronously inside writeInventory before its first await: later changes cannot leak into this write.
    await this.backend.writeInventory(this.inventory);
    this.wholeDue = !this.backend.journal;
  }

  private startWrite(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const journal = this.backend.journal;
    // Every change made until now goes into this write (taken synchronously, below).
    const upTo = this.recorded;
    this.writing = (async () => {
      if (!journal || this.wholeDue) {
        this.pending.clear();
        await this.writeWhole();
        return;
      }
      const records = [...this.pending].map(([address, entry]) => ({ address, entry }));
      this.pending.clear();
      await journal.append(records);
    })()
      .then(
        () => {
          this.written = upTo;
        },
        (e) => {
          this.failure = e;
        },
      )
      .finally(() => {
        this.writing = undefined;
        this.release();
        this.schedule();
      });
  }

  /** Answers the waiters whose changes are written (all of them, with false, after a failure). */
  private release(): void {
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.failure) w.resolve(false);
      else if (w.upTo <= this.written) w.resolve(true);
      else still.push(w);
    }
    this.waiters = still;
  }
}
