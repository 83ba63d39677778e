/** Lines of a text and the region where two texts differ: shared by the change counts and the diffs. */

/** The lines of `s`: a final line break ends the last line, it does not start another. */
export function splitLines(s: string, lineBreak: string | RegExp = "\n"): string[] {
  const lines = s.split(lineBreak);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Where `a` and `b` differ: `a[start..endA)` was replaced by `b[start..endB)`, the lines before
 * `start` and from `endA` / `endB` on being the same in both.
 */
export function changedRegion(
  a: readonly string[],
  b: readonly string[],
): { start: number; endA: number; endB: number } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return { start, endA, endB };
}
