/**
 * Sending requests: an undici keep-alive pool per origin, per-request time-outs, retries for
 * idempotent calls, and conversion of every failure into an {@link ApiError}.
 */
import type { Dispatcher } from "undici";

let undici: typeof import("undici") | undefined;

/**
 * undici, loaded by the first client rather than by `require("svc-iac")`: it is most of the load
 * time. Kept once loaded: `require` resolves its name again at every call (microseconds a request).
 */
export function loadUndici(): typeof import("undici") {
  return (undici ??= require("undici"));
}

let agentClass: typeof import("undici").Agent | undefined;

/**
 * undici's Agent alone, which is all a client needs: the package's index also loads fetch,
 * WebSocket, the caches and the mocks, about twice the CPU time at every start (200 against 90
 * ms). The same class as `require("undici").Agent` (one module), which is used should a later
 * undici move the file.
 */
function loadAgent(): typeof import("undici").Agent {
  if (!agentClass) {
    try {
      agentClass = require("undici/lib/dispatcher/agent") as typeof import("undici").Agent;
    } catch {
      agentClass = loadUndici().Agent;
    }
  }
  return agentClass;
}
import type { z } from "zod";
import { ApiError, codeForStatus, parseErrorDetail } from "./errors";
import { PLAIN_CHECKS } from "./schemas";
import { buildRequest, type BuiltRequest, type Credentials, type RequestSpec } from "./request";
import {
  DEFAULT_RETRY,
  backoffDelay,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
  type RetryOptions,
} from "./retry";

