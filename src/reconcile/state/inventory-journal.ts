/**
 * The text of the inventory's journal (`inventory.journal` beside `inventory.json`): one JSON
 * record per line, `{"address": "...", "entry": {...}}` for an entry set, `"entry": null` for one
 * removed, appended in the order the changes were made (see {@link InventoryJournal}).
 */
import { StateFileError } from "./lock-errors";
import { InventoryEntrySchema, describeIssues } from "./inventory-file";
import type { Inventory } from "../../model/inventory";
import type { JournalRecord } from "./types";

/** The lines of `records`, each ending in a newline. */
export function journalText(records: readonly JournalRecord[]): string {
  let out = "";
  for (const r of records) out += `${JSON.stringify({ address: r.address, entry: r.entry })}\n`;
  return out;
}

/** Reads one line; `undefined` when it is not a journal record. */
function parseLine(line: string): { record?: JournalRecord; problem?: string } {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch (e) {
    return { problem: `not JSON (${(e as Error).message})` };
  }
  const o = (data ?? {}) as { address?: unknown; entry?: unknown };
  if (typeof o.address !== "string" || !o.address) return { problem: "no address" };
  if (o.entry === null) return { record: { address: o.address, entry: null } };
  const entry = InventoryEntrySchema.safeParse(o.entry);
  if (!entry.success) return { problem: describeIssues(entry.error) };
  return { record: { address: o.address, entry: entry.data } };
}

/**
 * Applies the journal `text` to `inventory` (changed in place) and returns how many records it
 * held. A last line without its newline that does not parse is a write cut short by a kill: it is
 * ignored. Any other bad line stops the run: the journal is not guessed at.
 * @throws StateFileError naming the file and line.
 */
export function foldJournal(inventory: Inventory, text: string, file: string): number {
  const lines = text.split("\n");
  let records = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    const { record, problem } = parseLine(line);
    if (!record) {
      if (i === lines.length - 1) continue; // torn last record
      throw new StateFileError(
        file,
        `Inventory journal ${file} line ${i + 1} is not a journal record: ${problem}. Restore the state folder from a backup; svc-iac will not guess what it managed.`,
      );
    }
    if (record.entry) inventory.objects[record.address] = record.entry;
    else delete inventory.objects[record.address];
    records++;
  }
  return records;
}
