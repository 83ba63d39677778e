/**
 * Unified diffs of changed text fields (UDF code, helper modules, dashboard bodies, metadata and
 * cronjob arguments as pretty JSON), from the platform's value to the repository's, so a reviewer
 * sees which lines someone changed by hand. Pure; computed only for fields that changed, and
 * bounded per object ({@link DIFF_MAX_LINES} lines, then a note) so a report of many changed
 * objects stays small. Secret fields never get a diff.
 *
 * The diff itself comes from `diff` (jsdiff): Myers' algorithm with an edit-length bound, beyond
 * which the changed region is shown as one replaced block (the same lines, less minimal), so a
 * rewritten 20,000-line file costs milliseconds, not seconds.
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch } from "diff";
import type { FieldChange } from "../../kinds/kind";
import type { TextForm } from "../../kinds/reconcile-traits";
import { sortKeysDeep } from "../../canonical-json";
import { changedRegion, splitLines } from "./line-region";

/** Most diff lines shown per object (all its fields together); the rest is counted in a note. */
export const DIFF_MAX_LINES = 200;
/** Longest diff line kept; longer lines (minified JSON, a one-line dashboard) are cut. */
export const DIFF_MAX_LINE_CHARS = 1000;
/** Lines of unchanged context around each change. */
const CONTEXT = 3;
/**
 * Edit distance beyond which Myers' search stops (its cost grows with the square of it) and the
 * changed region is shown as one block: such a diff has more changed lines than are shown anyway.
 */
const MAX_EDIT_LENGTH = DIFF_MAX_LINES;

/** Where the full values are when a diff was cut: every plan and report has a JSON form. */
const SEE = "see from and to in the --json output";

/** The last line of a diff cut at the bound: `… 57 more lines; see …`. */
export const isCutNote = (line: string): boolean => line.startsWith("… ");

/**
 * `value` as the text a diff compares: a string as is, JSON pretty-printed with sorted keys, or
 * the kind's own rendering; `undefined` when this value has no text form (no diff is made).
 */
export function textOf(value: unknown, form: TextForm): string | undefined {
  if (typeof form === "function") return form(value);
  if (value === undefined || value === null) return "";
  if (form === "json") return `${JSON.stringify(sortKeysDeep(value), null, 2)}\n`;
  return typeof value === "string" ? value : undefined;
}

/** The form of `c`'s values: declared by the kind, else text for any multi-line string; none for secrets. */
function formOf(c: FieldChange, forms: Readonly<Record<string, TextForm>> | undefined): TextForm | undefined {
  if (c.secret) return undefined;
  const declared = forms?.[c.field];
  if (declared) return declared;
  const multiline = (v: unknown) => typeof v === "string" && v.includes("\n");
  return multiline(c.from) || multiline(c.to) ? "text" : undefined;
}

const sameIgnoringLineEndings = (a: string, b: string) => a.replace(/\r\n/g, "\n") === b.replace(/\r\n/g, "\n");

/**
 * The unified diff of one field, as lines: `--- <field> (platform)`, `+++ <field> (repository)`,
 * then hunks. Empty when the texts are equal but for line endings (the field line says so).
 */
export function unifiedDiffLines(field: string, from: string, to: string): string[] {
  if (sameIgnoringLineEndings(from, to)) return [];
  const names = [`${field} (platform)`, `${field} (repository)`] as const;
  const patch =
    structuredPatch(names[0], names[1], from, to, undefined, undefined, {
      context: CONTEXT,
      maxEditLength: MAX_EDIT_LENGTH,
    }) ?? blockPatch(names, from, to);
  const lines = formatPatch(patch, FILE_HEADERS_ONLY).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.length > DIFF_MAX_LINE_CHARS ? `${l.slice(0, DIFF_MAX_LINE_CHARS)}…` : l));
}

/** One hunk replacing the changed region (between the common first and last lines) as a block. */
function blockPatch(names: readonly [string, string], from: string, to: string): StructuredPatch {
  const a = splitLines(from);
  const b = splitLines(to);
  const { start, endA, endB } = changedRegion(a, b);
  const first = Math.max(0, start - CONTEXT);
  const lastA = Math.min(a.length, endA + CONTEXT);
  const lastB = Math.min(b.length, endB + CONTEXT);
  const lines = [
    ...a.slice(first, start).map((l) => ` ${l}`),
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
    ...a.slice(endA, lastA).map((l) => ` ${l}`),
  ];
  const hunk = { oldStart: first + 1, oldLines: lastA - first, newStart: first + 1, newLines: lastB - first, lines };
  return { oldFileName: names[0], newFileName: names[1], oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}

/**
 * `fields` with a `diff` on each changed text field, at most `maxLines` lines for all of them
 * together: past the bound, a diff ends with `… N more lines; see …`, and a field with no room
 * left gets that note alone.
 */
export function withTextDiffs(
  fields: FieldChange[],
  forms: Readonly<Record<string, TextForm>> | undefined,
  maxLines = DIFF_MAX_LINES,
): FieldChange[] {
  let room = maxLines;
  return fields.map((c) => {
    const form = formOf(c, forms);
    if (!form) return c;
    const from = textOf(c.from, form);
    const to = textOf(c.to, form);
    if (from === undefined || to === undefined) return c;
    const lines = unifiedDiffLines(c.field, from, to);
    if (lines.length === 0) return c;
    const shown = lines.slice(0, room);
    room -= shown.length;
    const more = lines.length - shown.length;
    if (more > 0) shown.push(`… ${more.toLocaleString("en-US")} more line${more === 1 ? "" : "s"}; ${SEE}`);
    return { ...c, diff: shown.join("\n") };
  });
}
