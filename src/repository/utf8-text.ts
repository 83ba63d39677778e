/**
 * Where a file stops being UTF-8: the first byte that is not part of a valid UTF-8 sequence, as a
 * line and a column (in characters) an editor shows. Files are refused there rather than decoded
 * with replacement characters, which would deploy something other than what the file holds.
 */
import { isUtf8 } from "node:buffer";

export interface InvalidUtf8 {
  /** The offending byte. */
  byte: number;
  /** Its offset in the file. */
  offset: number;
  /** 1-based line and column (characters since the line start, plus one). */
  line: number;
  column: number;
}

/** The first invalid byte of `data`, or undefined when all of it is UTF-8. */
export function firstInvalidUtf8(data: Uint8Array): InvalidUtf8 | undefined {
  if (isUtf8(data)) return undefined;
  let line = 1;
  let column = 1;
  for (let i = 0; i < data.length; ) {
    const n = sequenceLength(data, i);
    if (n === 0) return { byte: data[i]!, offset: i, line, column };
    if (data[i] === 0x0a) {
      line++;
      column = 1;
    } else column++;
    i += n;
  }
  return undefined;
}

/** The length of the valid UTF-8 sequence starting at `i`, or 0 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
function sequenceLength(d: Uint8Array, i: number): number {
  const b = d[i]!;
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < d.length && d[i + k]! >= lo && d[i + k]! <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
