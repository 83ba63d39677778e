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
 *
 * Anyone whose app can write checks on the repository can write a check run with our name, so the
 * comment is built only from check runs this workflow run wrote: by the same GitHub App as the
 * job's own check run (the workflow's token writes as `github-actions`) and carrying this run's
 * marker (`external_id`, tied to `GITHUB_RUN_ID`, which the detection job and the plan jobs share).
 * Any other check run with our name is left out and listed in the comment as ignored. Each summary
 * is still treated as untrusted Markdown ({@link inertMarkdown}).
 */
import type { Octokit } from "@octokit/rest";
import { upsertMarkedComment, COMMENT_MAX_CHARS, type IssueRef } from "./pr-comment";
import { code, htmlText, inertMarkdown, markdownText } from "../reconcile/render/markdown-escape";

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

/** A check run named like ours that this workflow run did not write: left out of the comment, and listed. */
export interface IgnoredRun {
  name: string;
  /** The app that wrote it (its slug), when GitHub says. */
  app?: string;
  url?: string;
}

/** What else shapes the comment besides the check runs it is built from. */
export interface CombinedOptions {
  /** Check runs with our name that were not written by this workflow run. */
  ignored?: readonly IgnoredRun[];
  /** Links in a section may lead only to URLs starting with one of these (the repository's pages). */
  linkPrefixes?: readonly string[];
}

export const planCheckName = (k: ProjectKey) => `${PLAN_CHECK_PREFIX}${k.project} (${k.target})`;
/** The marker a check run of this workflow run carries in `external_id`. */
export const runMarker = (runId: string | undefined) => `svc-iac run ${runId ?? "local"}`;
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
  opts: CombinedOptions = {},
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
  const ignored = opts.ignored?.length
    ? `\n\n**Ignored**: ${opts.ignored.length} check run${opts.ignored.length === 1 ? "" : "s"} named like svc-iac's that this workflow run did not write (another app, or another run): ${opts.ignored
        .slice(0, 20)
        .map((r) => `${code(r.name)}${r.app ? ` by ${code(r.app)}` : ""}`)
        .join(", ")}${opts.ignored.length > 20 ? ", …" : ""}`
    : "";
  const head = `${COMBINED_MARKER}\n${heading}\n\n${table}${removed}${ignored}\n`;
  const ordered = [...sections].sort(byKey);
  const full = new Map(ordered.map((s) => [keyOf(s), sectionText(s, opts.linkPrefixes ?? [])]));
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

function sectionText(s: ProjectSection, linkPrefixes: readonly string[]): string {
  return `\n---\n\n<details${s.status === "no changes" ? "" : " open"}><summary><b>${htmlText(s.project)}</b> (${htmlText(s.target)}): ${htmlText(s.title)}</summary>\n\n${inertMarkdown(s.markdown.trim(), linkPrefixes)}\n\n</details>\n`;
}

function collapsedText(s: ProjectSection): string {
  const where = s.url ? `[its check run](${s.url})` : `the check run "${markdownText(planCheckName(s))}"`;
  return `\n---\n\n**${markdownText(s.project)}** (${markdownText(s.target)}): ${markdownText(s.title)}. Too long to show beside the other projects: the plan is in ${where}.\n`;
}

export interface CombinedRef extends IssueRef {
  /** The pull request's head commit, which the check runs are attached to. */
  sha: string;
  /** `GITHUB_RUN_ID`: the run whose check runs make the comment (the detection job's and its plan jobs'). */
  runId?: string;
  /** Links in sections may lead only here (e.g. `https://github.com/acme/infra/`). */
  linkPrefixes?: readonly string[];
  /** The wait between rebuilds of the comment (see {@link syncCombinedComment}). @default 0.3 to 1.5 s, at random */
  settle?: () => Promise<void>;
}

