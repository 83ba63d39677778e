/**
 * What the action shows of a command's result, in each place it shows it: the log, the job
 * summary, the pull-request comment and the full report files. Pure functions of the result;
 * the renderers in `src/reconcile/render` do the Markdown of plans and drift reports.
 */
import { remediationJson, renderRemediationText } from "../reconcile/render/remediation-text";
import type { CommandResult } from "../reconcile/commands/command-types";
import { formatLoadError } from "../model/desired";
import type { Plan } from "../reconcile/plan/plan-model";
import {
  code,
  markdownText,
  renderApplyReportText,
  renderDriftMarkdown,
  renderDriftText,
  renderPlanMarkdown,
  renderPlanText,
  toJson,
} from "../reconcile/render";
import { policyMarkdown, policySummary, policyTextLines } from "../reconcile/render/policy-text";

/** Large enough that the renderers never shorten: the full report goes to a file, not to GitHub. */
const UNLIMITED = 100_000_000;

export interface ReportLabels {
  project: string;
  target: string;
  /** Where the full report is (the run's artifacts), named wherever something was cut. */
  detailsLink: string;
}

/** What the log and the summary say instead of listing every object of a group (the report files list them). */
const GROUPED_HINT = "the report files list every object";

/** The apply report as text: many objects of one canvas on one line, unless `everyObject`. */
function reportText(result: CommandResult & { command: "apply" | "destroy" }, everyObject = false): string {
  const command = result.command === "apply" ? "Apply" : "Destroy";
  if (!result.report) return "";
  return renderApplyReportText(result.report, {
    command,
    ...(everyObject ? {} : { bulk: { ...(result.plan ? { plan: result.plan } : {}), hint: GROUPED_HINT } }),
  });
}

/**
 * Markdown of the result within `maxChars` (job summary, plan comment); `everyObject` lists each
 * object of the apply report instead of grouping them by canvas (the full report file).
 */
export function resultMarkdown(
  result: CommandResult,
  labels: ReportLabels,
  maxChars: number,
  everyObject = false,
): string {
  const link = labels.detailsLink;
  if (result.command === "plan" && result.plan && result.exitCode !== 1)
    return renderPlanMarkdown(result.plan, { maxChars, detailsLink: link });
  if (result.command === "drift" && result.drift && result.exitCode !== 1)
    return renderDriftMarkdown(result.drift, { maxChars, detailsLink: link });
  const plan =
    (result.command === "plan" || result.command === "apply" || result.command === "destroy") && result.plan
      ? result.plan
      : undefined;
  if ((result.command === "apply" || result.command === "destroy") && result.report) {
    const verb = result.command === "apply" ? "Apply" : "Destroy";
    const head = `### ${verb} ${md(labels.project)} (${md(labels.target)}): ${result.report.ok ? "complete" : "failed"}\n\n${fenced(reportText(result, everyObject))}\n`;
    return withPlan(head + (result.message ? `\n${quote(result.message)}\n` : ""), plan, maxChars, link);
  }
  if (result.command === "validate") return validateMarkdown(result, labels, maxChars);
  // A blocked apply (or a plan that failed after planning) still shows what it would have done.
  return withPlan(failureMarkdown(result, labels), plan, maxChars, link);
}

/**
 * Validate: no errors, or the errors; then the pull request's own rule changes, and the policy
 * results as the plan shows them (the table left out, its summary line kept, when it does not fit).
 */
function validateMarkdown(
  result: CommandResult & { command: "validate" },
  labels: ReportLabels,
  maxChars: number,
): string {
  const objects = `${result.objects} object${result.objects === 1 ? "" : "s"}`;
  const broken = result.policy?.violations ?? 0;
  let out =
    result.exitCode === 0
      ? `### Validate ${md(labels.project)} (${md(labels.target)}): ${objects}, no errors\n`
      : result.errors.length || !broken
        ? failureMarkdown(result, labels)
        : `### Validate failed for ${md(labels.project)} (${md(labels.target)}): ${objects}, ${broken} mandatory policy rule${broken === 1 ? "" : "s"} not met\n`;
  if (result.notes?.length) out += `\n${result.notes.map((n) => quote(n)).join("\n")}\n`;
  if (!result.policy) return out;
  const table = policyMarkdown(result.policy);
  if (out.length + table.length + 1 <= maxChars) return `${out}\n${table}`;
  const line = `\n#### Policy\n\n${markdownText(policySummary(result.policy))} The results are in ${labels.detailsLink}.\n`;
  return out.length + line.length <= maxChars ? out + line : out;
}

/** `text`, then the plan in whatever room is left (none when too little is). */
function withPlan(text: string, plan: Plan | undefined, maxChars: number, detailsLink: string): string {
  const room = maxChars - text.length - 1;
  return plan && room > 200 ? `${text}\n${renderPlanMarkdown(plan, { maxChars: room, detailsLink })}` : text;
}

/** The full report for the report folder: Markdown never shortened, and the JSON document when there is one. */
export function fullReport(result: CommandResult, labels: ReportLabels): { markdown: string; json?: string } {
  const markdown = resultMarkdown(result, labels, UNLIMITED, true);
  if (result.command === "plan" && result.plan) return { markdown, json: toJson(result.plan) };
  if (result.command === "drift" && result.remediation)
    return { markdown, json: toJson(remediationJson(result.remediation) as never) };
  if (result.command === "drift" && result.drift) return { markdown, json: toJson(result.drift) };
  if ((result.command === "apply" || result.command === "destroy") && result.report)
    return { markdown, json: toJson(result.report) };
  return { markdown };
}

/** Plain text for the job log. */
export function resultLogText(result: CommandResult): string {
  if (result.command === "plan" && result.plan) return renderPlanText(result.plan);
  if ((result.command === "apply" || result.command === "destroy") && result.report) return reportText(result);
  // The log shows text as a terminal does; the job summary and the drift issue get the Markdown.
  // drift --remediate: what was restored, kept, reported and contested (the summary and issue show what remains).
  if (result.command === "drift" && result.remediation) return renderRemediationText(result.remediation);
  if (result.command === "drift" && result.drift) return renderDriftText(result.drift);
  if (result.command === "validate") {
    const head = result.exitCode === 0 ? `${result.objects} object${result.objects === 1 ? "" : "s"}, no errors\n` : "";
    const policy = result.policy?.results.length ? policyTextLines(result.policy).join("\n") : "";
    return head && policy ? `${head}\n${policy}` : head || policy;
  }
  return "";
}

/** The result's failure: its message and every validation error as `file:line:column: message`. */
function failureMarkdown(result: CommandResult, labels: ReportLabels): string {
  const verb = { validate: "Validate", plan: "Plan", apply: "Apply", drift: "Drift check", destroy: "Destroy" }[
    result.command
  ];
  let out = `### ${verb} failed for ${md(labels.project)} (${md(labels.target)})\n\n`;
  if ("message" in result && result.message) out += `${quote(result.message)}\n\n`;
  if (result.errors.length > 0) {
    out += `${result.errors.length} error${result.errors.length === 1 ? "" : "s"} in the repository (also shown as annotations on the files):\n\n`;
    out += fenced(result.errors.map(formatLoadError).join("\n"));
    out += "\n";
  }
  return out;
}

/** A name from the repository (the project, the target) as inline code: inert whatever it holds. */
const md = code;

function fenced(text: string): string {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  return `${fence}text\n${text.endsWith("\n") ? text : `${text}\n`}${fence}\n`;
}

/** A message (which may quote the platform or the repository) as a block quote of inert text. */
function quote(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => `> ${markdownText(line)}`)
    .join("\n");
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === ch ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}
