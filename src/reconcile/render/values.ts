/**
 * How field values look in plans and reports: short, one line, deterministic, and never a
 * secret. Every renderer formats field changes through {@link describeFieldChange}, so the
 * rule "a secret field shows fingerprints only" lives in one place.
 */
import type { FieldChange } from "../../kinds/kind";
import { sortKeysDeep } from "../../canonical-json";
import { terminalText } from "./terminal-text";
import { changedRegion, splitLines } from "./line-region";

/** Longest value shown in full on a field line; longer values are shortened around the change. */
export const MAX_VALUE_CHARS = 60;

/**
 * Line changes between two texts, as `+added −removed`. Exact (longest common subsequence)
 * for texts of ordinary size; beyond that, lines are matched as a multiset so a 10,000-line
 * file does not cost 10⁸ steps.
 */
export function lineChangeCounts(from: string, to: string): { added: number; removed: number } {
  const a = splitLines(from, CRLF_OR_LF);
  const b = splitLines(to, CRLF_OR_LF);
  const { start, endA, endB } = changedRegion(a, b);
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const common = midA.length * midB.length <= 1_000_000 ? lcsLength(midA, midB) : multisetCommon(midA, midB);
  return { added: midB.length - common, removed: midA.length - common };
}

const CRLF_OR_LF = /\r?\n/;

function lcsLength(a: string[], b: string[]): number {
  let prev = new Uint32Array(b.length + 1);
  let row = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      row[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length];
}

function multisetCommon(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const n = counts.get(line) ?? 0;
    if (n > 0) {
      counts.set(line, n - 1);
      common++;
    }
  }
  return common;
}

export { sortKeysDeep };

/** One value on one line: strings JSON-quoted (control characters escaped), JSON compact with sorted keys. */
export function formatValue(value: unknown, max = MAX_VALUE_CHARS): string {
  if (value === undefined) return "(none)";
  if (typeof value === "string") return shortenString(value, 0, max);
  const json = JSON.stringify(sortKeysDeep(value)) ?? String(value);
  return json.length <= max ? json : `${json.slice(0, max - 1)}…`;
}

/**
 * A string, quoted, cut to about `max` characters around `focus` (where it differs from the
 * other side) so that two long values sharing a prefix still show what changed.
 */
