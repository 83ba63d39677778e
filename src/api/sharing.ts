/**
 * Spec 4.7 sharing (share, unshare, read by canvas token), 4.9 per-UDF shared tokens, and the
 * OpenAPI description of a shared canvas on `{udf_base_url}`. Canvas tokens, session tokens,
 * `fsh_` tokens and passcodes are sent as secrets: they never appear in an error's path or message.
 */
import { z } from "zod";
import { Canvas, Udf } from "./schemas";
import { RUN_TIMEOUT_MS, runResult, type RunResult, type RunTimeout, type Tile } from "./realtime";
import type { AuthMode, QueryValue } from "./request";
import type { Transport } from "./transport";

/** A UDF as returned by the by-token canvas reader: its metadata carries a per-UDF shared token. */
export const SharedCanvasUdf = Udf.extend({ metadata: z.looseObject({ shared_token: z.string() }) });
export type SharedCanvasUdf = z.infer<typeof SharedCanvasUdf>;

/** A shared canvas read by its token (`GET /collection/by-token/{canvas_token}`). */
export const SharedCanvas = Canvas.extend({ udfs: z.array(SharedCanvasUdf) });
export type SharedCanvas = z.infer<typeof SharedCanvas>;

/** The OpenAPI 3 document describing a shared canvas's UDFs as endpoints (loosely checked). */
export const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })).optional(),
  paths: z.record(z.string(), z.looseObject({})),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

export interface ShareInput {
  collectionId: string;
  /** Real-time instance the shared UDFs run on; required on first share (else 400). */
  clientId?: string;
  /** Rotate the canvas token: the previous token (and its session tokens) stop working at once. */
  newToken?: boolean;
}

/** How a by-token reader proves access beyond the canvas token. */
export interface TokenAccess {
  /** The canvas passcode, sent as `Authorization: Svc-Canvas-Passcode <passcode>`. */
  passcode?: string;
  /** A session token (4.1) for a team-only canvas, sent as `svc_session_token`. */
  sessionToken?: string;
}

/** A run of a shared UDF on `{udf_base_url}`. */
export interface SharedRunInput extends TokenAccess, RunTimeout {
  /** The entrypoint's parameters, sent in the query; arrays and objects as JSON text. */
  parameters?: Record<string, unknown>;
  /** `json` (default) or `csv`. */
  format?: string;
  /** Run for one web-mercator tile (`.../tiles/{z}/{x}/{y}`). */
  tile?: Tile;
  /** Maximum age, in seconds, of a cached result that may be reused. */
  cacheMaxAge?: number;
}

function sharedRunQuery(input: SharedRunInput): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(input.parameters ?? {}))
    query[k] = v !== null && typeof v === "object" ? JSON.stringify(v) : (v as QueryValue);
  return { ...query, format: input.format, cache_max_age: input.cacheMaxAge, svc_session_token: input.sessionToken };
}

function tokenRequest(canvasToken: string, access: TokenAccess) {
  const auth: AuthMode = access.passcode !== undefined ? { passcode: access.passcode } : "none";
  return {
    params: { canvas_token: canvasToken },
    query: { svc_session_token: access.sessionToken },
    auth,
    secretParams: ["canvas_token"],
    secretQuery: ["svc_session_token"],
  } as const;
}

