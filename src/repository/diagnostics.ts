/**
 * Collects every validation error of a load, each with its `file:line:column`, the path inside the
 * document and a message saying what was found and what was expected. Nothing stops at the first.
 */
import type { LoadError } from "../model/desired";

export class Diagnostics {
  readonly errors: LoadError[] = [];

  add(error: LoadError): void {
    this.errors.push(error);
  }

  /** An error about a whole file or folder (missing, misnamed): reported at 1:1. */
  atFile(file: string, message: string, path = ""): void {
    this.add({ file, line: 1, column: 1, path, message });
  }

  get count(): number {
    return this.errors.length;
  }
}

/** How a found value reads in a message: `"private"`, `12`, `true`, `a list`, `a mapping`, `an empty value`. */
export function describeFound(value: unknown): string {
  if (value === null || value === undefined) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

/** A path as a message quotes it (JSON): its first 200 characters when longer, so a 1 MiB value makes no 1 MiB message. */
export function quotedPath(p: string): string {
  return JSON.stringify(p.length > 200 ? `${p.slice(0, 197)}...` : p);
}

/** `"a", "b" or "c"`. */
export function listAlternatives(values: readonly string[], quote = true): string {
  const shown = values.map((v) => (quote ? JSON.stringify(v) : v));
  return shown.length <= 1 ? shown.join("") : `${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
}

/**
 * The closest candidate within a small edit distance, for "did you mean …?". The distance allowed
 * grows with the part of the word that differs: a prefix of whole segments (`udf.reports/`) the
 * word shares with the candidate is not counted, so `udf.reports/boom` is no near miss of
 * `udf.reports/rowcount`. `wholeWord` counts the whole word (as rename detection does).
 */
export function closest(
  word: string,
  candidates: readonly string[],
  opts: { wholeWord?: boolean } = {},
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  let bestLimit = 0;
  for (const c of candidates) {
    const [w, k] = [word.toLowerCase(), c.toLowerCase()];
    const d = editDistance(w, k);
    const own = opts.wholeWord ? w.length : w.length - sharedSegments(w, k);
    if (d < bestDistance) [best, bestDistance, bestLimit] = [c, d, Math.max(2, Math.floor(own / 3))];
  }
  return bestDistance <= bestLimit ? best : undefined;
}

/** Length of the prefix of whole segments (ending in "." or "/") that `a` and `b` share. */
function sharedSegments(a: string, b: string): number {
  let end = 0;
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) if (a[i] === "." || a[i] === "/") end = i + 1;
  return end;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** `; did you mean "x"?` or "". */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c ? `; did you mean ${c}?` : "";
}