function shortenString(s: string, focus: number, max: number): string {
  const quoted = JSON.stringify(s);
  if (quoted.length <= max) return quoted;
  const begin = Math.max(0, Math.min(focus - Math.floor(max / 3), s.length - max));
  const piece = JSON.stringify(s.slice(begin, begin + max)).slice(1, -1);
  const head = begin > 0 ? "…" : "";
  const tail = begin + max < s.length ? "…" : "";
  return `"${head}${piece}${tail}" (${s.length.toLocaleString("en-US")} chars)`;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const KEYED_FINGERPRINT = /^hmac-sha256:([0-9a-f]{4,128})$/;

/** Whether `fp` is a fingerprint under a project key: the only kind ever shown (see `src/kinds/fingerprint.ts`). */
export function isShownFingerprint(fp: unknown): fp is string {
  return typeof fp === "string" && KEYED_FINGERPRINT.test(fp);
}

/**
 * A secret's fingerprint as shown: `hmac-sha256:` and at most 12 hex digits, keyed with the
 * project's key. A key-less fingerprint (computable from a guessed value), a fingerprint under a
 * key of one run, or anything else is not shown: `(sensitive value)`.
 */
export function formatFingerprint(fp: string | undefined): string {
  const m = fp === undefined ? null : KEYED_FINGERPRINT.exec(fp);
  if (!m) return "(sensitive value)";
  return m[1].length > 12 ? `hmac-sha256:${m[1].slice(0, 12)}…` : `hmac-sha256:${m[1]}`;
}

/** The change of a secret field, from its keyed fingerprints alone; `from`/`to` are never read. */
function describeSecret(c: FieldChange): string {
  const hasFrom = c.fromFingerprint !== undefined;
  const hasTo = c.toFingerprint !== undefined;
  // Without a key, a fingerprint could be tested against guesses: then the change is told, not shown.
  const shown = (!hasFrom || isShownFingerprint(c.fromFingerprint)) && (!hasTo || isShownFingerprint(c.toFingerprint));
  if (hasFrom && hasTo)
    return shown
      ? `(secret changed, ${formatFingerprint(c.fromFingerprint)} → ${formatFingerprint(c.toFingerprint)})`
      : "(sensitive value changed)";
  if (hasTo) return shown ? `(secret set, ${formatFingerprint(c.toFingerprint)})` : "(sensitive value set)";
  if (hasFrom)
    return shown ? `(secret removed, was ${formatFingerprint(c.fromFingerprint)})` : "(sensitive value removed)";
  return "(secret changed)";
}

const isMultiline = (v: unknown): v is string => typeof v === "string" && v.includes("\n");
const isAbsent = (v: unknown) => v === undefined || v === null || v === "";

function lineCount(s: string): string {
  const n = splitLines(s, CRLF_OR_LF).length;
  return `${n.toLocaleString("en-US")} line${n === 1 ? "" : "s"}`;
}

/** Multi-line text (UDF code, dashboards) as a line-count summary, never the text itself. */
function describeText(from: unknown, to: unknown): string {
  if (isAbsent(from) && typeof to === "string") return `set (${lineCount(to)})`;
  if (isAbsent(to) && typeof from === "string") return `removed (was ${lineCount(from)})`;
  if (typeof from !== "string" || typeof to !== "string") return `changed (${describePlain(from, to)})`;
  const { added, removed } = lineChangeCounts(from, to);
  if (added === 0 && removed === 0) return "changed (whitespace or line endings only)";
  return `changed (+${added} −${removed} line${added + removed === 1 ? "" : "s"})`;
}

function describePlain(from: unknown, to: unknown): string {
  if (typeof from === "string" && typeof to === "string") {
    const focus = firstDifference(from, to);
    return `${shortenString(from, focus, MAX_VALUE_CHARS)} → ${shortenString(to, focus, MAX_VALUE_CHARS)}`;
  }
  return `${formatValue(from)} → ${formatValue(to)}`;
}

/**
 * One field change on one line, without indentation:
 * `accessScope: "team" → "public"`, `passcode: (secret changed, sha256:ab12… → sha256:cd34…)`,
 * `code: changed (+3 −1 lines)`; `# forces replacement` when the field re-creates the object.
 * The field's note, if any, is not included (renderers put it on a line of its own).
 */
export function describeFieldChange(c: FieldChange): string {
  let body: string;
  if (c.secret) body = describeSecret(c);
  else if (isMultiline(c.from) || isMultiline(c.to)) body = describeText(c.from, c.to);
  else body = describePlain(c.from, c.to);
  return `${cleanText(c.field)}: ${body}${c.action === "replace" ? "  # forces replacement" : ""}`;
}

/**
 * One attribute of an object a plan creates, on one line: `name: "pr_42_listings"`,
 * `code: 11 lines`, `passcode: (sensitive value)`. Text is a line count, never the text.
 */
export function describeCreatedField(c: FieldChange): string {
  let body: string;
  if (c.secret) body = "(sensitive value)";
  else if (isMultiline(c.to)) body = lineCount(c.to);
  else body = typeof c.to === "string" ? shortenString(c.to, 0, MAX_VALUE_CHARS) : formatValue(c.to);
  return `${cleanText(c.field)}: ${body}`;
}

/** An attribute a create would only show as empty (`[]`, `{}`, `""`): left out of the list. */
export function isEmptyAttribute(c: FieldChange): boolean {
  if (c.secret) return false;
  const v = c.to;
  return (
    v === "" ||
    (Array.isArray(v) && v.length === 0) ||
    (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0)
  );
}

/**
 * Free text from elsewhere (messages, notes, warnings) made safe for a terminal or a code
 * block: control characters other than line breaks shown as escapes ({@link terminalText}), so
 * no escape sequence gets through.
 */
export const cleanText: (s: string) => string = terminalText;

/** Free text on a single line: line breaks become ` ⏎ `. */
export function oneLine(s: string): string {
  return cleanText(s.replace(/\r?\n/g, " ⏎ "));
}

/**
 * `1,234`, as `toLocaleString("en-US")` writes it. A whole number (what counts are) is grouped here:
 * the first `toLocaleString` of a process loads ICU's number data, 25 ms or more of every plan and
 * apply that prints a count.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const grouped = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 ? `-${grouped}` : grouped;
}
