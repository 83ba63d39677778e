/**
 * The drift report for a terminal (and, by default, any stdout): the counts on one line, then one
 * section per class that has objects, each object on a line with its marker, a changed object's
 * field changes, diffs and the commands that settle it beneath. The same content as the Markdown
 * report (`drift-markdown.ts`) without its tables, tags and diagram; secrets as fingerprints only.
 */
import { policyTextLines } from "./policy-text";
import type { DriftClass, DriftItem, DriftReport } from "../plan/plan-model";
import { DRIFT_CLASSES } from "../plan/plan-model";
import { DIFF_COLORS, painter, type Paint, type Style } from "./ansi";
import { diffLines } from "./diff-blocks";
import { DRIFT_CLASS_WORDS } from "./drift-words";
import { describeFieldChange, formatCount, oneLine } from "./values";

export interface DriftTextOptions {
  /** Wrap markers and diffs in ANSI colours. @default false */
  color?: boolean;
}

/** The marker in front of an object: as the plan would show what apply does about it. */
const MARKERS: Record<DriftClass, { symbol: string; style: Style }> = {
  changed: { symbol: "~", style: "yellow" },
  missing: { symbol: "!", style: "red" },
  orphaned: { symbol: "-", style: "red" },
  unmanaged: { symbol: "?", style: "yellow" },
  pending: { symbol: "+", style: "green" },
};

const DETAIL_INDENT = "      ";

/**
 * Renders a drift report as plain text.
 * @example
 * ```
 * Drift in sales (prod): 1 changed.
 *
 * Changed (1): managed objects that differ from the repository (platform value → repository value).
 *   ~ canvas.reports (id cv_2) at canvases/reports/canvas.yaml:1
 *       accessScope: "public" → "team"
 *       To put the repository's version back on the platform: svc-iac apply --target prod --only canvas.reports
 *       To keep the change made on the platform instead: svc-iac import --target prod --keep canvas.reports (…)
 *
 * Drift fingerprint: sha256:…
 * ```
 */
export function renderDriftText(drift: DriftReport, opts: DriftTextOptions = {}): string {
  const paint = painter(opts.color);
  const where = `${oneLine(drift.project)} (${oneLine(drift.target)})`;
  const policy = drift.policy?.results.length ? policyTextLines(drift.policy, paint).join("\n") : "";
  const broken = drift.policy?.violations ?? 0;
  if (drift.items.length === 0 && broken)
    return `No drift in the objects' fields: ${where} matches the repository, but the platform holds what ${broken === 1 ? "a mandatory policy rule refuses" : `${broken} mandatory policy rules refuse`}.\n\n${policy}`;
  if (drift.items.length === 0) return `No drift. ${where} matches the repository.\n${policy ? `\n${policy}` : ""}`;
  const counts = DRIFT_CLASSES.filter((c) => (drift.counts[c] ?? 0) > 0).map(
    (c) => `${formatCount(drift.counts[c])} ${c}`,
  );
  const out = [paint("bold", `Drift in ${where}: ${counts.join(", ")}.`), ""];
  for (const c of DRIFT_CLASSES) {
    const items = drift.items.filter((i) => i.class === c);
    if (items.length === 0) continue;
    const words = DRIFT_CLASS_WORDS[c];
    out.push(paint("bold", `${words.title} (${formatCount(items.length)}):`) + ` ${lowerFirst(words.intro((s) => s))}`);
    for (const item of items) out.push(...itemLines(item, paint));
    out.push("");
  }
  if (policy) out.push(policy);
  out.push(paint("dim", `Drift fingerprint: ${oneLine(drift.fingerprint)}`));
  return out.join("\n") + "\n";
}

function itemLines(item: DriftItem, paint: Paint): string[] {
  const marker = MARKERS[item.class];
  const id = item.id ? ` (id ${oneLine(item.id)})` : "";
  const at = item.source ? ` at ${oneLine(item.source.file)}:${item.source.line}` : "";
  const what = DRIFT_CLASS_WORDS[item.class].each;
  const lines = [
    `  ${paint(marker.style, marker.symbol)} ${oneLine(item.address)}${id}${what ? ` — ${what}` : ""}${at}`,
  ];
  for (const f of item.fields) {
    lines.push(DETAIL_INDENT + describeFieldChange(f));
    if (f.note) lines.push(DETAIL_INDENT + paint("yellow", `  ! ${oneLine(f.note)}`));
  }
  for (const d of diffLines(item.fields))
    lines.push(DETAIL_INDENT + (DIFF_COLORS[d.style] ? paint(DIFF_COLORS[d.style]!, d.line) : d.line));
  const c = item.commands;
  if (c) {
    lines.push(`${DETAIL_INDENT}To put the repository's version back on the platform: ${oneLine(c.restore)}`);
    if (c.keep)
      lines.push(
        `${DETAIL_INDENT}To keep the change made on the platform instead: ${oneLine(c.keep)} (it writes only the fields that drifted), then review and commit the files it changes.`,
      );
    else if (c.keepUnavailable)
      lines.push(`${DETAIL_INDENT}No command keeps the change made on the platform: ${oneLine(c.keepUnavailable)}.`);
  }
  return lines;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
