/**
 * `svc-iac drift`'s output: text by default, Markdown or JSON when asked for (`--format`, `--json`),
 * Markdown by default into the job summary and into an `--out` file (JSON for `.json`).
 */
import { fstatSync, statSync } from "node:fs";
import type { DriftReport } from "../reconcile/plan/plan-model";
import { renderDriftMarkdown, renderDriftText, toJson } from "../reconcile/render";

/** `drift --format`: `md` and `markdown` are the same. */
export const DRIFT_FORMATS = ["text", "md", "markdown", "json"] as const;
export type DriftFormat = "text" | "md" | "json";

/** The format asked for (`--format`, `--json`), else `otherwise`. */
export function driftFormat(v: Record<string, string | boolean | undefined>, otherwise: DriftFormat): DriftFormat {
  if (v.format === "markdown") return "md";
  if (v.format !== undefined) return v.format as DriftFormat;
  return v.json ? "json" : otherwise;
}

/** The report in `format`; colours only in text, and only when `color`. */
export function driftDocument(drift: DriftReport, format: DriftFormat, color: boolean): string {
  if (format === "json") return toJson(drift);
  return format === "md" ? renderDriftMarkdown(drift) : renderDriftText(drift, { color });
}

/**
 * True when stdout is the file GitHub renders as the job summary (`drift >> "$GITHUB_STEP_SUMMARY"`):
 * there Markdown is what the reader sees, so it is the default, as text is everywhere else.
 */
export function stepSummaryIsStdout(io: { stdout: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): boolean {
  const summary = io.env.GITHUB_STEP_SUMMARY;
  const fd = (io.stdout as { fd?: unknown }).fd;
  if (!summary || typeof fd !== "number") return false;
  try {
    const [out, file] = [fstatSync(fd), statSync(summary)];
    return out.isFile() && out.dev === file.dev && out.ino === file.ino;
  } catch {
    return false;
  }
}