/** Publishes a project's plan section (its check run), then rebuilds the comment. */
export async function publishProjectSection(
  octokit: Octokit,
  ref: CombinedRef,
  section: Omit<ProjectSection, "url">,
  heading: string,
): Promise<string> {
  const created = await octokit.rest.checks.create({
    owner: ref.owner,
    repo: ref.repo,
    name: planCheckName(section),
    head_sha: ref.sha,
    external_id: runMarker(ref.runId),
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
  return syncCombinedComment(octokit, ref, heading, writerOf(created.data), ref.settle);
}

/** Publishes what the detection job planned, then rebuilds the comment (every project pending). */
export async function publishProjectList(
  octokit: Octokit,
  ref: CombinedRef,
  list: ProjectList,
  heading: string,
): Promise<string> {
  const created = await octokit.rest.checks.create({
    owner: ref.owner,
    repo: ref.repo,
    name: PROJECTS_CHECK,
    head_sha: ref.sha,
    external_id: runMarker(ref.runId),
    status: "completed",
    conclusion: "success",
    output: {
      title: `${list.include.length} project${list.include.length === 1 ? "" : "s"} to plan`,
      summary: `${list.include.length} planned, ${list.removed.length} removed.`,
      text: JSON.stringify(list),
    },
  });
  return syncCombinedComment(octokit, ref, heading, writerOf(created.data), ref.settle);
}

const fitSummary = (markdown: string) =>
  markdown.length <= CHECK_SUMMARY_MAX_CHARS
    ? markdown
    : `${markdown.slice(0, CHECK_SUMMARY_MAX_CHARS - 60)}\n\n_… cut to the check run's limit._`;

/** Who wrote the job's own check run: the app every check run of the comment must come from. */
export interface Writer {
  /** The GitHub App's id (`github-actions` for the workflow's token); undefined when GitHub did not say. */
  appId?: number;
}

const writerOf = (run: { app?: { id?: number } | null }): Writer => ({ appId: run.app?.id ?? undefined });

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
  writer: Writer,
  settle: () => Promise<void> = jitter,
): Promise<string> {
  let url = "";
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { list, sections, ignored } = await readCheckRuns(octokit, ref, writer);
    const body = assembleCombinedComment(list, sections, heading, COMMENT_MAX_CHARS, {
      ignored,
      linkPrefixes: ref.linkPrefixes ?? [],
    });
    const done = await upsertMarkedComment(octokit, ref, COMBINED_MARKER, body);
    url = done.url;
    if (done.action === "unchanged") return url;
    await settle();
  }
  return url;
}

const jitter = () => new Promise<void>((ok) => setTimeout(ok, 300 + Math.floor(Math.random() * 1200)));

/**
 * The commit's svc-iac check runs written by this workflow run (the writer's app, this run's
 * marker), the newest of each name: the project list and every finished section; and every other
 * check run with our name, ignored.
 */
export async function readCheckRuns(
  octokit: Octokit,
  ref: CombinedRef,
  writer: Writer,
): Promise<{ list?: ProjectList; sections: ProjectSection[]; ignored: IgnoredRun[] }> {
  // Every run, not GitHub's latest per name: a later run with our name by another app must not hide ours.
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, {
    owner: ref.owner,
    repo: ref.repo,
    ref: ref.sha,
    filter: "all",
    per_page: 100,
  });
  const marker = runMarker(ref.runId);
  const ours = (run: (typeof runs)[number]) =>
    writer.appId !== undefined && run.app?.id === writer.appId && run.external_id === marker;
  const newest = new Map<string, (typeof runs)[number]>();
  const ignored: IgnoredRun[] = [];
  for (const run of runs) {
    if (run.name !== PROJECTS_CHECK && !run.name.startsWith(PLAN_CHECK_PREFIX)) continue;
    if (!ours(run)) {
      ignored.push({ name: run.name, app: run.app?.slug ?? undefined, url: run.html_url ?? undefined });
      continue;
    }
    const seen = newest.get(run.name);
    if (!seen || run.id > seen.id) newest.set(run.name, run);
  }
  let list: ProjectList | undefined;
  const sections: ProjectSection[] = [];
  for (const run of newest.values()) {
    if (run.name === PROJECTS_CHECK) {
      list = parseJson<ProjectList>(run.output?.text) ?? list;
      continue;
    }
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
  const sortKey = (r: IgnoredRun) => `${r.name}\u0000${r.app ?? ""}`;
  ignored.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  return { list, sections, ignored };
}

function parseJson<T>(text: string | null | undefined): T | undefined {
  try {
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}
