import { SvcError } from "../errors";
/**
 * Building a request is pure: a route string such as `"GET /collection/by-id/{collection_id}"`
 * plus parameters become a method, URL, headers and body. Sending lives in `transport.ts`.
 */

export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];

/** How a call authenticates. */
export type AuthMode =
  /** The client's credential (Bearer or service token), when it has one. */
  | "default"
  /** No Authorization header ("by token" endpoints: the token in the path authorizes). */
  | "none"
  /** `Authorization: Svc-Canvas-Passcode <passcode>`, replacing other authentication. */
  | { passcode: string };

export type RequestBody = { json: unknown } | { bytes: Uint8Array; contentType?: string } | { form: FormData };

export interface RequestSpec {
  /** Path parameters, substituted into `{name}` placeholders and URL-encoded (slashes included). */
  params?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  body?: RequestBody;
  auth?: AuthMode;
  /** `api` for `{base_url}` (default), `udf` for `{udf_base_url}`. */
  base?: "api" | "udf";
  /** Path parameters whose values are secrets (tokens): never shown in errors. */
  secretParams?: readonly string[];
  /** Query parameters whose values are secrets. */
  secretQuery?: readonly string[];
  /** Further values to scrub from errors (secret values sent in the body). */
  secrets?: readonly string[];
  /** Overrides the client's per-request timeout. */
  timeoutMs?: number;
}

export interface Credentials {
  token?: string;
  serviceToken?: string;
}

export interface BuiltRequest {
  method: string;
  url: string;
  /** The path as it may appear in errors and logs: secret parameters left as `{name}`. */
  displayPath: string;
  headers: Record<string, string>;
  body?: Uint8Array | string | FormData;
  idempotent: boolean;
  /** Every secret this request carries, for scrubbing. */
  secrets: string[];
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** Splits `"GET /a/{b}"` into method and path template. */
export function parseRoute(route: string): { method: string; template: string } {
  const m = /^([A-Z]+) (\/\S*)$/.exec(route);
  if (!m)
    throw new SvcError("route_invalid", `Invalid route "${route}". A route must be in the format "METHOD /path".`);
  return { method: m[1], template: m[2] };
}

/** Substitutes path parameters; `display` keeps secret ones as `{name}`. */
export function expandPath(
  template: string,
  params: Record<string, string | number> = {},
  secretParams: readonly string[] = [],
): { path: string; display: string } {
  const missing: string[] = [];
  const sub = (hide: boolean) =>
    template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = params[name];
      if (v === undefined || v === "") {
        missing.push(name);
        return "";
      }
      return hide && secretParams.includes(name) ? `{${name}}` : encodeURIComponent(String(v));
    });
  const path = sub(false);
  if (missing.length)
    throw new SvcError(
      "route_invalid",
      `Missing path parameter(s) ${[...new Set(missing)].join(", ")} for "${template}".`,
    );
  return { path, display: sub(true) };
}

/** Encodes query parameters in a stable order; arrays repeat the name; undefined and null are left out. */
export function encodeQuery(query: Record<string, QueryValue> = {}): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(item))}`);
  }
  return parts.length ? `?${parts.join("&")}` : "";
}

/** Joins a base URL (which may carry a path such as `/server/v1`) and a path. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + path;
}

export function buildRequest(
  route: string,
  spec: RequestSpec,
  ctx: { baseUrl: string; udfBaseUrl?: string; credentials: Credentials; userAgent?: string },
): BuiltRequest {
  const { method, template } = parseRoute(route);
  const { path, display } = expandPath(template, spec.params, spec.secretParams);
  const secrets: string[] = [];
  for (const name of spec.secretParams ?? []) {
    const v = spec.params?.[name];
    if (v !== undefined) secrets.push(String(v));
  }
  for (const name of spec.secretQuery ?? []) {
    const v = spec.query?.[name];
    if (typeof v === "string") secrets.push(v);
  }
  secrets.push(...(spec.secrets ?? []));
  if (ctx.credentials.token) secrets.push(ctx.credentials.token);
  if (ctx.credentials.serviceToken) secrets.push(ctx.credentials.serviceToken);

  const base = spec.base === "udf" ? ctx.udfBaseUrl : ctx.baseUrl;
  if (!base)
    throw new SvcError(
      "no_platform",
      `No ${spec.base === "udf" ? "udfBaseUrl" : "baseUrl"} configured for "${route}".`,
    );
  const query = encodeQuery(spec.query);
  const displayQuery = encodeQuery(
    Object.fromEntries(
      Object.entries(spec.query ?? {}).map(([k, v]) => [k, spec.secretQuery?.includes(k) && v != null ? `{${k}}` : v]),
    ),
  );

  const headers: Record<string, string> = { accept: "application/json" };
  if (ctx.userAgent) headers["user-agent"] = ctx.userAgent;
  const auth = spec.auth ?? "default";
  if (auth === "default") {
    if (ctx.credentials.token) headers.authorization = `Bearer ${ctx.credentials.token}`;
    else if (ctx.credentials.serviceToken) headers.authorization = `Svc-Service-Token ${ctx.credentials.serviceToken}`;
  } else if (auth !== "none") {
    headers.authorization = `Svc-Canvas-Passcode ${auth.passcode}`;
    secrets.push(auth.passcode);
  }

  let body: BuiltRequest["body"];
  if (spec.body && "json" in spec.body) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(spec.body.json);
  } else if (spec.body && "bytes" in spec.body) {
    headers["content-type"] = spec.body.contentType ?? "application/octet-stream";
    body = spec.body.bytes;
  } else if (spec.body && "form" in spec.body) {
    body = spec.body.form; // the transport sets the multipart boundary
  }

  return {
    method,
    url: joinUrl(base, path) + query,
    displayPath: display + displayQuery,
    headers,
    body,
    idempotent: IDEMPOTENT.has(method),
    secrets,
  };
}
