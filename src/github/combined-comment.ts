/**
 * One pull-request comment for every project of a monorepo (`comment: combined`). Each plan job of
 * the matrix publishes its section as a check run on the pull request's head commit (named
 * `svc-iac plan: <project> (<target>)`), and the detection job publishes the list of projects it
 * planned (`svc-iac projects`). The comment is then rebuilt from those check runs, never edited
 * piece by piece: a check run is written once by its own job and cannot be lost to a concurrent
 * edit, so whichever job writes the comment last writes every section finished so far. Each job
 * rebuilds and writes until a fresh read shows the comment equal to what the check runs make, so
 * the last job to finish leaves the whole comment. A new push has a new head commit, hence a new
 * set of check runs: sections of projects the push no longer affects leave the comment.
 */
import type { Octokit } from "@octokit/rest";
import { upsertMarkedComment, COMMENT_MAX_CHARS, type IssueRef } from "./pr-comment";
import { code, htmlText, markdownText } from "../reconcile/render/markdown-escape";

/** The name prefix of a project's plan check run. */
export const PLAN_CHECK_PREFIX = "svc-iac plan: ";
/** The detection job's check run: the projects planned at this commit, and the removed ones. */
export const PROJECTS_CHECK = "svc-iac projects";
/** The combined comment's marker (one per pull request). */
export const COMBINED_MARKER = "<!-- svc-iac:plan-combined -->";
/** GitHub's limit for a check run's `output.summary`. */
export const CHECK_SUMMARY_MAX_CHARS = 65_535;

export interface ProjectKey {
  project: string;
  target: string;
}

/** What the detection job planned at this commit. */
export interface ProjectList {
  include: (ProjectKey & { dir: string })[];
  removed: { project?: string; dir: string }[];
}

/** A finished plan job's section. */
export interface ProjectSection extends ProjectKey {
  /** `changes`, `no changes` or `error`. */
  status: "changes" | "no changes" | "error";
  /** One line: "2 to create, 1 to update", "No changes", the error. */
  title: string;
  /** The plan in Markdown (its own headings, diffs in `<details>`). */
  markdown: string;
  /** The check run's page. */
  url?: string;
}

export const planCheckName = (k: ProjectKey) => `${PLAN_CHECK_PREFIX}${k.project} (${k.target})`;
const keyOf = (k: ProjectKey) => `${k.project}\u0000${k.target}`;
const byKey = (a: ProjectKey, b: ProjectKey) =>
  a.project < b.project ? -1 : a.project > b.project ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0;

/**
 * The comment's body (pure): marker, a table of every project (planned ones as pending until their
 * section arrives), the removed projects, then each section. Within `maxChars`: when the sections
 * do not all fit, the longest are replaced by a line pointing at their check run until they do.
 */
export function assembleCombinedComment(
  list: ProjectList | undefined,
  sections: readonly ProjectSection[],
  heading: string,
  maxChars: number = COMMENT_MAX_CHARS,
): string {
  const done = new Map(sections.map((s) => [keyOf(s), s]));
  const keys = new Map<string, ProjectKey>();
  for (const k of [...(list?.include ?? []), ...sections]) keys.set(keyOf(k), { project: k.project, target: k.target });
  const rows = [...keys.values()].sort(byKey).map((k) => {
    const s = done.get(keyOf(k));
    const status = s
      ? s.status === "error"
        ? "❌ error"
        : s.status === "changes"
          ? "📝 changes"
          : "✅ no changes"
      : "⏳ planning";
    return `| ${markdownText(k.project)} | ${markdownText(k.target)} | ${status} | ${markdownText(s?.title ?? "")} |`;
  });
  const table = rows.length
    ? ["| project | target | status | plan |", "| --- | --- | --- | --- |", ...rows].join("\n")
    : "No project is affected by this pull request.";
  const removed = list?.removed.length
    ? `\n\n**Removed by this pull request** (their objects stay on the platform until destroyed): ${list.removed.map((r) => code(r.project ?? r.dir)).join(", ")}`
    : "";
  const head = `${COMBINED_MARKER}\n${heading}\n\n${table}${removed}\n`;
  const ordered = [...sections].sort(byKey);
  const full = new Map(ordered.map((s) => [keyOf(s), sectionText(s)]));
  const short = new Map(ordered.map((s) => [keyOf(s), collapsedText(s)]));
  const shown = new Map(full);
  const size = () => head.length + [...shown.values()].reduce((n, t) => n + t.length, 0);
  // Collapse the longest first: the most sections stay whole.
  for (const s of [...ordered].sort((a, b) => full.get(keyOf(b))!.length - full.get(keyOf(a))!.length)) {
    if (size() <= maxChars) break;
    shown.set(keyOf(s), short.get(keyOf(s))!);
  }
  const body = head + [...shown.values()].join("");
  return body.length <= maxChars ? body : `${body.slice(0, maxChars - 40)}\n\n_… cut to GitHub's limit._\n`;
}

