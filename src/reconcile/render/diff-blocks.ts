/**
 * The field diffs of a plan or drift report (see `text-diff.ts`) as a terminal shows them, line
 * by line with a style for each, and as Markdown `diff` blocks. Control characters in the text
 * become `?`, and a Markdown fence is longer than any run of backticks in the diff.
 */
import type { FieldChange } from "../../kinds/kind";
import { fence } from "./markdown-fit";
import { isCutNote } from "./text-diff";
import { cleanText } from "./values";

/** How a diff line is shown: additions green, removals red, hunk headers and file headers apart. */
export type DiffLineStyle = "header" | "hunk" | "added" | "removed" | "note" | "context";

export function diffLineStyle(line: string): DiffLineStyle {
  if (line.startsWith("--- ") || line.startsWith("+++ ")) return "header";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "added";
  if (line.startsWith("-")) return "removed";
  if (isCutNote(line) || line.startsWith("\\")) return "note";
  return "context";
}

/** The lines of every diff in `fields`, in field order, each with its style. */
export function diffLines(fields: readonly FieldChange[]): { line: string; style: DiffLineStyle }[] {
  return fields.flatMap((f) =>
    f.diff && !f.secret
      ? cleanText(f.diff)
          .split("\n")
          .map((line) => ({ line, style: diffLineStyle(line) }))
      : [],
  );
}

/** The diffs in `fields` as fenced `diff` blocks, one per field; "" when there are none. */
export function diffMarkdown(fields: readonly FieldChange[]): string {
  return fields
    .filter((f) => f.diff && !f.secret)
    .map((f) => fence(cleanText(f.diff!), "diff"))
    .join("\n");
}
