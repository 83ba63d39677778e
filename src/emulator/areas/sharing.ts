/**
 * Canvas sharing (spec 4.7 share/unshare/by-token, section 3 state table), session tokens (4.1,
 * routes in `session-tokens.ts`), per-UDF shared tokens (4.9 `GET /udf/shared/by-token`), and the
 * OpenAPI description of a shared canvas on the UDF host (`{udf_base_url}/<canvas_token>.api.json`
 * and `.api`).
 *
 * Decisions where the spec is silent:
 * - A `client_id` that is not one of the caller team's real-time instances gives 404 (another
 *   team's objects are invisible; an unknown id is absent).
 * - Readers by token get 404 for an unknown, rotated or unshared token; 401 for a missing or wrong
 *   passcode, and for a team-scoped token without a valid session token.
 * - Per-UDF `fsh_` tokens handed out by the by-token reader stay valid after unsharing: they belong
 *   to the UDF and die with it.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Area } from "../area";
import { canvasJson, canvasUdfs, mintUdfSharedToken, ownCanvas, udfJson, type CanvasRow, type UdfRow } from "../catalog";
import { badRequest, notFound } from "../http-error";
import { bytes, caller, parseQuery, q, type RequestContext } from "../route";
import type { Store } from "../store";
import {
  SESSION_TOKENS_DDL,
  checkTokenAccess,
  forgetCanvasToken,
  recordTokenScope,
  reloadCanvas,
  requireCanvasForToken,
  sessionTokenRoutes,
  tokenScope,
} from "./session-tokens";

const ShareQuery = z.object({
  collection_id: z.string().min(1),
  client_id: z.string().min(1).optional(),
  new_token: q.bool().optional(),
});
const UnshareQuery = z.object({ collection_id: z.string().min(1) });

const newCanvasToken = () => `fc_${randomBytes(24).toString("base64url")}`;

/** The section 3 state table. */
function share(ctx: RequestContext) {
  const p = caller(ctx);
  const input = parseQuery(ctx, ShareQuery);
  const c = ownCanvas(ctx.store, input.collection_id, p);
  if (input.client_id !== undefined) {
    const inst = ctx.store.get("SELECT client_id FROM realtime_instances WHERE client_id = ? AND env_id = ?", input.client_id, p.envId);
    if (!inst) throw notFound(`Real-time instance "${input.client_id}" is not one of your team's instances`);
  }
  const now = ctx.now().toISOString();
  if (c.share_token === null) {
    if (input.client_id === undefined) {
      throw badRequest("client_id is required when a canvas is shared for the first time: pass one of your team's real-time instances");
    }
    const token = newCanvasToken();
    ctx.store.run("UPDATE canvases SET share_token = ?, share_client_id = ?, last_updated = ? WHERE id = ?", token, input.client_id, now, c.id);
    recordTokenScope(ctx.store, c, token);
  } else {
    const clientId = input.client_id ?? c.share_client_id;
    if (input.new_token) {
      // The old token and every session token minted for it stop working at once.
      const token = newCanvasToken();
      forgetCanvasToken(ctx.store, c.id);
      ctx.store.run("UPDATE canvases SET share_token = ?, share_client_id = ?, last_updated = ? WHERE id = ?", token, clientId, now, c.id);
      recordTokenScope(ctx.store, c, token);
    } else if (clientId !== c.share_client_id) {
      ctx.store.run("UPDATE canvases SET share_client_id = ?, last_updated = ? WHERE id = ?", clientId, now, c.id);
    }
  }
  return canvasJson(ctx.store, reloadCanvas(ctx.store, c.id), "full", p);
}

function unshare(ctx: RequestContext) {
  const p = caller(ctx);
  const input = parseQuery(ctx, UnshareQuery);
  const c = ownCanvas(ctx.store, input.collection_id, p);
  if (c.share_token !== null || c.share_client_id !== null) {
    forgetCanvasToken(ctx.store, c.id);
    ctx.store.run("UPDATE canvases SET share_token = NULL, share_client_id = NULL, last_updated = ? WHERE id = ?", ctx.now().toISOString(), c.id);
  }
  return canvasJson(ctx.store, reloadCanvas(ctx.store, c.id), "full", p);
}

/** The UDF's per-UDF shared token: the oldest existing one, or a new one minted under `scope`. */
function udfSharedToken(store: Store, udfId: string, scope: string, now: Date): string {
  const row = store.get<{ token: string }>("SELECT token FROM udf_shared_tokens WHERE udf_id = ? ORDER BY created_at, token LIMIT 1", udfId);
  return row?.token ?? mintUdfSharedToken(store, udfId, scope, now);
}

function byToken(ctx: RequestContext) {
  const c = requireCanvasForToken(ctx.store, ctx.params.canvas_token);
  checkTokenAccess(ctx, c);
  const body = canvasJson(ctx.store, c, "full", undefined);
  const now = ctx.now();
  const scope = tokenScope(ctx.store, c);
  body.udfs = canvasUdfs(ctx.store, c.id).map((u) => ({
    ...udfJson(ctx.store, u, c.name),
    metadata: { shared_token: udfSharedToken(ctx.store, u.id, scope, now) },
  }));
  return body;
}

function sharedUdf(ctx: RequestContext) {
  const u = ctx.store.get<UdfRow>(
    "SELECT u.* FROM udf_shared_tokens t JOIN udfs u ON u.id = t.udf_id WHERE t.token = ?",
    ctx.params.token,
  );
  if (!u) throw notFound("Shared UDF token not found");
  return udfJson(ctx.store, u);
}

// ---------------------------------------------------------------------------------------------
// OpenAPI description of a shared canvas (UDF host).

interface UdfParam {
  name: string;
  schema: Record<string, unknown>;
  required: boolean;
}