function sectionText(s: ProjectSection): string {
  return `\n---\n\n<details${s.status === "no changes" ? "" : " open"}><summary><b>${htmlText(s.project)}</b> (${htmlText(s.target)}): ${htmlText(s.title)}</summary>\n\n${s.markdown.trim()}\n\n</details>\n`;
}

function collapsedText(s: ProjectSection): string {
  const where = s.url ? `[its check run](${s.url})` : `the check run "${markdownText(planCheckName(s))}"`;
  return `\n---\n\n**${markdownText(s.project)}** (${markdownText(s.target)}): ${markdownText(s.title)}. Too long to show beside the other projects: the plan is in ${where}.\n`;
}

export interface CombinedRef extends IssueRef {
  /** The pull request's head commit, which the check runs are attached to. */
  sha: string;
}

/** Publishes a project's plan section (its check run), then rebuilds the comment. */
export async function publishProjectSection(
  octokit: Octokit,
  ref: CombinedRef,
  section: Omit<ProjectSection, "url">,
  heading: string,
): Promise<string> {
  await octokit.rest.checks.create({
    owner: ref.owner,
    repo: ref.repo,
    name: planCheckName(section),
    head_sha: ref.sha,
    status: "completed",
    conclusion: section.status === "error" ? "failure" : "success",
    output: {
      title: section.title.slice(0, 200),
      summary: fitSummary(section.markdown),
      text: JSON.stringify({
        project: section.project,
        target: section.target,
        status: section.status,
        title: section.title,
      }),
    },
  });
  return syncCombinedComment(octokit, ref, heading);
}

/** Publishes what the detection job planned, then rebuilds the comment (every project pending). */
export async function publishProjectList(
  octokit: Octokit,
  ref: CombinedRef,
  list: ProjectList,
  heading: string,
): Promise<string> {
  await octokit.rest.checks.create({
    owner: ref.owner,
    repo: ref.repo,
    name: PROJECTS_CHECK,
    head_sha: ref.sha,
    status: "completed",
    conclusion: "success",
    output: {
      title: `${list.include.length} project${list.include.length === 1 ? "" : "s"} to plan`,
      summary: `${list.include.length} planned, ${list.removed.length} removed.`,
      text: JSON.stringify(list),
    },
  });
  return syncCombinedComment(octokit, ref, heading);
}

const fitSummary = (markdown: string) =>
  markdown.length <= CHECK_SUMMARY_MAX_CHARS
    ? markdown
    : `${markdown.slice(0, CHECK_SUMMARY_MAX_CHARS - 60)}\n\n_… cut to the check run's limit._`;

/** How many rebuilds a job makes at most before it leaves the comment to a later job. */
const MAX_ROUNDS = 8;

/**
 * Rebuilds the comment from the commit's check runs until a fresh read shows it current.
 * `settle` waits between rounds (jittered in production so racing jobs interleave).
 */
export async function syncCombinedComment(
  octokit: Octokit,
  ref: CombinedRef,
  heading: string,
  settle: () => Promise<void> = jitter,
): Promise<string> {
  let url = "";
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { list, sections } = await readCheckRuns(octokit, ref);
    const body = assembleCombinedComment(list, sections, heading);
    const done = await upsertMarkedComment(octokit, ref, COMBINED_MARKER, body);
    url = done.url;
    if (done.action === "unchanged") return url;
    await settle();
  }
  return url;
}

const jitter = () => new Promise<void>((ok) => setTimeout(ok, 300 + Math.floor(Math.random() * 1200)));

/** The commit's latest svc-iac check runs: the project list and every finished section. */
export async function readCheckRuns(
  octokit: Octokit,
  ref: CombinedRef,
): Promise<{ list?: ProjectList; sections: ProjectSection[] }> {
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, {
    owner: ref.owner,
    repo: ref.repo,
    ref: ref.sha,
    filter: "latest",
    per_page: 100,
  });
  let list: ProjectList | undefined;
  const sections: ProjectSection[] = [];
  for (const run of runs) {
    if (run.name === PROJECTS_CHECK) list = parseJson<ProjectList>(run.output?.text) ?? list;
    if (!run.name.startsWith(PLAN_CHECK_PREFIX)) continue;
    const meta = parseJson<Omit<ProjectSection, "markdown" | "url">>(run.output?.text);
    if (!meta || typeof meta.project !== "string" || typeof meta.target !== "string") continue;
    sections.push({
      project: meta.project,
      target: meta.target,
      status: meta.status,
      title: String(meta.title ?? ""),
      markdown: run.output?.summary ?? "",
      url: run.html_url ?? undefined,
    });
  }
  return { list, sections };
}

function parseJson<T>(text: string | null | undefined): T | undefined {
  try {
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}
