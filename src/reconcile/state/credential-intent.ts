/**
 * The inventory's record of credential creates whose token nobody has received yet (the kind's
 * `credential` trait). A key is added before each create is sent, never replaced, and the record is
 * cleared only once the new token has been published; so after any lost answer, refused retry or
 * failed publish, the next run knows every account made under those keys is an orphan whose token
 * is unknown to everyone, and deletes it.
 */
import type { InventoryEntry } from "../../model/inventory";

/** Every key a create was sent (or about to be sent) under whose token was not delivered. */
export function intentKeys(entry: InventoryEntry | undefined): string[] {
  const intent = entry?.intent;
  if (!intent) return [];
  return [...new Set([...(intent.keys ?? []), intent.key])].sort();
}

/** `entry` (or a new id-less entry) with `key` added to its intent, as the latest attempt. */
export function withIntent(
  entry: InventoryEntry | undefined,
  kind: InventoryEntry["kind"],
  key: string,
  at: string,
): InventoryEntry {
  const base = entry ?? { kind, id: "", key, createdAt: at, appliedAt: at };
  const keys = [...new Set([...intentKeys(entry), key])].sort();
  return { ...base, intent: { key, at: entry?.intent?.at ?? at, keys } };
}

/**
 * `entry` with `key` taken out of its intent (nothing was sent under it); the intent goes when
 * empty, and so does an entry that only recorded that attempt (no object of its own, nothing
 * left to retire): the result is then undefined.
 */
export function withoutIntentKey(entry: InventoryEntry, key: string): InventoryEntry | undefined {
  const keys = intentKeys(entry).filter((k) => k !== key);
  const { intent, ...rest } = entry;
  if (keys.length) return { ...rest, intent: { key: keys.at(-1)!, at: intent!.at, keys } };
  return rest.id || hasRetired(rest) ? rest : undefined;
}

/** The entry lists replaced or lost objects still to delete (`kept.retire`). */
export function hasRetired(entry: InventoryEntry): boolean {
  return Array.isArray(entry.kept?.retire) && entry.kept.retire.length > 0;
}

/** `entry` with no intent: every token created under it was delivered, or its object is listed for retirement. */
export function withoutIntent(entry: InventoryEntry): InventoryEntry {
  const { intent: _done, ...rest } = entry;
  return rest;
}
