/**
 * The one error family of the client. Every failure of a platform call is an {@link ApiError}
 * with a stable `code`; secrets are scrubbed when the error is built, never later.
 */

/** Stable error codes, one per kind of failure a caller may branch on. */
export type ApiErrorCode =
  | "bad_request" // 400
  | "unauthorized" // 401
  | "forbidden" // 403
  | "not_found" // 404
  | "conflict" // 409
  | "payload_too_large" // 413
  | "validation_failed" // 422
  | "rate_limited" // 429
  | "server_error" // 5xx
  | "http_error" // any other non-success status
  | "timeout" // no answer within the per-request timeout
  | "network" // connection refused, reset or closed
  | "unexpected_response"; // a success answer whose body does not match the spec

/** One entry of a validation error body: `{detail: [{loc, msg, type}]}`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The parsed `detail` of an error body: a validation list or a message. */
export type ErrorDetail = ValidationIssue[] | string | null;

const CODE_BY_STATUS: Record<number, ApiErrorCode> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  422: "validation_failed",
  429: "rate_limited",
};

export function codeForStatus(status: number): ApiErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? "server_error" : "http_error");
}

export const REDACTED = "[REDACTED]";

/** Replaces every occurrence of each secret in `text` (longest first, so overlaps are covered). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length)) {
    if (out.includes(s)) out = out.split(s).join(REDACTED);
    const enc = encodeURIComponent(s);
    if (enc !== s && out.includes(enc)) out = out.split(enc).join(REDACTED);
  }
  return out;
}

/**
 * `value` with {@link scrub} applied to every string of its plain data (objects, arrays, strings),
 * keys included; other values (class instances, functions) are kept as they are. For results that
 * carry text from the repository, such as a UDF's code holding a secret value pasted into it.
 * Only what holds a secret is copied: without one, `value` itself is returned (an apply's result of
 * 10,000 creates was copied whole, 130 to 150 ms, on every run, since the token is a secret too).
 */
export function scrubDeep<T>(value: T, secrets: readonly string[]): T {
  const live = secrets.filter((x) => x.length >= 4);
  if (!live.length) return value;
  // What scrub replaces: each secret and its URL-encoded form.
  const forms = [...new Set(live.flatMap((x) => [x, encodeURIComponent(x)]))];
  const clean = (text: string) => (forms.some((f) => text.includes(f)) ? scrub(text, live) : text);
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return clean(v);
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x = walk(v[i]);
        if (x !== v[i] && !out) out = v.slice(0, i);
        out?.push(x);
      }
      return out ?? v;
    }
    if (v === null || typeof v !== "object") return v;
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const key = clean(k);
      const x = walk(o[k]);
      if (!copy && (key !== k || x !== o[k])) {
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]!] = o[keys[j]!];
      }
      if (copy) copy[key] = x;
    }
    return copy ?? v;
  };
  return walk(value) as T;
}

function scrubDetail(detail: ErrorDetail, secrets: readonly string[]): ErrorDetail {
  if (detail === null) return null;
  if (typeof detail === "string") return scrub(detail, secrets);
  return detail.map((d) => ({
    loc: d.loc.map((l) => (typeof l === "string" ? scrub(l, secrets) : l)),
    msg: scrub(d.msg, secrets),
    type: d.type,
  }));
}

export interface ApiErrorInit {
  code: ApiErrorCode;
  status?: number;
  method: string;
  /** The request path with secret path parameters already replaced by their `{name}`. */
  path: string;
  detail?: ErrorDetail;
  message?: string;
  retryAfterMs?: number;
  attempts?: number;
  cause?: unknown;
  /** Values that must not appear in the error (tokens, passcodes, secret values). */
  secrets?: readonly string[];
}

/**
 * A failed platform call. `status` is the HTTP status (0 when no answer arrived), `path` never holds
 * a token, `detail` is the parsed error body. Message and detail are scrubbed of every secret the
 * client knows at construction.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly detail: ErrorDetail;
  readonly retryAfterMs: number | undefined;
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const secrets = init.secrets ?? [];
    const detail = scrubDetail(init.detail ?? null, secrets);
    const path = scrub(init.path, secrets);
    const summary = init.message ?? describeDetail(detail);
    const status = init.status ?? 0;
    const head = status ? `${init.method} ${path} failed with ${status}` : `${init.method} ${path} failed`;
    super(scrub(summary ? `${head}: ${summary}` : head, secrets));
    this.code = init.code;
    this.status = status;
    this.method = init.method;
    this.path = path;
    this.detail = detail;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts ?? 1;
    if (init.cause !== undefined) {
      // Keep the cause's kind and message for debugging, never its object (it may hold headers).
      const c = init.cause as { code?: string; name?: string; message?: string };
      Object.defineProperty(this, "cause", {
        value: { name: c?.name, code: c?.code, message: scrub(String(c?.message ?? c), secrets) },
        enumerable: false,
      });
    }
  }

  /** True when the call may succeed if sent again (rate limits, 5xx, time-outs, dropped connections). */
  get retryable(): boolean {
    return ["rate_limited", "timeout", "network"].includes(this.code) || [502, 503, 504].includes(this.status);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      method: this.method,
      path: this.path,
      detail: this.detail,
      message: this.message,
    };
  }
}

function describeDetail(detail: ErrorDetail): string {
  if (detail === null) return "";
  if (typeof detail === "string") return detail;
  return detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ");
}

/** True when `e` is an {@link ApiError}, optionally of the given code. */
export function isApiError(e: unknown, code?: ApiErrorCode): e is ApiError {
  return e instanceof ApiError && (code === undefined || e.code === code);
}

/** Parses an error body as the spec defines it (`{detail: string | ValidationIssue[]}`). */
export function parseErrorDetail(body: unknown): ErrorDetail {
  if (body && typeof body === "object" && "detail" in body) {
    const d = (body as { detail: unknown }).detail;
    if (typeof d === "string") return d;
    if (Array.isArray(d)) {
      return d.map((x) => ({
        loc: Array.isArray(x?.loc) ? x.loc : [],
        msg: typeof x?.msg === "string" ? x.msg : JSON.stringify(x),
        type: typeof x?.type === "string" ? x.type : "unknown",
      }));
    }
  }
  if (typeof body === "string" && body) return body.slice(0, 500);
  return null;
}
