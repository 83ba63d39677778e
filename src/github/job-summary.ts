/**
 * The job summary: Markdown appended to `$GITHUB_STEP_SUMMARY`. GitHub refuses a step's summary
 * over 1 MiB and shows nothing of it, so what is appended is cut to what is left of that MiB after
 * what earlier commands of the same step already wrote.
 */
import { appendFile, stat } from "node:fs/promises";
import { countBytes, renderWithin } from "./text-budget";

/** GitHub's limit for one step's summary, in bytes. */
export const JOB_SUMMARY_MAX_BYTES = 1024 * 1024;

export interface JobSummaryResult {
  /** Bytes appended. */
  bytes: number;
  /** True when the Markdown had to be cut (or left out) to stay under the limit. */
  cut: boolean;
}

/**
 * Appends Markdown to the summary file, within `maxBytes` counting what the file already holds.
 * `render(maxChars)` is called with a budget (the tiered renderers shorten themselves); whatever
 * it returns is cut to fit, and `cutNote` says so. Does nothing without a summary file (not under
 * Actions).
 * @default maxBytes {@link JOB_SUMMARY_MAX_BYTES}
 */
export async function appendJobSummary(
  file: string | undefined,
  render: (maxChars: number) => string,
  cutNote: string,
  maxBytes: number = JOB_SUMMARY_MAX_BYTES,
): Promise<JobSummaryResult> {
  if (!file) return { bytes: 0, cut: false };
  // Two newlines around: this Markdown must not join a paragraph an earlier command left open.
  const room = maxBytes - (await sizeOf(file)) - 2;
  if (room <= 0) return { bytes: 0, cut: true };
  const fitted = renderWithin(render, room, countBytes, cutNote);
  const chunk = `\n${fitted.text}\n`;
  await appendFile(file, chunk, "utf8");
  return { bytes: countBytes(chunk), cut: fitted.cut };
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}
