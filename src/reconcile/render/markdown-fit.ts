/**
 * Markdown that always fits a size limit (GitHub rejects comments and job summaries over
 * 65,536 characters). A document is a title, a head (summary table), sections of items and a
 * tail; each item has a full form (details with field changes and diffs), the same without its
 * diffs, and a brief one-liner.
 *
 * Tiers, tried in order:
 * 1. everything in full;
 * 2. every item without its diffs, then diffs added back in document order while they fit;
 * 3. every item brief, then items upgraded to full without diffs in document order while they fit;
 * 4. title, head and tail only (the counts);
 * and whenever something was cut, a note saying where the full document is.
 */
import { code, htmlText } from "./markdown-escape";

/** GitHub's limit is 65,536; a little room is left for what callers wrap around the document. */
export const DEFAULT_MAX_CHARS = 65_000;

export interface FitItem {
  /** A one-line Markdown list item, ending with `\n`. */
  brief: string;
  /** The item with its details, ending with `\n` (equal to `brief` when there is nothing more). */
  full: string;
  /** `full` without its diffs, the first thing left out when the document is too long. @default full */
  withoutDiffs?: string;
}

export interface FitSection {
  /** Heading and any text before the items, ending with a blank line. */
  heading: string;
  items: FitItem[];
}

export interface FitDoc {
  /** First line(s), kept even when nothing else fits. */
  title: string;
  /** Summary table and anything that must never be cut short of the limit itself. */
  head: string;
  sections: FitSection[];
  tail: string;
  /**
   * A block shown after the head (the plan's diagram), kept whole or left out: kept when the
   * title, head, figure, note and tail fit together; the items are then cut around it.
   */
  figure?: string;
}

/** Renders `doc` within `maxChars`, cutting by tiers; `note` is added when anything was cut. */
export function fitMarkdown(doc: FitDoc, maxChars: number, note: string): string {
  if (doc.figure !== undefined) {
    const { figure, ...rest } = doc;
    const fits = doc.title.length + doc.head.length + figure.length + note.length + 4 + doc.tail.length <= maxChars;
    return fitMarkdown(fits ? { ...rest, head: doc.head + figure } : rest, maxChars, note);
  }
  const full = assemble(doc, (item) => item.full, "");
  if (full.length <= maxChars) return full;

  const noteBlock = `> ${note}\n\n`;
  const fixed = doc.title.length + doc.head.length + noteBlock.length + doc.tail.length;
  const headings = doc.sections.reduce((n, s) => n + (s.items.length > 0 ? s.heading.length + 1 : 0), 0);
  const items = doc.sections.flatMap((s) => s.items);
  const room = (form: Form) => maxChars - fixed - headings - items.reduce((n, i) => n + form(i).length, 0);
  const withoutDiffs: Form = (i) => i.withoutDiffs ?? i.full;
  const brief: Form = (i) => i.brief;
  if (room(withoutDiffs) >= 0) return upgrade(doc, items, withoutDiffs, (i) => i.full, room(withoutDiffs), noteBlock);
  if (room(brief) >= 0) return upgrade(doc, items, brief, withoutDiffs, room(brief), noteBlock);

  const countsOnly = doc.title + doc.head + noteBlock + doc.tail;
  if (countsOnly.length <= maxChars) return countsOnly;
  return clamp(doc.title + noteBlock + doc.head + doc.tail, maxChars);
}

type Form = (item: FitItem) => string;

/** Every item in form `base`, upgraded to form `better` in document order while `room` lasts. */
function upgrade(doc: FitDoc, items: FitItem[], base: Form, better: Form, room: number, noteBlock: string): string {
  const upgraded = new Set<FitItem>();
  for (const item of items) {
    const extra = better(item).length - base(item).length;
    if (extra > room) break;
    room -= extra;
    upgraded.add(item);
  }
  return assemble(doc, (item) => (upgraded.has(item) ? better(item) : base(item)), noteBlock);
}

function assemble(doc: FitDoc, pick: (item: FitItem) => string, noteBlock: string): string {
  const parts = [doc.title, doc.head, noteBlock];
  for (const s of doc.sections) {
    if (s.items.length === 0) continue;
    parts.push(s.heading);
    for (const item of s.items) parts.push(pick(item));
    parts.push("\n");
  }
  parts.push(doc.tail);
  return parts.join("");
}

/** Cuts at the last line break that fits, or mid-line when the limit is smaller than a line. */
function clamp(s: string, maxChars: number): string {
  if (s.length <= maxChars) return s;
  const cut = s.lastIndexOf("\n", maxChars - 1);
  let out = cut > 0 ? s.slice(0, cut + 1) : s.slice(0, Math.max(0, maxChars));
  // Never leave half of a surrogate pair behind.
  if (/[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
  return out;
}

/** A code fence longer than any run of backticks in `body`, so values cannot end it early. */
export function fence(body: string, info = "text"): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return `${ticks}${info}\n${body}\n${ticks}\n`;
}

/** Text safe inside HTML (`<summary>`) and table cells: see {@link htmlText}. */
export const escapeHtml = htmlText;

export { code };
