/**
 * The apply report for a terminal: one line per result, where new tokens were written (never
 * the tokens), and a one-line verdict.
 */
import type { ActionResult, ApplyReport } from "../plan/plan-model";
import { wordsFor } from "./action-words";
import { cleanText, oneLine } from "./values";

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
export function renderApplyReportText(report: ApplyReport, opts: { command?: "Apply" | "Destroy" } = {}): string {
  const command = opts.command ?? "Apply";
  const lines = report.results.map(resultLine);
  for (const p of report.published) {
    lines.push(`token of ${oneLine(p.address)} written to ${p.to.length > 0 ? p.to.map(oneLine).join(", ") : "nowhere"}`);
  }
  const { done, failed, skipped } = report.counts;
  lines.push(`${command} ${report.ok ? "complete" : "failed"}: ${done} done, ${failed} failed, ${skipped} skipped.`);
  return lines.join("\n") + "\n";
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
