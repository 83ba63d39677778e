/** ANSI colours of the terminal renderers (plan, drift): one palette, applied only when asked for, and the only escape sequences output keeps raw. */
import type { DiffLineStyle } from "./diff-blocks";
import { terminalText } from "./terminal-text";

const ANSI = {
  green: "\x1b[32m",
  yellow: "\x1b[33m",
  red: "\x1b[31m",
  cyan: "\x1b[36m",
  bold: "\x1b[1m",
  dim: "\x1b[2m",
  reset: "\x1b[0m",
} as const;

export type Style = keyof typeof ANSI;

export type Paint = (style: Style, s: string) => string;

/**
 * Wraps text in a style when `color`, else leaves it as it is. The text's own control characters
 * are shown as escapes: a colour code in a name or a diff line stays text.
 */
export function painter(color: boolean | undefined): Paint {
  return color ? (style, s) => `${ANSI[style]}${terminalText(s)}${ANSI.reset}` : (_style, s) => s;
}

/** How each line of a diff is coloured: additions green, removals red, hunk headers cyan. */
export const DIFF_COLORS: Record<DiffLineStyle, Style | undefined> = {
  header: "bold",
  hunk: "cyan",
  added: "green",
  removed: "red",
  note: "dim",
  context: undefined,
};

/** svc-iac's own colours, as its painter writes them. */
const OWN_COLOURS = new RegExp(
  Object.values(ANSI)
    .map((q) => q.replace(/[[\]]/g, "\\$&"))
    .join("|"),
  "g",
);

/**
 * Text bound for a terminal, a pipe or a file, as a whole: every control character shown as an
 * escape ({@link terminalText}), except svc-iac's own colour sequences. Those are a fixed palette
 * of colour, bold, dim and reset codes: none moves the cursor, erases, hides text or sets a title.
 * @example
 * terminalOutput("\x1b[32m+ udf.a/x\x1b[0m\x1b]0;t\x07") // "\x1b[32m+ udf.a/x\x1b[0m\\x1b]0;t\\x07"
 */
export function terminalOutput(s: string): string {
  let out = "";
  let from = 0;
  for (const m of s.matchAll(OWN_COLOURS)) {
    out += terminalText(s.slice(from, m.index)) + m[0];
    from = m.index + m[0].length;
  }
  return from === 0 ? terminalText(s) : out + terminalText(s.slice(from));
}
