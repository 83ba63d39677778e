/**
 * The plan as Markdown, for pull-request comments and job summaries: a table of counts, then
 * the actions grouped by type, each with its field changes (and the diffs of text fields) folded
 * in `<details>`, and a Mermaid diagram of the objects that change and their references (see
 * `change-graph.ts`). Always fits `maxChars` (see {@link fitMarkdown} for the tiers).
 */
import type { ActionType, Plan, PlannedAction } from "../plan/plan-model";
import { ACTION_WORDS, DISPLAY_ORDER } from "./action-words";
import { diffMarkdown } from "./diff-blocks";
import { planGraph } from "./change-graph";
import { mermaidSection } from "./graph-text";
import { code, htmlText, markdownText } from "./markdown-escape";
import { DEFAULT_MAX_CHARS, fence, fitMarkdown, type FitItem, type FitSection } from "./markdown-fit";
import { actionDetailLines, partialSentence, planSummaryLine } from "./plan-text";
import { formatCount, oneLine } from "./values";
import { policyMarkdown } from "./policy-text";

export interface PlanMarkdownOptions {
  /** Largest output, in characters. @default 65000 */
  maxChars?: number;
  /** Where the full plan is, named in the note when the plan had to be shortened (a URL or Markdown link). @default "the job's artifacts" */
  detailsLink?: string;
}

/** Renders a plan as Markdown of at most `maxChars` characters. */
export function renderPlanMarkdown(plan: Plan, opts: PlanMarkdownOptions = {}): string {
  const note = `The plan was shortened to fit; the full plan is in ${opts.detailsLink ?? "the job's artifacts"}.`;
  const title = `### Plan for ${code(oneLine(plan.project))} (${code(oneLine(plan.target))})\n\n`;
  const figure = mermaidSection(planGraph(plan), "#### What changes, and what it refers to");
  return fitMarkdown(
    { title, head: head(plan), sections: sections(plan), tail: "", ...(figure ? { figure } : {}) },
    opts.maxChars ?? DEFAULT_MAX_CHARS,
    note,
  );
}

function head(plan: Plan): string {
  const rows = DISPLAY_ORDER.filter((t) => (plan.summary[t] ?? 0) > 0).map(
    (t) => `| ${ACTION_WORDS[t].symbol} ${t} | ${formatCount(plan.summary[t])} |\n`,
  );
  let out =
    rows.length === 0
      ? `${planSummaryLine(plan)}\n\n`
      : `| Action | Count |\n| --- | ---: |\n${rows.join("")}\n${planSummaryLine(plan)}\n\n`;
  const partial = partialSentence(plan, (p) => code(p));
  if (partial) out += `> [!WARNING]\n> ${partial}\n\n`;
  const aside: string[] = [];
  if (plan.orphans.length > 0) aside.push(`${formatCount(plan.orphans.length)} kept because prune is off`);
  if (plan.unmanaged.length > 0) aside.push(`${formatCount(plan.unmanaged.length)} not managed by this project`);
  if (aside.length > 0) out += `Also: ${aside.join("; ")}.\n\n`;
  for (const b of plan.blocks) {
    const message = b.rule === "policy" ? (b.message.split("\n").pop() ?? b.message) : b.message;
    out += `> [!CAUTION]\n> **Apply will stop:** ${markdownText(message)} (${code(b.rule)})\n\n`;
  }
  if (plan.policy) out += policyMarkdown(plan.policy);
  return out;
}

function sections(plan: Plan): FitSection[] {
  const byType = new Map<ActionType, PlannedAction[]>();
  for (const a of plan.actions) {
    const list = byType.get(a.action);
    if (list) list.push(a);
    else byType.set(a.action, [a]);
  }
  const out: FitSection[] = DISPLAY_ORDER.filter((t) => byType.has(t)).map((t) => {
    const actions = byType.get(t) ?? [];
    return {
      heading: `#### ${ACTION_WORDS[t].symbol} ${t} (${formatCount(actions.length)})\n\n`,
      items: actions.map(actionItem),
    };
  });
  const plain = (s: string): FitItem => ({ brief: `- ${s}\n`, full: `- ${s}\n` });
  const withId = (o: { address: string; id: string }) =>
    plain(`${code(oneLine(o.address))} (id ${code(oneLine(o.id))})`);
  out.push({
    heading: "#### Kept, prune is off\n\nRun with `--prune` to delete these.\n\n",
    items: plan.orphans.map(withId),
  });
  out.push({
    heading: "#### Not managed by this project\n\nLeft alone: declared nowhere and not in the inventory.\n\n",
    items: plan.unmanaged.map(withId),
  });
  out.push({ heading: "#### Warnings\n\n", items: plan.warnings.map((w) => plain(markdownText(w))) });
  return out;
}

function actionItem(a: PlannedAction): FitItem {
  const id = a.id ? ` (id ${oneLine(a.id)})` : "";
  const idCode = a.id ? ` (id ${code(oneLine(a.id))})` : "";
  const creates = a.action === "create" || a.action === "share";
  const changes =
    a.fields.length > 0
      ? ` — ${formatCount(a.fields.length)} ${creates ? "field" : "field change"}${a.fields.length === 1 ? "" : "s"}`
      : "";
  const moved = a.movedFrom ? `${code(oneLine(a.movedFrom))} → ` : "";
  const brief = `- ${moved}${code(oneLine(a.address))}${idCode}${changes}\n`;
  const lines = actionDetailLines(a);
  if (lines.length === 0) return { brief, full: brief };
  const where = a.source ? `Declared at ${code(`${oneLine(a.source.file)}:${a.source.line}`)}.\n\n` : "";
  const movedHtml = a.movedFrom ? `<code>${htmlText(a.movedFrom)}</code> → ` : "";
  const summary = `${movedHtml}<code>${htmlText(a.address)}</code>${htmlText(id)}${changes}`;
  const details = (diffs: string) =>
    `\n<details><summary>${summary}</summary>\n\n${where}${fence(lines.join("\n"))}\n${diffs ? `${diffs}\n` : ""}</details>\n\n`;
  return { brief, full: details(diffMarkdown(a.fields)), withoutDiffs: details("") };
}