export function sharingApi(t: Transport) {
  return {
    /**
     * `POST /collection/share`: shares a canvas (user or service credentials). The first share
     * needs `clientId` (400 otherwise) and mints the canvas token; later shares keep the token
     * unless `newToken` is true, and may change the instance. 404 when the canvas or the
     * instance is not the caller team's. Returns the full canvas with `share_token` set.
     */
    share: (input: ShareInput) =>
      t.json(
        "POST /collection/share",
        {
          query: { collection_id: input.collectionId, client_id: input.clientId, new_token: input.newToken },
          // Replaying a share that keeps the token is harmless; a rotation is not repeated.
          idempotent: !input.newToken,
        },
        Canvas,
      ),

    /**
     * `POST /collection/unshare`: clears the canvas token and instance and revokes the canvas's
     * session tokens. 404 when the canvas is not the caller team's. Returns the canvas.
     */
    unshare: (collectionId: string) =>
      t.json("POST /collection/unshare", { query: { collection_id: collectionId }, idempotent: true }, Canvas),

    /**
     * `GET /collection/by-token/{canvas_token}` without credentials: the shared canvas and its
     * UDFs, each with `metadata.shared_token` (`fsh_...`). A name-based token
     * `fc_<team>/<canvas-name>` works too (it is URL-encoded). 404 for an unknown, rotated or
     * unshared token; 401 for a missing or wrong passcode, or a team-only canvas without a valid
     * session token.
     */
    getByToken: (canvasToken: string, access: TokenAccess = {}) =>
      t.json("GET /collection/by-token/{canvas_token}", tokenRequest(canvasToken, access), SharedCanvas),

    /** `GET /udf/shared/by-token/{token}`: the UDF an `fsh_` token points at; 404 when unknown or the UDF was deleted. */
    getSharedUdf: (token: string) =>
      t.json("GET /udf/shared/by-token/{token}", { params: { token }, auth: "none", secretParams: ["token"] }, Udf),

    /**
     * `GET {udf_base_url}/{canvas_token}.api.json`: the OpenAPI 3 document of the canvas's shared
     * UDFs. Same access rule and errors as {@link getByToken}.
     */
    openApi: (canvasToken: string, access: TokenAccess = {}) =>
      t.json("GET /{canvas_token}.api.json", { ...tokenRequest(canvasToken, access), base: "udf" }, OpenApiDocument),

    /**
     * `GET {udf_base_url}/{canvas_token}/{slug}` (or `.../tiles/{z}/{x}/{y}`): runs a UDF of a shared
     * canvas without credentials. Same access rule as {@link getByToken}; 404 also for a slug not on
     * the canvas; 422 when the UDF fails (traceback in the detail) or passes the run time limit.
     */
    runShared: (canvasToken: string, slug: string, input: SharedRunInput = {}): Promise<RunResult> =>
      t
        .send(input.tile ? "GET /{canvas_token}/{slug}/tiles/{z}/{x}/{y}" : "GET /{canvas_token}/{slug}", {
          ...tokenRequest(canvasToken, input),
          params: { canvas_token: canvasToken, slug, ...(input.tile ?? {}) },
          query: sharedRunQuery(input),
          timeoutMs: input.timeoutMs ?? RUN_TIMEOUT_MS,
          base: "udf",
        })
        .then(runResult),

    /**
     * `GET {udf_base_url}/{fsh_token}` (or `.../tiles/{z}/{x}/{y}`): runs the UDF of a per-UDF shared
     * token. 404 once the UDF is deleted; a team-scoped token needs a session token of its canvas.
     */
    runSharedUdf: (udfToken: string, input: SharedRunInput = {}): Promise<RunResult> =>
      t
        .send(input.tile ? "GET /{token}/tiles/{z}/{x}/{y}" : "GET /{token}", {
          params: { token: udfToken, ...(input.tile ?? {}) },
          query: sharedRunQuery(input),
          auth: input.passcode !== undefined ? { passcode: input.passcode } : "none",
          secretParams: ["token"],
          secretQuery: ["svc_session_token"],
          timeoutMs: input.timeoutMs ?? RUN_TIMEOUT_MS,
          base: "udf",
        })
        .then(runResult),

    /** `GET {udf_base_url}/{canvas_token}.api`: the browsable HTML page of that document, as text. */
    openApiPage: async (canvasToken: string, access: TokenAccess = {}): Promise<string> => {
      const res = await t.send("GET /{canvas_token}.api", { ...tokenRequest(canvasToken, access), base: "udf" });
      return res.body.toString("utf8");
    },
  };
}