/** Splits at depth-0 commas (or another separator), ignoring brackets and quoted strings. */
function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0, quote = "", start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (ch === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

const TYPES: Record<string, string> = { str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "array" };

function pyLiteral(text: string): unknown {
  const t = text.trim();
  if (/^(['"]).*\1$/s.test(t)) return t.slice(1, -1);
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^-?\d*\.\d+(e-?\d+)?$/i.test(t)) return Number(t);
  if (t === "True" || t === "False") return t === "True";
  if (t === "None") return null;
  return undefined;
}

/** The entrypoint's parameters, read from the UDF source (`def udf(a: str = "x", ...)`). */
export function udfParameters(udfBody: string): UdfParam[] {
  let code = "", entry = "udf";
  try {
    const b = JSON.parse(udfBody) as { code?: unknown; entrypoint?: unknown };
    if (typeof b.code === "string") code = b.code;
    if (typeof b.entrypoint === "string" && /^\w+$/.test(b.entrypoint)) entry = b.entrypoint;
  } catch {
    code = udfBody;
  }
  const m = new RegExp(`def\\s+${entry}\\s*\\(`).exec(code);
  if (!m) return [];
  let depth = 1, i = m.index + m[0].length;
  const start = i;
  for (; i < code.length && depth > 0; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")") depth--;
  }
  const params: UdfParam[] = [];
  for (const raw of splitTop(code.slice(start, i - 1), ",")) {
    const part = raw.trim();
    if (!part || part.startsWith("*") || part === "/" || part === "self") continue;
    const [left, ...rest] = splitTop(part, "=");
    const [name, annotation] = splitTop(left, ":").map((s) => s.trim());
    if (!/^\w+$/.test(name)) continue;
    const type = annotation ? TYPES[annotation.replace(/\s*\|\s*None$/, "").replace(/^Optional\[(.*)\]$/, "$1")] : undefined;
    const schema: Record<string, unknown> = { type: type ?? "string" };
    const dflt = rest.length ? pyLiteral(rest.join("=")) : undefined;
    if (dflt !== undefined && dflt !== null) schema.default = dflt;
    params.push({ name, schema, required: rest.length === 0 });
  }
  return params;
}

function udfDescription(u: UdfRow): string | undefined {
  try {
    const d = (JSON.parse(u.udf_body) as { metadata?: Record<string, unknown> }).metadata?.["fused:description"];
    return typeof d === "string" ? d : undefined;
  } catch {
    return undefined;
  }
}

/** OpenAPI 3 document: one GET operation per UDF at `{udf_base_url}/<token>/<slug>`. */
function openApiDocument(ctx: RequestContext, c: CanvasRow, token: string) {
  const paths: Record<string, unknown> = {};
  for (const u of canvasUdfs(ctx.store, c.id)) {
    const description = udfDescription(u);
    paths[`/${encodeURIComponent(u.slug)}`] = {
      get: {
        operationId: u.slug,
        summary: `Run ${u.slug}`,
        ...(description ? { description } : {}),
        "x-udf-id": u.id,
        parameters: [
          ...udfParameters(u.udf_body).map((p) => ({ name: p.name, in: "query", required: p.required, schema: p.schema })),
          { name: "format", in: "query", required: false, schema: { type: "string" }, description: "Output format" },
        ],
        responses: {
          "200": { description: "The UDF's output in the requested format" },
          "422": { description: "The UDF failed" },
        },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: c.name, version: c.last_updated, description: `UDFs shared on canvas ${c.name}` },
    servers: [{ url: `${ctx.env.origin}/udf/${encodeURIComponent(token)}` }],
    paths,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

function openApiPage(ctx: RequestContext, c: CanvasRow, token: string): string {
  const session = ctx.query.get("svc_session_token");
  const href = `./${encodeURIComponent(token)}.api.json${session ? `?svc_session_token=${encodeURIComponent(session)}` : ""}`;
  const items = canvasUdfs(ctx.store, c.id)
    .map((u) => {
      const d = udfDescription(u);
      return `<li><code>GET /${escapeHtml(u.slug)}</code>${d ? ` – ${escapeHtml(d)}` : ""}</li>`;
    })
    .join("\n");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(c.name)} – API</title></head>
<body>
<h1>${escapeHtml(c.name)}</h1>
<p>UDFs shared on this canvas. OpenAPI document: <a href="${escapeHtml(href)}">${escapeHtml(c.name)}.api.json</a></p>
<ul>
${items}
</ul>
</body></html>
`;
}

function udfHostFile(ctx: RequestContext) {
  const file = ctx.params.canvas_file;
  const kind = file.endsWith(".api.json") ? "json" : file.endsWith(".api") ? "html" : undefined;
  if (!kind) throw notFound("Not Found");
  const token = file.slice(0, file.length - (kind === "json" ? ".api.json".length : ".api".length));
  const c = requireCanvasForToken(ctx.store, token);
  checkTokenAccess(ctx, c);
  if (kind === "json") return openApiDocument(ctx, c, token);
  return bytes(200, openApiPage(ctx, c, token), "text/html; charset=utf-8");
}

export const sharingArea: Area = {
  name: "sharing",
  ddl: SESSION_TOKENS_DDL,
  routes: [
    { method: "POST", path: "/collection/share", scope: "user_or_environment", handler: share },
    { method: "POST", path: "/collection/unshare", scope: "user_or_environment", handler: unshare },
    { method: "GET", path: "/collection/by-token/:canvas_token", scope: "by_token", handler: byToken },
    { method: "GET", path: "/udf/shared/by-token/:token", scope: "by_token", handler: sharedUdf },
    ...sessionTokenRoutes,
    { method: "GET", path: "/:canvas_file", scope: "by_token", host: "udf", handler: udfHostFile },
  ],
};
