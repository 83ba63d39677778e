/**
 * Untrusted text (a UDF's error or output, a folder or file name, a name from the platform) as a
 * terminal or a CI log may show it: every control character other than tab and the line feed, and
 * the Unicode line separators, shown as an escape (`\x1b`, `\r`, `\u2028`), so no escape sequence
 * can set the window title, clear the screen or forge a line. The same escapes the GitHub Actions
 * log guard uses (`src/github/command-guard.ts`).
 */

/** Control characters, other than tab and `\n`, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `\r`, `\x1b`, `\u2028`: the visible form of a control character. */
function visible(c: string): string {
  if (c === "\r") return "\\r";
  if (c === "\n") return "\\n";
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
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
