/** What a route is and what its handler receives. */
import type { z } from "zod";
import type { Clock } from "./clock";
import { HttpError, fromZodIssues } from "./http-error";
import type { Keys } from "./keys";
import type { RealtimeRuntime } from "./realtime/runtime";
import type { ParsedAuth, Principal, Scope } from "./principal";
import type { Store } from "./store";
import { unauthorized } from "./http-error";

/** Settings and shared services of one running emulator. */
export interface EmulatorEnv {
  store: Store;
  clock: Clock;
  keys: Keys;
  /** Folder of the local object store, one sub-folder per bucket. */
  objectsDir: string;
  /** `http://127.0.0.1:PORT` once listening. */
  origin: string;
  /** Largest accepted canvas import archive, in bytes. @default 10 MiB */
  importMaxBytes: number;
  log: (line: string) => void;
  /** UDF runs: interpreter, time limit, run folders, concurrency. */
  realtime: RealtimeRuntime;
}

export type BodyKind = "json" | "raw" | "multipart" | "none";

export interface RouteDef {
  method: string;
  /** Path below `/v1` (or below the UDF host), with `:name` parameters: `/collection/by-id/:collection_id`. */
  path: string;
  scope: Scope;
  /** How the request body is read. @default "json" for POST/PUT, "none" otherwise */
  body?: BodyKind;
  host?: "api" | "udf" | "internal";
  /**
   * Query parameters that may be given several times (`columns=a&columns=b`). Any other parameter
   * given more than once is refused with 400 before the handler runs, never narrowed to one value.
   * @default []
   */
  repeatable?: readonly string[];
  handler: (ctx: RequestContext) => unknown;
}

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** true: `body` is a Buffer or string sent as is. */
    readonly raw = false,
  ) {}
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Reply(status, body, headers);
export const noContent = () => new Reply(204, undefined, {}, true);
export const bytes = (
  status: number,
  body: Buffer | string,
  contentType: string,
  headers: Record<string, string> = {},
) => new Reply(status, body, { "content-type": contentType, ...headers }, true);
export const redirect = (location: string, status = 307) => new Reply(status, undefined, { location }, true);

/**
 * 400 for the first query parameter given more than once that the route does not take several
 * of: `cell=A&cell=B` is ambiguous, and narrowing it to one value would answer another query.
 */
export function refuseRepeatedParameters(query: URLSearchParams, repeatable: readonly string[] = []): void {
  for (const name of new Set(query.keys())) {
    const count = query.getAll(name).length;
    if (count > 1 && !repeatable.includes(name)) {
      throw new HttpError(
        400,
        `Query parameter ${JSON.stringify(name.slice(0, 64))} was given ${count} times; it takes one value`,
      );
    }
  }
}

export interface UploadedFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface RequestContext {
  env: EmulatorEnv;
  store: Store;
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  auth: ParsedAuth;
  /** The caller, resolved per the route's scope (undefined for public and by-token calls). */
  principal: Principal | undefined;
  /** Raw body bytes ("raw" routes) or the parsed JSON value ("json" routes) or FormData ("multipart"). */
  rawBody: Buffer;
  jsonBody: unknown;
  form: FormData | undefined;
  /** File parts of a multipart body by field name, already read (handlers are synchronous). */
  files: Map<string, UploadedFile>;
  now(): Date;
}

/** The caller, or 401 (for handlers of scopes that guarantee one this never throws). */
export function caller(ctx: RequestContext): Principal {
  if (!ctx.principal) throw unauthorized();
  return ctx.principal;
}

/** Validates the JSON body; 422 with `loc: ["body", ...]` on failure. */
export function parseBody<S extends z.ZodType>(ctx: RequestContext, schema: S): z.infer<S> {
  const input = ctx.jsonBody === undefined ? {} : ctx.jsonBody;
  const r = schema.safeParse(input);
  if (!r.success) throw new HttpError(422, fromZodIssues("body", r.error.issues, input));
  return r.data;
}

/** Validates query parameters (each name's one value, arrays for names given in `arrays`; the server already refused other repeats). */
export function parseQuery<S extends z.ZodType>(ctx: RequestContext, schema: S, arrays: string[] = []): z.infer<S> {
  const input: Record<string, unknown> = {};
  for (const key of new Set(ctx.query.keys()))
    input[key] = arrays.includes(key) ? ctx.query.getAll(key) : ctx.query.get(key);
  const r = schema.safeParse(input);
  if (!r.success) throw new HttpError(422, fromZodIssues("query", r.error.issues, input));
  return r.data;
}

import { z as zod } from "zod";
/** Query-string helpers: integers and booleans arrive as text. */
export const q = {
  int: () => zod.coerce.number().int(),
  bool: () =>
    zod.enum(["true", "false", "1", "0", "True", "False"]).transform((v) => v === "true" || v === "1" || v === "True"),
};
