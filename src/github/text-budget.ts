/**
 * Fitting rendered Markdown into GitHub's hard limits: 65,536 characters for a comment or issue
 * body, 1 MiB (bytes) for a job summary step. The renderers cut in tiers by characters; these
 * helpers retry with a smaller budget when bytes are what counts, and cut as a last resort so the
 * limit holds whatever a renderer returns.
 */

/** How a limit counts: characters (UTF-16 code units, never fewer than GitHub counts) or UTF-8 bytes. */
export type Measure = (text: string) => number;

export const countChars: Measure = (text) => text.length;
export const countBytes: Measure = (text) => Buffer.byteLength(text, "utf8");

/** Rendered text that fits, and whether it had to be cut here (beyond the renderer's own tiers). */
export interface Fitted {
  text: string;
  cut: boolean;
}

/**
 * Calls `render(maxChars)` with a shrinking budget until the result measures at most `limit`;
 * after three tries it cuts the last result with {@link cutTo} and appends `cutNote`.
 */
export function renderWithin(
  render: (maxChars: number) => string,
  limit: number,
  measure: Measure,
  cutNote: string,
): Fitted {
  let budget = limit;
  let text = "";
  for (let attempt = 0; attempt < 3 && budget > 0; attempt++) {
    text = render(budget);
    const size = measure(text);
    if (size <= limit) return { text, cut: false };
    // Scale by how far over it came, with a margin so the next try lands under.
    budget = Math.floor(((budget * limit) / size) * 0.95);
  }
  return { text: cutTo(text, limit, measure, cutNote), cut: true };
}

/**
 * Cuts `text` so that it plus `note` measures at most `limit`, at the last line break that fits
 * (a Markdown table row or list item is not left half-written), never inside a UTF-16 pair.
 */
export function cutTo(text: string, limit: number, measure: Measure, note: string): string {
  if (measure(text) <= limit) return text;
  const room = limit - measure(note) - 1;
  if (room <= 0) return note.slice(0, Math.max(0, limit));
  // Binary search the longest prefix that fits: measure is monotonic in the prefix length.
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  let end = lo;
  // A line break right at the cut keeps the whole line before it.
  let searchFrom = lo;
  while (end > 0) {
    const lineEnd = text.lastIndexOf("\n", searchFrom);
    if (lineEnd > 0) end = lineEnd;
    else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    const kept = text.slice(0, end);
    const cut = `${kept}${closers(kept)}\n${note}`;
    if (measure(cut) <= limit) return cut;
    // The closing tags did not fit: give up one more line.
    if (lineEnd <= 0) break;
    searchFrom = end - 1;
  }
  return note.slice(0, Math.max(0, limit));
}

/**
 * What closes the blocks left open at the cut: a code fence and `<details>` elements. Without it
 * the note after the cut would render inside a fence or a collapsed section.
 */
function closers(kept: string): string {
  let out = "";
  const fences = kept.split("\n").filter((line) => /^\s*```/.test(line)).length;
  if (fences % 2 === 1) out += "\n```";
  const open = (kept.match(/<details[\s>]/g) ?? []).length - (kept.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < open; i++) out += "\n</details>";
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
