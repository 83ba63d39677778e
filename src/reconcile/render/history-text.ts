/** `svc-iac history`'s text: one block per deployment, newest first, each object it changed on its own line. */
import type { HistoryReport } from "../commands/history";
import { terminalText } from "./terminal-text";

/** How many objects a deployment lists before "… and N more". */
const SHOWN_OBJECTS = 20;

export function renderHistoryText(report: HistoryReport): string {
  const head = `Deployments of ${report.project} (${report.target}), newest first:`;
  const off = report.recording
    ? undefined
    : "history: false in svc.yaml: new deployments are not recorded, and rollback has nothing newer to go back to.";
  if (!report.deployments.length)
    return terminalText(
      off
        ? `No deployment of ${report.project} (${report.target}) is recorded: ${off}\n`
        : `No deployment of ${report.project} (${report.target}) is recorded yet: apply records one.\n`,
    );
  const lines = off ? [off, head] : [head];
  for (const d of report.deployments) {
    const commit = d.commit
      ? `commit ${d.commit.slice(0, 12)}${d.dirty ? " (with changes not committed)" : ""}`
      : "no git commit";
    const what = d.rollbackOf ? `rollback to ${d.rollbackOf}` : d.action;
    lines.push(
      `  ${d.id}  ${d.time.replace("T", " ").replace(/\.\d+Z$/, "Z")}  ${what}${d.ok ? "" : " (failed in part)"}  by ${d.actor}  ${commit}`,
    );
    for (const o of d.objects.slice(0, SHOWN_OBJECTS)) lines.push(`      ${o.action.padEnd(8)} ${o.address}`);
    if (d.objects.length > SHOWN_OBJECTS)
      lines.push(`      … and ${d.objects.length - SHOWN_OBJECTS} more (--json lists all)`);
  }
  return terminalText(`${lines.join("\n")}\n`);
}
