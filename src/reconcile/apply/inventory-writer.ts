/**
 * The inventory during apply: changed in memory after every step and written to the state
 * backend in the background (at most one write in flight, coalescing changes), so a process killed
 * mid-apply loses at most the last few records, which the next run finds again by natural key.
 *
 * A write costs what changed, not the whole inventory: a backend with a journal (local folders)
 * gets the changed entries appended; one without (object storage) gets the whole inventory, at
 * most once per {@link WHOLE_WRITE_INTERVAL_MS}. The first write of a run is whole when the
 * inventory file is missing or a journal left by a stopped run was read; `fold()` at the end
 * writes the whole inventory once, which drops the journal. `flush()` waits until everything
 * recorded so far is written.
 */
import type { Inventory, InventoryEntry } from "../../model/inventory";
import type { StateBackend } from "../state/types";
import { INVENTORY_VERSION } from "../../model/inventory";

/** The least time between two whole writes of a backend without a journal (each is one upload of the inventory). */
export const WHOLE_WRITE_INTERVAL_MS = 2000;

export class InventoryWriter {
  readonly inventory: Inventory;
  /** Changes not yet written: the entry now at each address, `null` when removed. */
  private pending = new Map<string, InventoryEntry | null>();
  private writing: Promise<void> | undefined;
  private failure: unknown;
  /** The next write is of the whole inventory. */
  private wholeDue: boolean;
  /** Something changed in this run (the final fold is due). */
  private changedInRun = false;
  private lastWholeWrite = 0;
  /** Ends the wait of a batched whole write at once (a flush does not wait for the batch). */
  private hurry: (() => void) | undefined;

  constructor(
    private readonly backend: StateBackend,
    current: Inventory | undefined,
    project: { project: string; target: string },
    private readonly now: () => Date,
  ) {
    // Entries are replaced, never changed in place: a copy of the map is enough.
    this.inventory = current
      ? { ...current, objects: { ...current.objects } }
      : { version: INVENTORY_VERSION, project: project.project, target: project.target, updatedAt: now().toISOString(), objects: {} };
    this.wholeDue = !backend.journal || backend.journal.foldDue;
  }

  get(address: string): InventoryEntry | undefined {
    return this.inventory.objects[address];
  }

  set(address: string, entry: InventoryEntry): void {
    this.inventory.objects[address] = entry;
    this.changed(address, entry);
  }

  remove(address: string): void {
    if (!(address in this.inventory.objects)) return;
    delete this.inventory.objects[address];
    this.changed(address, null);
  }

  /** Waits until every change made so far is written; throws if a write failed. */
  async flush(): Promise<void> {
    this.hurry?.();
    while (this.writing || this.pending.size) {
      if (!this.writing) this.startWrite(true);
      await this.writing;
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
    this.pending.set(address, entry);
    this.changedInRun = true;
    if (!this.writing) this.startWrite(false);
  }

  private async writeWhole(): Promise<void> {
    this.inventory.updatedAt = this.now().toISOString();
    this.lastWholeWrite = performance.now();
    // Serialized synchronously inside writeInventory before its first await: later changes cannot leak into this write.
    await this.backend.writeInventory(this.inventory);
    this.wholeDue = !this.backend.journal;
  }

  private startWrite(urgent: boolean): void {
    const journal = this.backend.journal;
    this.writing = (async () => {
      if (!journal || this.wholeDue) {
        // Without a journal, changes are batched: at most one whole write per interval, unless waited for.
        const wait = journal || urgent ? 0 : this.lastWholeWrite + WHOLE_WRITE_INTERVAL_MS - performance.now();
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            this.hurry = () => (clearTimeout(timer), resolve());
          });
          this.hurry = undefined;
        }
        this.pending.clear();
        await this.writeWhole();
        return;
      }
      const records = [...this.pending].map(([address, entry]) => ({ address, entry }));
      this.pending.clear();
      await journal.append(records);
    })()
      .catch((e) => {
        this.failure = e;
      })
      .finally(() => {
        this.writing = undefined;
        if (this.pending.size && !this.failure) this.startWrite(false);
      });
  }
}
