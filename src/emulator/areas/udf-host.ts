/**
 * The shared-UDF host (`{udf_base_url}`, spec 4.4 and 1): runs UDFs of shared canvases with the
 * token in the URL and no Authorization header, and describes a shared canvas as OpenAPI.
 *
 * URL structure (the spec leaves it open except for the two documents):
 * - `GET|POST /<canvas_token>/<slug>`: run the UDF `slug` of the shared canvas;
 * - `GET|POST /<canvas_token>/<slug>/tiles/<z>/<x>/<y>`: the same for one tile;
 * - `GET|POST /<fsh_token>` and `/<fsh_token>/tiles/<z>/<x>/<y>`: run the UDF of a per-UDF token;
 * - `GET /<canvas_token>.api.json` (OpenAPI 3.1) and `GET /<canvas_token>.api` (HTML page).
 * Name-based canvas tokens `fc_<team>/<canvas-name>` are URL-encoded (`%2F`). Parameters come from
 * the query (strings, converted per the entrypoint's annotations; lists and dicts as JSON text) and,
 * on POST, from a JSON object body, which wins. `format` (`json`, `csv`) and `cache_max_age`
 * (seconds) mean what they mean on the run endpoints; `svc_session_token` is not a parameter.
 *
 * Access: a canvas token follows the by-token rule (passcode header when set; a session token for
 * a team-scoped token); unknown, rotated and unshared canvas tokens are 404 at once. An `fsh_`
 * token needs its canvas's passcode when set and, when minted with team scope, a session token of
 * its canvas; it lives as long as its UDF. Runs are billed to the canvas owner's environment.
 */
import type { Area } from "../area";
import { canvasById, canvasUdfs, type CanvasRow, type UdfRow } from "../catalog";
import { HttpError, invalid, notFound, unauthorized } from "../http-error";
import { canvasApiPage } from "../realtime/openapi-page";
import { canvasOpenApiDocument, type DocumentedUdf } from "../realtime/openapi-document";
import { serveRun } from "../realtime/run-service";
import { savedUdfTarget, type RunTarget } from "../realtime/step-config";
import { bytes, type EmulatorEnv, type RequestContext } from "../route";
import { describeUdfs, type RunTile, type UdfDescription, type UdfRunFailure } from "../udf-runner";
import { tileFromPath } from "./realtime";
import {
  checkPasscode,
  checkSessionToken,
  checkTokenAccess,
  requireCanvasForToken,
  tokenScope,
} from "./session-tokens";

/** Query names that are not UDF parameters. */
const RESERVED = new Set(["format", "svc_session_token", "cache_max_age"]);

function runParameters(ctx: RequestContext): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of new Set(ctx.query.keys())) if (!RESERVED.has(key)) params[key] = ctx.query.get(key);
  if (ctx.method === "POST" && ctx.jsonBody !== undefined) {
    const b = ctx.jsonBody;
    if (b === null || typeof b !== "object" || Array.isArray(b))
      throw invalid("body", [], "The body must be a JSON object of UDF parameters");
    Object.assign(params, b);
  }
  return params;
}

function runOptions(ctx: RequestContext): { format: "json" | "csv"; requestMaxAgeS?: number } {
  const format = ctx.query.get("format") ?? "json";
  if (format !== "json" && format !== "csv")
    throw invalid("query", "format", "Input should be 'json' or 'csv'", "literal_error");
  const age = ctx.query.get("cache_max_age");
  if (age !== null && !/^\d+$/.test(age))
    throw invalid("query", "cache_max_age", "Input should be a whole number of seconds", "int_parsing");
  return { format, requestMaxAgeS: age === null ? undefined : Number(age) };
}

function serve(ctx: RequestContext, envId: string, u: UdfRow, tile: RunTile | undefined) {
  const options = runOptions(ctx);
  const target: RunTarget = savedUdfTarget(u, runParameters(ctx));
  return serveRun(ctx.env, { envId, target, tile, ...options });
}

/** Runs a UDF of a shared canvas by canvas token and slug. */
function runByCanvasToken(ctx: RequestContext, tile: RunTile | undefined) {
  const c = requireCanvasForToken(ctx.store, ctx.params.token);
  checkTokenAccess(ctx, c);
  const u = canvasUdfs(ctx.store, c.id).find((x) => x.slug === ctx.params.slug);
  if (!u) throw notFound(`UDF "${ctx.params.slug}" not found on this canvas`);
  return serve(ctx, c.env_id, u, tile);
}

/** Runs the UDF of a per-UDF `fsh_` token. */
function runByUdfToken(ctx: RequestContext, tile: RunTile | undefined) {
  const row = ctx.store.get<UdfRow & { token_scope: string }>(
    "SELECT u.*, t.access_scope AS token_scope FROM udf_shared_tokens t JOIN udfs u ON u.id = t.udf_id WHERE t.token = ?",
    ctx.params.token,
  );
  if (!row) throw notFound("Shared UDF token not found");
  const c: CanvasRow | undefined = row.collection_id ? canvasById(ctx.store, row.collection_id) : undefined;
  if (c) checkPasscode(ctx, c);
  if (row.token_scope !== "public") {
    if (!c)
      throw unauthorized(
        "This UDF is shared with its team only, and it is on no canvas that could issue a session token",
      );
    checkSessionToken(ctx, c);
  }
  return serve(ctx, row.env_id, row, tile);
}

