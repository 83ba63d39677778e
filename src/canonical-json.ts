/**
 * JSON with object keys sorted at every level (arrays keep their order; `undefined` properties are
 * dropped, as `JSON.stringify` does): equal values always give equal text, whatever their key
 * order. What fingerprints, body comparisons, state files and rendered documents are built on.
 */

/** A copy of `value` whose objects have their keys in sorted order. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = sortKeysDeep(v);
  }
  return out;
}

/** Compact JSON text with sorted keys. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}
