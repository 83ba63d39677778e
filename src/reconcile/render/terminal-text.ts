/**
 * Untrusted text (a UDF's error or output, a folder or file name, a name from the platform) as a
 * terminal or a CI log may show it: every control character other than tab and the line feed, and
 * the Unicode line separators and bidirectional overrides, shown as an escape (`\x1b`, `\r`,
 * `\u2028`, `\u202e`), so no escape sequence can set the window title, clear the screen or forge a
 * line, and no text reads in another order than it is written. The same escapes the GitHub Actions
 * log guard uses (`src/github/command-guard.ts`).
 */

import { formatLoadError, type LoadError } from "../../model/desired";

/**
 * Control characters (C0 other than tab and `\n`, DEL, C1), the Unicode line and paragraph
 * separators, and the bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069).
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `\r`, `\x1b`, `\u0085`, `\u2028`: the visible form of a control character. DEL and C1 take the
 * `\u` form, so a JSON document (which holds them raw) stays valid JSON with the same strings.
 */
function visible(c: string): string {
  if (c === "\r") return "\\r";
  if (c === "\n") return "\\n";
  const n = c.charCodeAt(0);
  return n < 0x7f ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
}

/**
 * `s` with its control characters shown as escapes; its `\n` line breaks kept.
 * @example
 * terminalText("boom\x1b]0;owned\x07\nline 2") // "boom\\x1b]0;owned\\x07\nline 2"
 */
export function terminalText(s: string): string {
  return s.replace(CONTROL, visible);
}

/**
 * `s` on one line: line breaks and every control character shown as escapes, so a name cannot
 * start a line of its own.
 * @example
 * terminalLine("evil\n  p01  domains/p01") // "evil\\n  p01  domains/p01"
 */
export function terminalLine(s: string): string {
  return s.replace(/\n/g, "\\n").replace(CONTROL, visible);
}

/**
 * `file:line:column: message` of a repository error on one line: a file name or a value holding a
 * line break cannot forge another error line.
 */
export const terminalLoadError = (e: LoadError): string => terminalLine(formatLoadError(e));
