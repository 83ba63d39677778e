/**
 * The inventory during apply: changed in memory after every step and written to the state
 * backend in the background (at most one write in flight, coalescing changes), so a process killed
 * mid-apply loses at most the last few records, which the next run finds again by natural key.
 * `flush()` waits until everything recorded so far is written.
 */
import type { Inventory, InventoryEntry, StateBackend } from "./state/types";
import { INVENTORY_VERSION } from "./state/types";

export class InventoryWriter {
  readonly inventory: Inventory;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly backend: StateBackend,
    current: Inventory | undefined,
    project: { project: string; target: string },
    private readonly now: () => Date,
  ) {
    this.inventory = current
      ? structuredClone(current)
      : { version: INVENTORY_VERSION, project: project.project, target: project.target, updatedAt: now().toISOString(), objects: {} };
  }

  get(address: string): InventoryEntry | undefined {
    return this.inventory.objects[address];
  }

  set(address: string, entry: InventoryEntry): void {
    this.inventory.objects[address] = entry;
    this.changed();
  }

  remove(address: string): void {
    if (!(address in this.inventory.objects)) return;
    delete this.inventory.objects[address];
    this.changed();
  }

  /** Waits until every change made so far is written; throws if a write failed. */
  async flush(): Promise<void> {
    while (this.writing || this.dirty) {
      if (!this.writing) this.startWrite();
      await this.writing;
    }
    if (this.failure) throw this.failure;
  }

  private changed(): void {
    this.dirty = true;
    if (!this.writing) this.startWrite();
  }

  private startWrite(): void {
    this.dirty = false;
    this.inventory.updatedAt = this.now().toISOString();
    const snapshot = structuredClone(this.inventory);
    this.writing = this.backend
      .writeInventory(snapshot)
      .catch((e) => {
        this.failure = e;
      })
      .finally(() => {
        this.writing = undefined;
        if (this.dirty && !this.failure) this.startWrite();
      });
  }
}
