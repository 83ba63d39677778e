/**
 * The apply report for a terminal: one line per result, where new tokens were written (never
 * the tokens), and a one-line verdict.
 */
import type { ActionResult, ApplyReport, Plan } from "../plan/plan-model";
import { describeGroup, GROUP_MIN, groupBulk, groupedCount, type BulkGroup, type Groupable } from "./bulk-groups";
import { wordsFor } from "./action-words";
import { cleanText, formatCount, oneLine } from "./values";

/**
 * Renders an apply report.
 * @example
 * ```
 * ✓ created canvas.sales (id cv_1)
 * ✗ failed to create udf.sales/x: 409 conflict
 * - skipped share.sales (share): canvas.sales failed
 * Apply failed: 1 done, 1 failed, 1 skipped.
 * ```
 */
export function renderApplyReportText(report: ApplyReport, opts: ApplyReportTextOptions = {}): string {
  const command = opts.command ?? "Apply";
  const lines = opts.bulk ? groupedLines(report, opts.bulk) : report.results.map(resultLine);
  for (const p of report.published) {
    lines.push(
      `token of ${oneLine(p.address)} written to ${p.to.length > 0 ? p.to.map(oneLine).join(", ") : "nowhere"}`,
    );
  }
  const { done, failed, skipped } = report.counts;
  const verdict = report.ok ? "complete" : opts.stopped && failed === 0 ? oneLine(opts.stopped) : "failed";
  lines.push(`${command} ${verdict}: ${done} done, ${failed} failed, ${skipped} skipped.`);
  return lines.join("\n") + "\n";
}

export interface ApplyReportTextOptions {
  /** @default "Apply" */
  command?: "Apply" | "Destroy" | "Rollback";
  /**
   * Why the run stopped before the end (`interrupted (SIGINT)`): with no failure, the verdict is
   * that (`Apply interrupted (SIGINT): 4 done, 0 failed, 37 skipped.`), not "failed".
   */
  stopped?: string;
  /**
   * Show what was done as one line per canvas and action (or per kind and action, for objects on
   * no canvas) when {@link GROUP_MIN} or more share it: `✓ created canvas.sales and its 100 UDFs
   * (u00000 … u00099)`; so do steps skipped for one reason. Failures keep a line each. `plan` tells which canvas an object
   * is on; `hint` says how to see each object. @default every result on a line of its own
   */
  bulk?: { plan?: Plan; hint: string };
}

function groupedLines(report: ApplyReport, bulk: NonNullable<ApplyReportTextOptions["bulk"]>): string[] {
  const references = new Map((bulk.plan?.actions ?? []).map((a) => [`${a.action}\0${a.address}`, a.references]));
  const results = report.results.map((r) => ({ ...r, references: references.get(`${r.action}\0${r.address}`) }));
  // Steps skipped for one reason (an interrupt, a lost lock, a failed canvas) are one line too; failures keep theirs.
  const shown = groupBulk(results, (r) =>
    r.status === "done" ? "done" : r.status === "skipped" ? `skipped\0${r.message ?? ""}` : false,
  );
  const lines = shown.map((s) => ("group" in s ? groupLine(s.group) : resultLine(s.one)));
  const grouped = groupedCount(shown);
  if (grouped > 0) lines.push(`(${formatCount(grouped)} objects shown in groups; ${bulk.hint}.)`);
  return lines;
}

/** `✓ created canvas.sales and its 100 UDFs (…)`, or `- skipped 743 UDFs on canvas.sales (…) (create): interrupted (SIGINT)`. */
function groupLine(group: BulkGroup<ActionResult & Groupable>): string {
  const first = group.members[0]!;
  if (first.status === "done") return `✓ ${wordsFor(group.action).past} ${describeGroup(group)}`;
  const message = first.message ? `: ${indentTail(cleanText(first.message))}` : "";
  return `- skipped ${describeGroup(group)} (${group.action})${message}`;
}

/** One result; a multi-line message keeps its lines, indented under the result. */
export function resultLine(r: ActionResult): string {
  const address = oneLine(r.address);
  const message = r.message ? indentTail(cleanText(r.message)) : "";
  switch (r.status) {
    case "done":
      return `✓ ${wordsFor(r.action).past} ${address}${r.id ? ` (id ${oneLine(r.id)})` : ""}`;
    case "failed":
      return `✗ failed to ${r.action} ${address}${message ? `: ${message}` : ""}`;
    case "skipped":
      return `- skipped ${address} (${r.action})${message ? `: ${message}` : ""}`;
  }
}

function indentTail(s: string): string {
  return s.replace(/\r?\n/g, "\n    ");
}
