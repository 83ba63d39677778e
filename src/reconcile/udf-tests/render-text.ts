/**
 * Test results for a terminal: one line per test (✓ / ✗, address, name, time), under a failure
 * where it is declared and each difference found, then a one-line verdict. Test names and messages
 * are free text from the repository and the platform: printed on their own lines, control
 * characters replaced.
 */
import { cleanText, oneLine } from "../render/values";
import type { TestOutcome } from "./run-tests";
import type { TestReport } from "../commands/test";

/** The heading line printed before the results. */
export const testHeading = (project: string, target: string, clientId: string) =>
  `Testing ${oneLine(project)} (${oneLine(target)}) on real-time instance ${oneLine(clientId)}\n`;

const indent = (text: string, by: string) =>
  cleanText(text)
    .split(/\r?\n/)
    .map((l) => `${by}${l}`)
    .join("\n");

/**
 * @example
 * ```
 * ✓ udf.checks/greet: default greeting (41 ms)
 * ✗ udf.checks/greet: a name (38 ms)
 *     at canvases/checks/greet.yaml:8:5
 *     $.length: expected 4, found 3
 * ```
 */
export function renderTestOutcome(o: TestOutcome): string {
  const head = `${o.status === "passed" ? "✓" : "✗"} ${oneLine(o.address)}: ${oneLine(o.name)} (${o.durationMs} ms)`;
  if (o.status === "passed") return `${head}\n`;
  const lines = [head, `    at ${oneLine(o.source)}`];
  if (o.message) lines.push(indent(o.message, "    "));
  for (const m of o.mismatches) lines.push(indent(`${m.path}: ${m.message}`, "    "));
  return `${lines.join("\n")}\n`;
}

/** The verdict line: `Tests passed: 3 passed, 0 failed.` */
export function renderTestSummary(report: TestReport): string {
  const { passed, failed } = report.counts;
  return `${report.ok ? "Tests passed" : "Tests failed"}: ${passed} passed, ${failed} failed.\n`;
}
