/**
 * The plan comment on a pull request: exactly one per pull request, project and target, found
 * again by its hidden marker and edited in place on every run, so a busy pull request does not
 * collect a comment per push.
 */
import type { Octokit } from "@octokit/rest";
import { authoredBy, tokenLogin } from "./identity";
import { startsWithMarker } from "./markers";
import { countChars, renderWithin } from "./text-budget";
import { SvcError } from "../errors";

/** GitHub's limit for a comment (and an issue body), in characters. */
export const COMMENT_MAX_CHARS = 65_536;

export interface IssueRef {
  owner: string;
  repo: string;
  /** Pull request or issue number. */
  number: number;
}

export interface CommentUpsert {
  /** `created`: there was none; `updated`: edited in place; `unchanged`: the body was already this. */
  action: "created" | "updated" | "unchanged";
  id: number;
  url: string;
  /** Extra comments with the same marker (left by runs that raced) that were deleted. */
  removedDuplicates: number;
}

/**
 * Builds a comment body that always fits {@link COMMENT_MAX_CHARS}: the marker line, a heading
 * line, then `render(maxChars)` given whatever room is left. Should the rendered text still be too
 * long it is cut, and `cutNote` says where the rest is.
 */
export function fitCommentBody(
  marker: string,
  heading: string,
  render: (maxChars: number) => string,
  cutNote: string,
  maxChars: number = COMMENT_MAX_CHARS,
): string {
  const head = `${marker}\n${heading}\n\n`;
  const room = maxChars - head.length;
  return head + renderWithin(render, room, countChars, cutNote).text;
}

/**
 * Creates or edits the one comment whose body opens with `marker` on a pull request or issue.
 * Comments are listed page by page to the end, so the marker is found however long the thread.
 * Only comments written by the token's identity (`author`, else {@link tokenLogin}) count: the
 * oldest is kept and edited, any other (two runs racing) is deleted, so exactly one remains.
 * Marked comments by anyone else are never edited or deleted.
 */
export async function upsertMarkedComment(
  octokit: Octokit,
  ref: IssueRef,
  marker: string,
  body: string,
  author?: string,
): Promise<CommentUpsert> {
  if (!startsWithMarker(body, marker))
    throw new SvcError(
      "comment_marker_missing",
      `A marked comment must open with its marker "${marker}"; the body opens with "${body.slice(0, 40)}".`,
    );
  const marked = await findMarkedComments(octokit, ref, marker, author ?? (await tokenLogin(octokit)));
  const [keep, ...extra] = marked;
  for (const c of extra)
    await octokit.rest.issues.deleteComment({ owner: ref.owner, repo: ref.repo, comment_id: c.id });
  if (!keep) {
    const { data } = await octokit.rest.issues.createComment({
      owner: ref.owner,
      repo: ref.repo,
      issue_number: ref.number,
      body,
    });
    return { action: "created", id: data.id, url: data.html_url, removedDuplicates: 0 };
  }
  if (keep.body === body)
    return { action: "unchanged", id: keep.id, url: keep.html_url, removedDuplicates: extra.length };
  const { data } = await octokit.rest.issues.updateComment({
    owner: ref.owner,
    repo: ref.repo,
    comment_id: keep.id,
    body,
  });
  return { action: "updated", id: data.id, url: data.html_url, removedDuplicates: extra.length };
}

interface MarkedComment {
  id: number;
  body?: string;
  html_url: string;
}

/** Every comment by `author` opening with `marker`, oldest first. */
async function findMarkedComments(
  octokit: Octokit,
  ref: IssueRef,
  marker: string,
  author: string,
): Promise<MarkedComment[]> {
  const found: MarkedComment[] = [];
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: ref.owner,
    repo: ref.repo,
    issue_number: ref.number,
    per_page: 100,
  });
  for await (const page of pages) {
    for (const c of page.data)
      if (authoredBy(c, author) && startsWithMarker(c.body, marker))
        found.push({ id: c.id, body: c.body, html_url: c.html_url });
  }
  return found.sort((a, b) => a.id - b.id);
}
