/**
 * The drift issue: one open issue per project and target while the platform differs from the
 * repository. It is opened when drift appears, edited (with one short comment, so watchers hear
 * of it) only when the set of drifted objects changes, left alone while the same drift persists,
 * and closed with a comment when drift clears. The set is compared by the report's fingerprint,
 * recorded in a hidden marker in the issue body. A mandatory policy rule that what the platform
 * holds does not meet counts as drift (drift exits 2 for it): it opens the issue, and the rules
 * not met are part of the fingerprint.
 */
import { createHash } from "node:crypto";
import type { Octokit } from "@octokit/rest";
import type { DriftReport } from "../reconcile/plan/plan-model";
import { code } from "../reconcile/render/markdown-escape";
import { authoredBy, tokenLogin } from "./identity";
import { driftMarker, fingerprintMarker, readFingerprint, startsWithMarker } from "./markers";
import { fitCommentBody } from "./pr-comment";

/** The label svc-iac puts on drift issues and lists them by. */
export const DEFAULT_DRIFT_LABEL = "svc-iac-drift";

export interface DriftIssueOptions {
  owner: string;
  repo: string;
  /** @default {@link DEFAULT_DRIFT_LABEL} */
  label?: string;
  /** Link to the workflow run, named in comments. */
  runUrl?: string;
  /** The token's login; only issues it opened are updated or closed. @default {@link tokenLogin} */
  author?: string;
  /** The drift as Markdown within `maxChars` (the tiered drift renderer). */
  render: (maxChars: number) => string;
}

/**
 * What happened to the issue:
 * - `none`: no drift and no open issue.
 * - `opened`: drift appeared; a new issue.
 * - `unchanged`: the same drift as the issue describes; nothing was written.
 * - `updated`: the drift set changed; body edited and one comment added.
 * - `closed`: drift cleared; a comment, then closed.
 */
export type DriftIssueOutcome =
  | { action: "none" }
  | { action: "opened" | "unchanged" | "updated" | "closed"; number: number; url: string };

/** The mandatory rules not met on the platform (exempted ones stop nothing), as `rule address`. */
function violations(drift: DriftReport): string[] {
  return (drift.policy?.results ?? [])
    .filter((r) => r.severity === "mandatory" && !r.exempted)
    .map((r) => `${r.rule} ${r.address ?? ""}`)
    .sort();
}

/** Whether the report calls for the issue: drifted objects, or mandatory rules the platform does not meet. */
export function driftFound(drift: DriftReport): boolean {
  return drift.drift || violations(drift).length > 0;
}

/** The fingerprint of what the issue describes: the drift set's, and the rules not met when there are any. */
export function issueFingerprint(drift: DriftReport): string {
  const broken = violations(drift);
  if (!broken.length) return drift.fingerprint;
  return `sha256:${createHash("sha256")
    .update(`${drift.fingerprint}\n${broken.join("\n")}`)
    .digest("hex")
    .slice(0, 16)}`;
}

/** Brings the drift issue of `drift.project` / `drift.target` in line with the report. */
export async function syncDriftIssue(
  octokit: Octokit,
  drift: DriftReport,
  opts: DriftIssueOptions,
): Promise<DriftIssueOutcome> {
  const label = opts.label ?? DEFAULT_DRIFT_LABEL;
  const marker = driftMarker(drift.project, drift.target);
  const open = await findOpenIssue(octokit, opts, label, marker, opts.author ?? (await tokenLogin(octokit)));
  const base = { owner: opts.owner, repo: opts.repo };
  const run = opts.runUrl ? ` ([workflow run](${opts.runUrl}))` : "";
  const name = `${code(drift.project)} (${code(drift.target)})`;

  if (!driftFound(drift)) {
    if (!open) return { action: "none" };
    await octokit.rest.issues.createComment({
      ...base,
      issue_number: open.number,
      body: `Drift cleared: ${name} matches the repository again${run}. Closing.`,
    });
    await octokit.rest.issues.update({
      ...base,
      issue_number: open.number,
      state: "closed",
      state_reason: "completed",
    });
    return { action: "closed", number: open.number, url: open.html_url };
  }

  const body = issueBody(drift, marker, opts);
  const title = issueTitle(drift);
  if (!open) {
    const { data } = await octokit.rest.issues.create({ ...base, title, body, labels: [label] });
    return { action: "opened", number: data.number, url: data.html_url };
  }
  const fingerprint = issueFingerprint(drift);
  if ((open.body ?? "").includes(fingerprintMarker(fingerprint)))
    return { action: "unchanged", number: open.number, url: open.html_url };

  await octokit.rest.issues.update({ ...base, issue_number: open.number, title, body });
  const was = readFingerprint(open.body);
  const now = readFingerprint(fingerprintMarker(fingerprint));
  await octokit.rest.issues.createComment({
    ...base,
    issue_number: open.number,
    body: `The drift changed: ${countLine(drift)}${run}. The description above shows the current set${was ? ` (fingerprint ${was} → ${now})` : ""}.`,
  });
  return { action: "updated", number: open.number, url: open.html_url };
}

/** `Drift: listings (prod)`. Only a heading for people; the issue is found by its marker. */
export function issueTitle(drift: DriftReport): string {
  return `Drift: ${drift.project} (${drift.target}): ${countLine(drift)}`;
}

function issueBody(drift: DriftReport, marker: string, opts: DriftIssueOptions): string {
  const head = `${marker}\n${fingerprintMarker(issueFingerprint(drift))}`;
  const what = drift.drift
    ? "The platform differs from the repository"
    : "The platform holds objects that mandatory policy rules refuse";
  const heading = `${what} for ${code(drift.project)} (${code(drift.target)})${opts.runUrl ? `, as found by [this workflow run](${opts.runUrl})` : ""}. This issue is kept up to date by svc-iac and closed when the drift clears.`;
  const where = opts.runUrl
    ? `the report artifact of [the workflow run](${opts.runUrl})`
    : "the report artifact of the workflow run";
  return fitCommentBody(
    head,
    heading,
    opts.render,
    `_The drift report was cut to fit GitHub's limit; the full report is in ${where}._`,
  );
}

function countLine(drift: DriftReport): string {
  const n = drift.items.length;
  const broken = violations(drift).length;
  const objects = `${n} object${n === 1 ? "" : "s"} drifted`;
  if (!broken) return objects;
  const rules = `${broken} mandatory policy rule${broken === 1 ? " is" : "s are"} not met`;
  return n ? `${objects}, ${rules}` : rules;
}

interface OpenIssue {
  number: number;
  body?: string | null;
  html_url: string;
}

/**
 * The open issue with this marker opened by `author`, listed by label; pull requests (which the
 * API lists too) and issues opened by anyone else (a marker is easy to copy) are skipped.
 */
async function findOpenIssue(
  octokit: Octokit,
  opts: DriftIssueOptions,
  label: string,
  marker: string,
  author: string,
): Promise<OpenIssue | undefined> {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
    owner: opts.owner,
    repo: opts.repo,
    state: "open",
    labels: label,
    per_page: 100,
  });
  const found: OpenIssue[] = [];
  for await (const page of pages) {
    for (const issue of page.data) {
      if (issue.pull_request || !authoredBy(issue, author) || !startsWithMarker(issue.body, marker)) continue;
      found.push({ number: issue.number, body: issue.body, html_url: issue.html_url });
    }
  }
  // Should two exist (someone reopened an old one), the oldest stays the one kept up to date.
  return found.sort((a, b) => a.number - b.number)[0];
}
