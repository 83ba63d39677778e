/**
 * The client's branch of the project's error family ({@link SvcError}). Every failure of a platform
 * call is an {@link ApiError} with a stable `code`; secrets are scrubbed when the error is built, never later.
 */
import { SvcError } from "../errors";
import { scrub } from "../scrub";

export { REDACTED, scrub, scrubDeep } from "../scrub";

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
export class ApiError extends SvcError {
  override readonly name = "ApiError";
  override readonly code: ApiErrorCode;
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
    super(init.code, summary ? `${head}: ${summary}` : head, { secrets });
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

  override toJSON(): Record<string, unknown> {
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
