/**
 * The drift pull request: `drift --remediate` writes the platform's version of `keep` objects into
 * the repository files; in the action those files become one pull request per target (branch
 * `svc-iac/drift/<target>`), made through GitHub's REST API only (the git data API: blobs, a tree,
 * a commit, the branch ref), so the runner needs no git command and no push credentials of its own.
 * The branch is one commit on the base; a later run with other kept files rebuilds it (forced),
 * and one with nothing new writes nothing: the branch's files are compared by git blob id first.
 * The title and body name the objects and their diff (secrets as fingerprints only); text from the
 * repository or the platform goes through `inertMarkdown`.
 */
import { createHash } from "node:crypto";
import type { Octokit } from "@octokit/rest";
import type { DriftReport, RemediationReport } from "../reconcile/plan/plan-model";
import { renderDriftMarkdown } from "../reconcile/render/drift-markdown";
import { code, inertMarkdown } from "../reconcile/render/markdown-escape";
import { oneLine } from "../reconcile/render/values";
import { fitCommentBody } from "./pr-comment";

export interface DriftPullRequestOptions {
  owner: string;
  repo: string;
  /** The branch the pull request goes into (the workflow's branch, else the repository's default). */
  base?: string;
  /** The commit the kept files were written over (`GITHUB_SHA`), else the base branch's head. */
  baseSha?: string;
  /** Kept files: their path in the GitHub repository and their new text. */
  files: { path: string; text: string }[];
  remediation: RemediationReport;
  /** The drift as found (for the kept objects' diffs). */
  drift: DriftReport;
  runUrl?: string;
  /** Applied to every text sent (the action's redactor). */
  redact: (text: string) => string;
  /** Links allowed in the body (the repository's own pages). */
  linkPrefixes?: readonly string[];
}

export type DriftPullRequestOutcome =
  | { action: "none" }
  | { action: "opened" | "updated" | "unchanged"; number: number; url: string; branch: string };

/** The git blob id of `text` (what GitHub's trees list), computed here so unchanged files cost no write. */
export function gitBlobSha(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest("hex");
}

/** `svc-iac/drift/<target>`, with anything a branch name may not hold replaced. */
export function driftBranch(target: string): string {
  return `svc-iac/drift/${target.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

const marker = (project: string, target: string) =>
  `<!-- svc-iac:drift-keep project=${project.replace(/[^A-Za-z0-9._/-]/g, "_")} target=${target.replace(/[^A-Za-z0-9._/-]/g, "_")} -->`;

const isNotFound = (e: unknown) => (e as { status?: unknown })?.status === 404;

function titleOf(r: RemediationReport): string {
  const names = r.kept.map((k) => k.address);
  const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
  return oneLine(`svc-iac: keep the platform's version of ${shown} (${r.project}, ${r.target})`).slice(0, 240);
}

function bodyOf(opts: DriftPullRequestOptions): string {
  const r = opts.remediation;
  const kept = new Set(r.kept.map((k) => k.address));
  const lines = r.kept.map(
    (k) =>
      `- ${code(k.address)}: ${k.fields.map((f) => code(f)).join(", ") || "changed"} → ${(k.files ?? []).map((f) => code(f)).join(", ")} (${code(k.policy_from)})`,
  );
  const heading = `These objects were changed on the platform by hand and are set to \`on_drift: keep\`: \`svc-iac drift --remediate\`${opts.runUrl ? ` ([workflow run](${opts.runUrl}))` : ""} wrote the platform's version into the repository. Merge to keep it; close to restore the repository's version instead (set \`on_drift: restore\`, or run \`svc-iac apply --only ADDRESS\`). This pull request is rebuilt when the kept changes change.`;
  const sub = { ...opts.drift, items: opts.drift.items.filter((i) => kept.has(i.address)) };
  return fitCommentBody(
    marker(r.project, r.target),
    heading,
    (maxChars) =>
      opts.redact(
        inertMarkdown(
          `${lines.join("\n")}\n\n${renderDriftMarkdown(sub, { maxChars: Math.max(1000, maxChars - 4000) })}`,
          [...(opts.linkPrefixes ?? [])],
        ),
      ),
    "_Cut to fit GitHub's limit; the full drift report is in the workflow run's artifacts._",
  );
}

/** Opens or updates the drift pull request of `remediation.target` for its kept files. */
export async function syncDriftPullRequest(
  octokit: Octokit,
  opts: DriftPullRequestOptions,
): Promise<DriftPullRequestOutcome> {
  const r = opts.remediation;
  if (!r.kept.length || !opts.files.length) return { action: "none" };
  const repo = { owner: opts.owner, repo: opts.repo };
  const branch = driftBranch(r.target);
  const base = opts.base ?? (await octokit.rest.repos.get(repo)).data.default_branch;
  const baseSha = opts.baseSha ?? (await octokit.rest.git.getRef({ ...repo, ref: `heads/${base}` })).data.object.sha;
  const title = opts.redact(titleOf(r));
  const body = bodyOf(opts);

  let branchSha: string | undefined;
  try {
    branchSha = (await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` })).data.object.sha;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  let same = false;
  if (branchSha) {
    const commit = (await octokit.rest.git.getCommit({ ...repo, commit_sha: branchSha })).data;
    const tree = (await octokit.rest.git.getTree({ ...repo, tree_sha: commit.tree.sha, recursive: "true" })).data.tree;
    const ids = new Map(tree.map((t) => [t.path, t.sha]));
    same = opts.files.every((f) => ids.get(f.path) === gitBlobSha(f.text));
  }
  if (!same) {
    const baseTree = (await octokit.rest.git.getCommit({ ...repo, commit_sha: baseSha })).data.tree.sha;
    const entries = [];
    for (const f of opts.files) {
      const blob = await octokit.rest.git.createBlob({ ...repo, content: f.text, encoding: "utf-8" });
      entries.push({ path: f.path, mode: "100644" as const, type: "blob" as const, sha: blob.data.sha });
    }
    const tree = await octokit.rest.git.createTree({ ...repo, base_tree: baseTree, tree: entries });
    const commit = await octokit.rest.git.createCommit({
      ...repo,
      message: opts.redact(`${titleOf(r)}\n\nWritten by svc-iac drift --remediate (on_drift: keep).`),
      tree: tree.data.sha,
      parents: [baseSha],
    });
    if (branchSha)
      await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: commit.data.sha, force: true });
    else await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: commit.data.sha });
  }
  const open = (
    await octokit.rest.pulls.list({ ...repo, state: "open", head: `${opts.owner}:${branch}`, per_page: 10 })
  ).data[0];
  if (!open) {
    const pr = await octokit.rest.pulls.create({ ...repo, title, body, head: branch, base });
    return { action: "opened", number: pr.data.number, url: pr.data.html_url, branch };
  }
  if (same && open.title === title && (open.body ?? "") === body)
    return { action: "unchanged", number: open.number, url: open.html_url, branch };
  if (open.title !== title || (open.body ?? "") !== body)
    await octokit.rest.pulls.update({ ...repo, pull_number: open.number, title, body });
  return { action: "updated", number: open.number, url: open.html_url, branch };
}
