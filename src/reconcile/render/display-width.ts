/**
 * How many terminal columns text takes: East Asian wide and fullwidth characters and emoji take
 * two, combining marks and zero-width characters none, everything else one. Control characters
 * are expected to be shown as escapes before (see `cleanText`); they count one each.
 */

const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18aff],
  [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f2ff],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

const ZERO: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x0e47, 0x0e4e],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
  [0xfeff, 0xfeff],
  [0xe0100, 0xe01ef],
];

const within = (ranges: readonly (readonly [number, number])[], cp: number) =>
  ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

/** Columns one character (code point) takes. */
export function charWidth(cp: number): 0 | 1 | 2 {
  if (cp < 0x300) return 1;
  if (within(ZERO, cp)) return 0;
  return within(WIDE, cp) ? 2 : 1;
}

/** Columns `s` takes. */
export function displayWidth(s: string): number {
  let n = 0;
  for (const ch of s) n += charWidth(ch.codePointAt(0)!);
  return n;
}

/** The longest start of `s` that takes at most `columns`. */
export function headToWidth(s: string, columns: number): string {
  let n = 0;
  let out = "";
  for (const ch of s) {
    const w = charWidth(ch.codePointAt(0)!);
    if (n + w > columns) break;
    n += w;
    out += ch;
  }
  return out;
}

/** The longest end of `s` that takes at most `columns`. */
export function tailToWidth(s: string, columns: number): string {
  const chars = [...s];
  let n = 0;
  let i = chars.length;
  while (i > 0) {
    const w = charWidth(chars[i - 1]!.codePointAt(0)!);
    if (n + w > columns) break;
    n += w;
    i--;
  }
  return chars.slice(i).join("");
}

/**
 * `s` in at most `columns`, shortened in the middle when it is longer: the end (the last segment
 * after `/` or `.`, the name that tells objects apart) is kept whole when it fits in two thirds.
 * @example middleEllipsis("udf.sales_reports_2026/u00042", 20) === "udf.sales_re…/u00042"
 */
export function middleEllipsis(s: string, columns: number): string {
  if (displayWidth(s) <= columns) return s;
  if (columns <= 1) return columns === 1 ? "…" : "";
  const room = columns - 1;
  const last = s.slice(Math.max(s.lastIndexOf("/"), s.lastIndexOf(".")));
  const tailWidth = Math.min(
    displayWidth(last) <= Math.ceil((room * 2) / 3) ? displayWidth(last) : Math.ceil((room * 2) / 3),
    room,
  );
  const tail = tailToWidth(s, tailWidth);
  return `${headToWidth(s, room - displayWidth(tail))}…${tail}`;
}
