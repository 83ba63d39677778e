/**
 * The largest request bodies the platform accepts. The spec names 413 for an oversized canvas
 * archive but no number for JSON bodies; this is the limit the emulator enforces (answering 413
 * above it), and the one `validate` and `plan` check every body against before apply sends any,
 * so a body apply would have refused half-way through is refused before the first write.
 */

/** Largest JSON request body, in bytes (32 MiB): a UDF's `udf_body` with its code and helper modules, a canvas with its dashboard. */
export const JSON_BODY_MAX_BYTES = 32 * 1024 * 1024;

/** Room kept for the request's other fields (slug, ids, flags) around the large one. */
export const REQUEST_OVERHEAD_BYTES = 4 * 1024;

/** `33,554,432 bytes (32 MiB)`. */
export function describeBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${bytes.toLocaleString("en-US")} bytes${mib >= 1 ? ` (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)` : ""}`;
}

/**
 * The reason a JSON request body of `bytes` is too large, or undefined when it fits.
 * @example
 * oversizeReason("the UDF body", 52_428_900) // "the UDF body is 52,428,900 bytes (50.0 MiB) as sent; expected at most …"
 */
export function oversizeReason(what: string, bytes: number): string | undefined {
  const room = JSON_BODY_MAX_BYTES - REQUEST_OVERHEAD_BYTES;
  if (bytes <= room) return undefined;
  return `${what} is ${describeBytes(bytes)} as sent; expected at most ${describeBytes(room)}: the platform refuses a JSON request body over ${describeBytes(JSON_BODY_MAX_BYTES)} (413), so apply would fail there.`;
}
