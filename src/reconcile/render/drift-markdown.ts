/**
 * The drift report as Markdown (job summary, drift issue): counts by class, then one section
 * per class. Changed objects fold in `<details>` their field changes, the diffs of text fields
 * and the commands that settle them (restore the repository's version, or import the
 * platform's); a Mermaid diagram shows the drifted objects and what they refer to; secrets show as fingerprints only. Always fits `maxChars`, by the same tiers as the plan.
 */
import { policyMarkdown } from "./policy-text";
import type { DriftItem, DriftReport } from "../plan/plan-model";
import { DRIFT_CLASSES } from "../plan/plan-model";
import { DRIFT_CLASS_WORDS as CLASS_TEXT } from "./drift-words";
import { diffMarkdown } from "./diff-blocks";
import { driftGraph } from "./change-graph";
import { mermaidSection } from "./graph-text";
import { code, htmlText, markdownText } from "./markdown-escape";
import { DEFAULT_MAX_CHARS, fence, fitMarkdown, type FitItem, type FitSection } from "./markdown-fit";
import { describeFieldChange, formatCount, oneLine } from "./values";

export interface DriftMarkdownOptions {
  /** Largest output, in characters. @default 65000 */
  maxChars?: number;
  /** Where the full report is, named in the note when it had to be shortened. @default "the job's artifacts" */
  detailsLink?: string;
}

/** Renders a drift report as Markdown of at most `maxChars` characters. */
export function renderDriftMarkdown(drift: DriftReport, opts: DriftMarkdownOptions = {}): string {
  const title = `### Drift report: ${code(oneLine(drift.project))} (${code(oneLine(drift.target))})\n\n`;
  const note = `The drift report was shortened to fit; the full report is in ${opts.detailsLink ?? "the job's artifacts"}.`;
  if (drift.items.length === 0)
    return fitMarkdown(
      {
        title,
        head: drift.policy?.violations
          ? `No drift in the objects' fields, but the platform holds what ${drift.policy.violations === 1 ? "a mandatory policy rule refuses" : `${drift.policy.violations} mandatory policy rules refuse`}.\n\n${policyMarkdown(drift.policy)}`
          : `No drift.\n${drift.policy?.results.length ? `\n${policyMarkdown(drift.policy)}` : ""}`,
        sections: [],
        tail: "",
      },
      opts.maxChars ?? DEFAULT_MAX_CHARS,
      note,
    );
  const rows = DRIFT_CLASSES.map((c) => `| ${CLASS_TEXT[c].title} | ${formatCount(drift.counts[c] ?? 0)} |\n`).join("");
  const head = `| Drift | Count |\n| --- | ---: |\n${rows}\n${drift.policy?.results.length ? policyMarkdown(drift.policy) : ""}`;
  const tail = `<sub>Drift fingerprint: ${code(oneLine(drift.fingerprint))}</sub>\n`;
  const figure = mermaidSection(driftGraph(drift), "#### What drifted, and what it refers to");
  return fitMarkdown(
    { title, head, sections: sections(drift), tail, ...(figure ? { figure } : {}) },
    opts.maxChars ?? DEFAULT_MAX_CHARS,
    note,
  );
}

function sections(drift: DriftReport): FitSection[] {
  return DRIFT_CLASSES.map((c) => {
    const items = drift.items.filter((i) => i.class === c);
    const text = CLASS_TEXT[c];
    return {
      heading: `#### ${text.title} (${formatCount(items.length)})\n\n${text.intro(code)}\n\n`,
      items: items.map(driftItem),
    };
  });
}

function driftItem(item: DriftItem): FitItem {
  const id = item.id ? ` (id ${code(oneLine(item.id))})` : "";
  const where = item.source ? ` (${code(`${oneLine(item.source.file)}:${item.source.line}`)})` : "";
  const what = CLASS_TEXT[item.class].each;
  const fields =
    item.fields.length > 0
      ? `${formatCount(item.fields.length)} field${item.fields.length === 1 ? "" : "s"} changed: ${item.fields.map((f) => markdownText(f.field)).join(", ")}`
      : "";
  const said = [what, fields].filter(Boolean).join("; ");
  const brief = `- ${code(oneLine(item.address))}${id}${said ? ` — ${said}` : ""}${where}\n`;
  if (item.fields.length === 0) return { brief, full: brief };
  const lines = item.fields.flatMap((f) => [describeFieldChange(f), ...(f.note ? [`  ! ${oneLine(f.note)}`] : [])]);
  const summary = `<code>${htmlText(item.address)}</code>${htmlText(item.id ? ` (id ${item.id})` : "")}${item.source ? ` at <code>${htmlText(`${item.source.file}:${item.source.line}`)}</code>` : ""}`;
  const settle = settleText(item);
  const details = (diffs: string) =>
    `\n<details><summary>${summary}</summary>\n\n${fence(lines.join("\n"))}\n${diffs ? `${diffs}\n` : ""}${settle}</details>\n\n`;
  return { brief, full: details(diffMarkdown(item.fields)), withoutDiffs: details("") };
}

/** The commands that settle a changed object, as sentences; "" when it has none. */
function settleText(item: DriftItem): string {
  const c = item.commands;
  if (!c) return "";
  const restore = `To put the repository's version back on the platform: ${code(oneLine(c.restore))}.\n`;
  const keep = c.keep
    ? `To keep the change made on the platform instead: ${code(oneLine(c.keep))} (it writes only the fields that drifted), then review and commit the files it changes.\n`
    : c.keepUnavailable
      ? `No command keeps the change made on the platform: ${markdownText(oneLine(c.keepUnavailable))}.\n`
      : "";
  return `${restore}${keep ? `\n${keep}` : ""}\n`;
}
