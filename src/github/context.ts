/**
 * What the Actions runner tells a step through its environment: the repository, API and server
 * URLs, the run, the event (and from its payload the pull request), and the files for the job
 * summary and step outputs. Read once, into plain data.
 */
import { readFile } from "node:fs/promises";
import { SvcError } from "../errors";

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface ActionContext {
  /** `GITHUB_REPOSITORY` split; absent outside Actions. */
  repository?: RepoRef;
  /** REST API root (`GITHUB_API_URL`; GitHub Enterprise and tests set it). @default "https://api.github.com" */
  apiUrl: string;
  /** Web root (`GITHUB_SERVER_URL`). @default "https://github.com" */
  serverUrl: string;
  runId?: string;
  /** `${serverUrl}/${owner}/${repo}/actions/runs/${runId}`: where the run's artifacts are listed. */
  runUrl?: string;
  /** `pull_request`, `push`, `schedule`, … */
  eventName?: string;
  /** The pull request of a `pull_request` / `pull_request_target` event. */
  pullRequest?: { number: number; headSha?: string; baseSha?: string };
  /** A push's previous head (`before` in the payload; all zeros for a new branch). */
  before?: string;
  /** `GITHUB_SHA`. */
  sha?: string;
  /** The branch of `GITHUB_REF` (`refs/heads/<branch>`); undefined for a tag or a pull request's merge ref. */
  branch?: string;
  /** `GITHUB_STEP_SUMMARY`. */
  stepSummaryFile?: string;
  /** `GITHUB_OUTPUT`. */
  outputFile?: string;
  /** `GITHUB_WORKSPACE`: the checkout's root, which annotation paths are relative to. */
  workspace?: string;
}

const PULL_REQUEST_EVENTS = new Set(["pull_request", "pull_request_target"]);

/** Reads the context from the runner's environment variables (and the event payload file they name). */
export async function readActionContext(env: Record<string, string | undefined>): Promise<ActionContext> {
  const repository = splitRepository(env.GITHUB_REPOSITORY);
  const serverUrl = trimSlash(env.GITHUB_SERVER_URL || "https://github.com");
  const runId = env.GITHUB_RUN_ID || undefined;
  const eventName = env.GITHUB_EVENT_NAME || undefined;
  return {
    repository,
    apiUrl: trimSlash(env.GITHUB_API_URL || "https://api.github.com"),
    serverUrl,
    runId,
    runUrl:
      repository && runId ? `${serverUrl}/${repository.owner}/${repository.repo}/actions/runs/${runId}` : undefined,
    eventName,
    pullRequest:
      eventName && PULL_REQUEST_EVENTS.has(eventName) ? await readPullRequest(env.GITHUB_EVENT_PATH) : undefined,
    before: eventName === "push" ? await readPushBefore(env.GITHUB_EVENT_PATH) : undefined,
    sha: env.GITHUB_SHA || undefined,
    branch: env.GITHUB_REF?.startsWith("refs/heads/") ? env.GITHUB_REF.slice("refs/heads/".length) : undefined,
    stepSummaryFile: env.GITHUB_STEP_SUMMARY || undefined,
    outputFile: env.GITHUB_OUTPUT || undefined,
    workspace: env.GITHUB_WORKSPACE || undefined,
  };
}

/** `acme/infra` → `{ owner: "acme", repo: "infra" }`; undefined for anything else. */
export function splitRepository(s: string | undefined): RepoRef | undefined {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec((s ?? "").trim());
  return m ? { owner: m[1], repo: m[2] } : undefined;
}

async function readPullRequest(eventPath: string | undefined): Promise<ActionContext["pullRequest"]> {
  if (!eventPath) return undefined;
  let payload: {
    pull_request?: { number?: unknown; head?: { sha?: unknown }; base?: { sha?: unknown } };
    number?: unknown;
  };
  try {
    payload = JSON.parse(await readFile(eventPath, "utf8"));
  } catch (err) {
    throw new SvcError(
      "event_payload_unreadable",
      `Could not read the event payload at GITHUB_EVENT_PATH "${eventPath}": ${(err as Error).message}`,
    );
  }
  const number = payload.pull_request?.number ?? payload.number;
  if (typeof number !== "number") return undefined;
  const headSha = payload.pull_request?.head?.sha;
  const baseSha = payload.pull_request?.base?.sha;
  return {
    number,
    headSha: typeof headSha === "string" ? headSha : undefined,
    baseSha: typeof baseSha === "string" ? baseSha : undefined,
  };
}

/** A push event's `before`: the branch's head before the push. */
async function readPushBefore(eventPath: string | undefined): Promise<string | undefined> {
  if (!eventPath) return undefined;
  try {
    const before = (JSON.parse(await readFile(eventPath, "utf8")) as { before?: unknown }).before;
    return typeof before === "string" && /^[0-9a-f]{7,64}$/.test(before) ? before : undefined;
  } catch {
    return undefined;
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