export interface TransportOptions extends Credentials {
  /** `{base_url}`, already including `v1`, e.g. `https://host/server/v1`. */
  baseUrl: string;
  /** `{udf_base_url}`, the separate origin that serves shared canvases. */
  udfBaseUrl?: string;
  /** Per-request time-out. @default 30000 */
  timeoutMs?: number;
  /** Keep-alive connections per origin. @default 16 */
  connections?: number;
  retry?: RetryOptions;
  userAgent?: string;
  /** An undici dispatcher to use instead of the client's own pool (tests, proxies). */
  dispatcher?: Dispatcher;
  /** Called before each retry, with the scrubbed path; for logs and progress displays. */
  onRetry?: (info: { method: string; path: string; attempt: number; delayMs: number; reason: string }) => void;
  /** Called before each attempt is sent, with the scrubbed path (request counters, traces). */
  onRequest?: (info: { method: string; path: string; attempt: number }) => void;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface CallSpec extends RequestSpec {
  /** Allows retries of a POST whose replay is harmless (an update to a fixed state). */
  idempotent?: boolean;
  /** Statuses that are answers rather than errors (e.g. 307 for `/files/get`). */
  okStatuses?: readonly number[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Transport {
  readonly options: TransportOptions;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly retry: Required<RetryOptions>;

  constructor(options: TransportOptions) {
    this.options = options;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher =
      options.dispatcher ??
      new (loadAgent())({ connections: options.connections ?? 16, keepAliveTimeout: 10_000, pipelining: 1 });
  }

  /** Sends a request and returns the raw answer; non-success statuses throw {@link ApiError}. */
  async send(route: string, spec: CallSpec = {}): Promise<RawResponse> {
    const req = buildRequest(route, spec, {
      baseUrl: this.options.baseUrl,
      udfBaseUrl: this.options.udfBaseUrl,
      credentials: { token: this.options.token, serviceToken: this.options.serviceToken },
      userAgent: this.options.userAgent ?? "svc-iac",
    });
    const idempotent = spec.idempotent ?? req.idempotent;
    const ok = (s: number) => (s >= 200 && s < 300) || (spec.okStatuses?.includes(s) ?? false);
    let attempt = 0;
    for (;;) {
      attempt++;
      this.options.onRequest?.({ method: req.method, path: req.displayPath, attempt });
      let res: RawResponse;
      try {
        res = await this.once(req, spec.timeoutMs ?? this.options.timeoutMs ?? 30_000);
      } catch (err) {
        const timedOut = isTimeout(err);
        // A refused connection sent nothing, so even a POST may try again.
        const safe = idempotent || (err as { code?: string })?.code === "ECONNREFUSED";
        if (safe && isRetryableNetworkError(err) && attempt < this.retry.maxAttempts) {
          await this.pause(req, attempt, backoffDelay(attempt, this.retry), timedOut ? "timeout" : "network");
          continue;
        }
        throw new ApiError({
          code: timedOut ? "timeout" : "network",
          method: req.method,
          path: req.displayPath,
          message: timedOut
            ? `no answer from ${originOf(req.url)} within ${spec.timeoutMs ?? this.options.timeoutMs ?? 30_000} ms`
            : connectionFailure(req.url, err),
          attempts: attempt,
          cause: err,
          secrets: req.secrets,
        });
      }
      if (ok(res.status)) return res;
      const retryAfterMs = parseRetryAfter(res.headers["retry-after"], this.retry);
      if (idempotent && isRetryableStatus(res.status) && attempt < this.retry.maxAttempts) {
        await this.pause(req, attempt, retryAfterMs ?? backoffDelay(attempt, this.retry), `status ${res.status}`);
        continue;
      }
      throw new ApiError({
        code: codeForStatus(res.status),
        status: res.status,
        method: req.method,
        path: req.displayPath,
        detail: parseErrorDetail(parseBody(res)),
        retryAfterMs,
        attempts: attempt,
        secrets: req.secrets,
      });
    }
  }

  /** Sends a request and parses its JSON answer with `schema` (tolerant of unknown fields). */
  async json<S extends z.ZodType>(route: string, spec: CallSpec, schema: S): Promise<z.infer<S>> {
    const res = await this.send(route, spec);
    return this.parse(route, spec, res, schema);
  }

  /** Validates a JSON answer against a schema; a mismatch is an `unexpected_response` error. */
  parse<S extends z.ZodType>(route: string, spec: CallSpec, res: RawResponse, schema: S): z.infer<S> {
    const body = parseBody(res);
    // A plainly valid answer of a schema with a hand check is used as parsed (the same data).
    if (PLAIN_CHECKS.get(schema)?.(body)) return body as z.infer<S>;
    const result = schema.safeParse(body);
    if (result.success) return result.data;
    const req = buildRequest(route, spec, {
      baseUrl: this.options.baseUrl,
      udfBaseUrl: this.options.udfBaseUrl,
      credentials: { token: this.options.token, serviceToken: this.options.serviceToken },
    });
    throw new ApiError({
      code: "unexpected_response",
      status: res.status,
      method: req.method,
      path: req.displayPath,
      message: `the answer does not match the spec: ${result.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")}`,
      secrets: req.secrets,
    });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async pause(req: BuiltRequest, attempt: number, delayMs: number, reason: string): Promise<void> {
    this.options.onRetry?.({ method: req.method, path: req.displayPath, attempt, delayMs, reason });
    await sleep(delayMs);
  }

  /**
   * One attempt, through the dispatcher's handler interface: the answer is gathered into one
   * buffer as it comes, with one timer for the whole exchange (see {@link AnswerCollector}).
   */
  private async once(req: BuiltRequest, timeoutMs: number): Promise<RawResponse> {
    let body: Uint8Array | string | undefined;
    let headers = req.headers;
    // A text or absent body is never FormData: the global is not touched then (it loads Node's own copy of undici).
    if (req.body !== undefined && typeof req.body !== "string" && req.body instanceof FormData) {
      // Let the platform's own Request encode the multipart body and its boundary.
      const encoded = new Request("http://multipart.invalid/", { method: "POST", body: req.body });
      headers = { ...headers, "content-type": encoded.headers.get("content-type") ?? "multipart/form-data" };
      body = new Uint8Array(await encoded.arrayBuffer());
    } else body = req.body;
    const url = new URL(req.url);
    return new Promise<RawResponse>((resolve, reject) => {
      const answer = new AnswerCollector(resolve, reject, timeoutMs);
      try {
        this.dispatcher.dispatch(
          {
            origin: url.origin,
            path: url.pathname + url.search,
            method: req.method as Dispatcher.HttpMethod,
            headers,
            body,
          },
          answer,
        );
      } catch (e) {
        answer.onResponseError(undefined, e as Error);
      }
    });
  }
}

/**
 * Gathers one answer from undici's dispatch handler calls: status, headers and the body's chunks,
 * settled once. The time-out covers the whole exchange, from the dispatch to the last byte of the
 * body (a server that trickles its answer is cut off as one that never answers): a plain timer,
 * cleared when the answer is complete, where `AbortSignal.timeout` kept a timer, a weak reference
 * and an abort listener alive per request for the whole time-out. A request still waiting for a
 * connection when its time is up fails at once and is never sent.
 */
class AnswerCollector implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private readonly timer: ReturnType<typeof setTimeout>;
  private settled = false;
  private timedOut: Error | undefined;

  constructor(
    private readonly resolve: (res: RawResponse) => void,
    private readonly reject: (err: unknown) => void,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.timeOut(), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.timedOut) controller.abort(this.timedOut);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers (100 Continue) are not the answer.
    if (statusCode < 200) return;
    this.status = statusCode;
    const flat: Record<string, string> = {};
    for (const k in headers) {
      const v = headers[k];
      if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(", ") : v;
    }
    this.headers = flat;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settle())
      this.resolve({
        status: this.status,
        headers: this.headers,
        body: this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks),
      });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settle()) this.reject(err);
  }

  private timeOut(): void {
    // The reason `AbortSignal.timeout` gives: a DOMException named TimeoutError.
    this.timedOut = new DOMException("The operation was aborted due to timeout", "TimeoutError");
    if (this.controller) this.controller.abort(this.timedOut);
    // Aborted before it started (or the abort did not call back): fail now; `onRequestStart` aborts it if it ever starts.
    this.onResponseError(undefined, this.timedOut);
  }

  /** True the first time: the answer or the failure is handed over once. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }
}

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return e?.name === "TimeoutError" || e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT";
}

/** Parses a body as JSON when it is JSON, else returns its text (or null when empty). */
export function parseBody(res: RawResponse): unknown {
  if (res.body.length === 0) return null;
  const text = res.body.toString("utf8");
  const ct = res.headers["content-type"] ?? "";
  if (ct.includes("json") || /^[\s]*[[{"]/.test(text) || /^(true|false|null|-?\d)/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Scheme, host and port of a request URL: never its path, query or user info (which may hold a token). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "the platform";
  }
}

/** Why a connection failed, naming where it went: a refused one is most often a wrong or unstarted address. */
function connectionFailure(url: string, err: unknown): string {
  const code = (err as { code?: string })?.code;
  const where = originOf(url);
  if (code === "ECONNREFUSED")
    return `connection to ${where} refused (ECONNREFUSED): nothing answers there; check the address (SVC_BASE_URL or the target's base_url) and that the platform is up`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `connection to ${where} failed (${code}): the host name does not resolve; check the address (SVC_BASE_URL or the target's base_url)`;
  return `connection to ${where} failed (${code ?? (err as Error)?.message})`;
}
