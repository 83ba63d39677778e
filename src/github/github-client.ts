/**
 * The Octokit client the action uses: pointed at `GITHUB_API_URL` (GitHub Enterprise, or a test
 * server), no retries or throttling plugins (a failed GitHub write is reported, never repeated
 * blindly), and Octokit's own warnings routed through the redactor to stderr.
 */
import type { Octokit } from "@octokit/rest";

export interface GithubClientOptions {
  token: string;
  /** REST API root. */
  baseUrl: string;
  /** Where Octokit's warnings and errors go (already redacted by the caller's writer). */
  warn: (line: string) => void;
}

/** A REST client authenticated with `token`. */
export function createGithubClient(opts: GithubClientOptions): Octokit {
  // Loaded here: a run that writes nothing to GitHub (no comment, issue or secret) never needs it.
  const { Octokit: Client }: typeof import("@octokit/rest") = require("@octokit/rest");
  return new Client({
    auth: opts.token,
    baseUrl: opts.baseUrl,
    userAgent: "svc-iac",
    log: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => opts.warn(`GitHub API: ${message}`),
      error: (message: string) => opts.warn(`GitHub API: ${message}`),
    },
  });
}
