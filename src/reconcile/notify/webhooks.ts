/**
 * Notifications: svc.yaml's `notify:` lists webhooks, each with the environment variable holding
 * its URL (never the file) and the events it wants. Each event is one small JSON document (see
 * {@link NotifyPayload}) with a `text` field, which chat webhooks (Slack, Mattermost, Google Chat,
 * Teams workflows) accept as it is. Bounded: 10 s per attempt, two retries; a webhook that fails
 * is named in a warning (never its URL) and the command goes on with its own exit code.
 *
 * Folder `notify/`: the webhooks of `notify:`. May import `src/model`, `src/scrub` and the
 * error family; nothing of the engine.
 */
import type { NotifyEvent, NotifyTarget } from "../../model/desired";
import { scrubDeep } from "../../scrub";

/** What an event says, before it is sent. */
export interface NotifyMessage {
  event: NotifyEvent;
  project: string;
  target: string;
  /** One line for people: what happened. */
  summary: string;
  /** Counts by what they count (`restored`, `changed`, `failed` ...). */
  counts: Record<string, number>;
  /** The objects concerned, by address. */
  addresses: string[];
}

/**
 * The document POSTed (`Content-Type: application/json`), version 1. `text` is the summary with
 * the project and target, for chat webhooks; the rest is for programs. At most
 * {@link MAX_ADDRESSES} addresses (`addresses_total` says how many there were).
 */
export interface NotifyPayload {
  text: string;
  version: 1;
  source: "svc-iac";
  event: NotifyEvent;
  project: string;
  target: string;
  counts: Record<string, number>;
  addresses: string[];
  addresses_total: number;
  /** The CI run that sent it, when known (GitHub Actions: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`). */
  run_url?: string;
}

export const MAX_ADDRESSES = 50;

/** How webhooks are called; tests shorten the times. */
export interface WebhookOptions {
  /** Per attempt. @default 10000 */
  timeoutMs?: number;
  /** Attempts after the first. @default 2 */
  retries?: number;
  /** Wait before a retry (times the attempt number). @default 1000 */
  retryDelayMs?: number;
}

export interface NotifyContext {
  targets: readonly NotifyTarget[];
  env: Record<string, string | undefined>;
  /** Values never sent (secret values, tokens): scrubbed from the document. */
  secrets: readonly string[];
  log?: (line: string) => void;
  options?: WebhookOptions;
}

/** The CI run's address, when the environment tells it (GitHub Actions). */
export function runUrlOf(env: Record<string, string | undefined>): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  if (
    !server ||
    !repo ||
    !run ||
    !/^https?:\/\/[^\s]+$/.test(server) ||
    !/^[\w.-]+\/[\w.-]+$/.test(repo) ||
    !/^\d+$/.test(run)
  )
    return undefined;
  return `${server.replace(/\/+$/, "")}/${repo}/actions/runs/${run}`;
}

export function payloadOf(message: NotifyMessage, env: Record<string, string | undefined>): NotifyPayload {
  const runUrl = runUrlOf(env);
  const shown = message.addresses.slice(0, 10).join(", ");
  const more = message.addresses.length > 10 ? ` and ${message.addresses.length - 10} more` : "";
  return {
    text: `svc-iac ${message.project} (${message.target}): ${message.summary}${shown ? ` ${shown}${more}.` : ""}${runUrl ? ` ${runUrl}` : ""}`,
    version: 1,
    source: "svc-iac",
    event: message.event,
    project: message.project,
    target: message.target,
    counts: message.counts,
    addresses: message.addresses.slice(0, MAX_ADDRESSES),
    addresses_total: message.addresses.length,
    ...(runUrl ? { run_url: runUrl } : {}),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One POST; the reason it failed (no URL in it), or undefined when the webhook took it (2xx). */
async function post(url: string, body: string, timeoutMs: number): Promise<{ failed?: string; retry: boolean }> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "svc-iac" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { retry: false };
    return { failed: `HTTP ${res.status}`, retry: res.status === 429 || res.status >= 500 };
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError")
      return { failed: `no answer within ${timeoutMs / 1000} s`, retry: true };
    const code = ((e as { cause?: { code?: unknown } })?.cause?.code ?? "") as string;
    return { failed: `not reachable${/^[A-Z_]+$/.test(code) ? ` (${code})` : ""}`, retry: true };
  }
}

/**
 * Sends `message` to every target that asked for its event; never throws, never names a URL.
 * Returns the names of the webhooks that took it (for tests and logs).
 */
export async function notify(ctx: NotifyContext, message: NotifyMessage): Promise<string[]> {
  const wanted = ctx.targets.filter((t) => t.events.includes(message.event));
  if (!wanted.length) return [];
  const timeoutMs = ctx.options?.timeoutMs ?? 10_000;
  const retries = ctx.options?.retries ?? 2;
  const delay = ctx.options?.retryDelayMs ?? 1000;
  const payload = payloadOf(message, ctx.env);
  const body = JSON.stringify(scrubDeep(payload, [...ctx.secrets]));
  const sent = await Promise.all(
    wanted.map(async (t) => {
      const url = ctx.env[t.urlEnv];
      if (!url || !/^https?:\/\//i.test(url)) {
        ctx.log?.(
          `Notification ${message.event} not sent to ${t.name}: ${url ? `${t.urlEnv} does not hold an http(s) URL` : `${t.urlEnv} is not set`}.`,
        );
        return undefined;
      }
      let last = "";
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (attempt) await sleep(delay * attempt);
        const r = await post(url, body, timeoutMs);
        if (!r.failed) return t.name;
        last = r.failed;
        if (!r.retry) break;
      }
      ctx.log?.(`Notification ${message.event} not sent to ${t.name} (${t.urlEnv}): ${last}; going on.`);
      return undefined;
    }),
  );
  return sent.filter((n): n is string => !!n);
}
