/**
 * Who the GitHub token is. svc-iac edits, closes and deletes only what this identity wrote: a
 * comment or issue that merely carries our hidden marker may have been planted by anyone who can
 * comment, and must not make us rewrite or delete it.
 */
import type { Octokit } from "@octokit/rest";

/** The author of what the workflow's `GITHUB_TOKEN` writes. */
export const WORKFLOW_TOKEN_LOGIN = "github-actions[bot]";

/**
 * The login of the token's identity: `GET /user` for user tokens. Installation tokens, the
 * workflow's `GITHUB_TOKEN` among them, cannot call it (403 "Resource not accessible by
 * integration"): they are taken to be the workflow token, whose writes GitHub attributes to
 * `github-actions[bot]`. Any other failure is thrown.
 */
export async function tokenLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (e) {
    if ((e as { status?: unknown })?.status === 403) return WORKFLOW_TOKEN_LOGIN;
    throw e;
  }
}

/** True when a comment or issue (as the REST API returns it) was written by `login`. */
export function authoredBy(item: { user?: { login?: string } | null }, login: string): boolean {
  return item.user?.login === login;
}
