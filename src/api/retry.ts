/** Retry policy: which answers are retried, and how long to wait. Pure, so it is unit-tested. */

export interface RetryOptions {
  /** Total attempts including the first. @default 4 */
  maxAttempts?: number;
  /** First back-off delay. @default 200 */
  baseDelayMs?: number;
  /** Upper bound of one back-off delay. @default 5000 */
  maxDelayMs?: number;
  /** Upper bound of a server's `Retry-After`. @default 60000 */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 60_000,
};

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRY_STATUSES.has(status);
}

/** Connection-level failures worth another attempt: resets, refusals, closed sockets, time-outs. */
export function isRetryableNetworkError(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? "";
  return (
    [
      "ECONNRESET",
      "ECONNREFUSED",
      "EPIPE",
      "ETIMEDOUT",
      "UND_ERR_SOCKET",
      "UND_ERR_CLOSED",
      "UND_ERR_CONNECT_TIMEOUT",
      "UND_ERR_HEADERS_TIMEOUT",
      "UND_ERR_BODY_TIMEOUT",
      "UND_ERR_ABORTED",
      "ABORT_ERR",
      "TimeoutError",
    ].includes(code) || (err as { name?: string })?.name === "TimeoutError"
  );
}

/** Exponential back-off with "equal jitter": half fixed, half random. */
export function backoffDelay(
  attempt: number,
  opts: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds, capped. */
export function parseRetryAfter(
  value: string | undefined | null,
  opts: Required<RetryOptions>,
  now = Date.now(),
): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
  else {
    const t = Date.parse(v);
    if (Number.isNaN(t)) return undefined;
    ms = t - now;
  }
  return Math.max(0, Math.min(ms, opts.maxRetryAfterMs));
}
