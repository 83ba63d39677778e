/**
 * What the policy rules found, as text (plan, apply, validate, drift) and as Markdown (pull-request
 * comment, job summary, drift report). Messages come from the rules and the repository: one line
 * each, escaped. Pure.
 */
import type { PolicyReport, PolicyResult } from "../../policy/model";
import type { Paint } from "./ansi";
import { code, markdownText } from "./markdown-escape";
import { oneLine } from "./values";

const at = (s: { file: string; line: number; column?: number }) =>
  `${s.file}:${s.line}${s.column !== undefined ? `:${s.column}` : ""}`;

const mark = (r: PolicyResult) => (r.exempted ? "-" : r.severity === "mandatory" ? "✗" : "!");

/** One result on one line: `✗ rule-name  canvas.x (canvases/x/canvas.yaml:1:1): message [policies.yaml:3]`. */
export function policyResultLine(r: PolicyResult): string {
  const what = r.address ? `${r.address}${r.source ? ` (${at(r.source)})` : ""}` : "the plan";
  const tag = r.exempted ? ` exempted: ${r.exempted}` : r.severity === "advisory" ? " (advisory)" : "";
  return oneLine(
    `${mark(r)} ${r.rule}${tag}  ${what}: ${r.message} [${at({ file: r.rule_source.file, line: r.rule_source.line })}]`,
  );
}

/** The sentence under the results: how many rules, what stops, what was skipped. */
export function policySummary(report: PolicyReport): string {
  const parts = [
    `${report.rules} rule${report.rules === 1 ? "" : "s"} of ${report.origin} checked`,
    `${report.violations} mandatory not met`,
    `${report.warnings} advisory`,
  ];
  const exempted = report.results.filter((r) => r.exempted).length;
  if (exempted) parts.push(`${exempted} exempted`);
  const skipped = report.skipped.length
    ? ` (skipped at ${report.stage}: ${report.skipped.join(", ")}, scope: plan rules run at plan and apply)`
    : "";
  return oneLine(`Policy: ${parts.join(", ")}${skipped}.`);
}

/** The policy section of a plan or drift text. */
export function policyTextLines(report: PolicyReport, paint: Paint = (_s, t) => t): string[] {
  const lines = report.results.map((r) =>
    paint(r.exempted ? "dim" : r.severity === "mandatory" ? "red" : "yellow", `  ${policyResultLine(r)}`),
  );
  return [...lines, paint(report.violations ? "red" : "bold", policySummary(report)), ""];
}

/** Results shown in Markdown at most (a comment has a size limit). */
const MARKDOWN_ROWS = 50;

/** The policy section in Markdown (a table of the results), or "" when there is nothing to say. */
export function policyMarkdown(report: PolicyReport): string {
  const rows = report.results.slice(0, MARKDOWN_ROWS).map((r) => {
    const where = r.source ? ` ${code(at(r.source))}` : "";
    const sev = r.exempted ? `exempted: ${markdownText(oneLine(r.exempted))}` : r.severity;
    return `| ${mark(r)} ${code(r.rule)} | ${sev} | ${r.address ? code(r.address) : "the plan"}${where} | ${markdownText(oneLine(r.message))} | ${code(at({ file: r.rule_source.file, line: r.rule_source.line }))} |\n`;
  });
  const more =
    report.results.length > MARKDOWN_ROWS
      ? `\n…and ${report.results.length - MARKDOWN_ROWS} more results (the JSON report lists every one).\n`
      : "";
  const table = rows.length
    ? `| Rule | Severity | Object | Message | Rule at |\n| --- | --- | --- | --- | --- |\n${rows.join("")}${more}\n`
    : "";
  return `#### Policy\n\n${table}${markdownText(policySummary(report))}\n\n`;
}
