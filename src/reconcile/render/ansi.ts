/** ANSI colours of the terminal renderers (plan, drift): one palette, applied only when asked for. */
import type { DiffLineStyle } from "./diff-blocks";

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

/** Wraps text in a style when `color`, else leaves it as it is. */
export function painter(color: boolean | undefined): Paint {
  return color ? (style, s) => `${ANSI[style]}${s}${ANSI.reset}` : (_style, s) => s;
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