/** Descriptions kept by code (the oldest go first beyond this). */
const KEPT_DESCRIPTIONS = 1000;

function rememberDescription(
  map: Map<string, UdfDescription | UdfRunFailure>,
  hash: string,
  d: UdfDescription | UdfRunFailure,
): void {
  map.set(hash, d);
  if (map.size > KEPT_DESCRIPTIONS) map.delete(map.keys().next().value!);
}

/** Entrypoint descriptions of the canvas's UDFs, from the cache by code or from one Python process. */
async function describeCanvas(
  env: EmulatorEnv,
  targets: (RunTarget | undefined)[],
): Promise<{ descriptions: (UdfDescription | UdfRunFailure | undefined)[]; unavailable?: string }> {
  const rt = env.realtime;
  const missing = targets.filter((t): t is RunTarget => t !== undefined && !rt.descriptions.has(t.runHash));
  let unavailable: string | undefined;
  if (missing.length) {
    const release = await rt.acquire();
    try {
      const r = await describeUdfs({
        bodies: missing.map((t) => t.body),
        python: rt.python,
        timeoutMs: rt.timeLimitMs,
        signal: rt.signal,
      });
      if (r.ok) missing.forEach((t, i) => rememberDescription(rt.descriptions, t.runHash, r.descriptions[i]));
      else unavailable = r.message;
    } finally {
      release();
    }
  }
  return { descriptions: targets.map((t) => (t ? rt.descriptions.get(t.runHash) : undefined)), unavailable };
}

function metadataDescription(u: UdfRow): string | undefined {
  try {
    const d = (JSON.parse(u.udf_body) as { metadata?: Record<string, unknown> }).metadata?.["fused:description"];
    return typeof d === "string" ? d : undefined;
  } catch {
    return undefined;
  }
}

/** `<canvas_token>.api.json` and `.api`. */
function canvasDocument(ctx: RequestContext, token: string, kind: "json" | "html") {
  const c = requireCanvasForToken(ctx.store, token);
  checkTokenAccess(ctx, c);
  const udfs = canvasUdfs(ctx.store, c.id);
  const targets = udfs.map((u) => {
    try {
      return savedUdfTarget(u);
    } catch {
      return undefined; // a body that cannot run is still listed, without parameters
    }
  });
  const teamOnly = tokenScope(ctx.store, c) !== "public";
  const session = ctx.query.get("svc_session_token");
  const serverUrl = `${ctx.env.origin}/udf/${encodeURIComponent(token)}`;
  return describeCanvas(ctx.env, targets).then(({ descriptions, unavailable }) => {
    const documented: DocumentedUdf[] = udfs.map((u, i) => ({
      id: u.id,
      slug: u.slug,
      description: metadataDescription(u),
      entrypoint: descriptions[i],
    }));
    const doc = canvasOpenApiDocument({
      canvasName: c.name,
      lastUpdated: c.last_updated,
      serverUrl,
      teamOnly,
      hasPasscode: c.passcode !== null && c.passcode !== "",
      udfs: documented,
      signaturesUnavailable: unavailable,
    });
    if (kind === "json") return doc;
    const href = `./${encodeURIComponent(token)}.api.json${session ? `?svc_session_token=${encodeURIComponent(session)}` : ""}`;
    return bytes(200, canvasApiPage(doc, href, session), "text/html; charset=utf-8");
  });
}

/** `GET /<token>`: a canvas document, or a run of an `fsh_` token. */
function tokenRoot(ctx: RequestContext) {
  const t = ctx.params.token;
  if (t.endsWith(".api.json")) return canvasDocument(ctx, t.slice(0, -".api.json".length), "json");
  if (t.endsWith(".api")) return canvasDocument(ctx, t.slice(0, -".api".length), "html");
  if (t.startsWith("fsh_")) return runByUdfToken(ctx, undefined);
  if (t.startsWith("fc_"))
    throw new HttpError(
      404,
      "Not Found: a canvas token names a UDF by slug (/<canvas_token>/<slug>) or a document (.api.json, .api)",
    );
  throw notFound("Shared UDF token not found");
}

const udfTokenOnly = (ctx: RequestContext, tile: RunTile | undefined) => {
  if (!ctx.params.token.startsWith("fsh_")) throw notFound("Shared UDF token not found");
  return runByUdfToken(ctx, tile);
};

const both = (path: string, handler: (ctx: RequestContext) => unknown) =>
  (["GET", "POST"] as const).map((method) => ({
    method,
    path,
    scope: "by_token" as const,
    host: "udf" as const,
    handler,
  }));

export const udfHostArea: Area = {
  name: "udf-host",
  routes: [
    { method: "GET", path: "/:token", scope: "by_token", host: "udf", handler: tokenRoot },
    { method: "POST", path: "/:token", scope: "by_token", host: "udf", handler: (ctx) => udfTokenOnly(ctx, undefined) },
    ...both("/:token/tiles/:z/:x/:y", (ctx) => udfTokenOnly(ctx, tileFromPath(ctx.params))),
    ...both("/:token/:slug", (ctx) => runByCanvasToken(ctx, undefined)),
    ...both("/:token/:slug/tiles/:z/:x/:y", (ctx) => runByCanvasToken(ctx, tileFromPath(ctx.params))),
  ],
};
