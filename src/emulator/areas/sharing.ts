/**
 * Canvas sharing (spec 4.7 share/unshare/by-token, section 3 state table), session tokens (4.1,
 * routes in `session-tokens.ts`) and per-UDF shared tokens (4.9 `GET /udf/shared/by-token`). What
 * the shared-UDF host serves with these tokens is in `udf-host.ts`.
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
import { canvasJson, canvasUdfs, mintUdfSharedToken, ownCanvas, udfJson, type UdfRow } from "../catalog";
import { badRequest, notFound } from "../http-error";
import { caller, parseQuery, q, type RequestContext } from "../route";
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
    const inst = ctx.store.get(
      "SELECT client_id FROM realtime_instances WHERE client_id = ? AND env_id = ?",
      input.client_id,
      p.envId,
    );
    if (!inst) throw notFound(`Real-time instance "${input.client_id}" is not one of your team's instances`);
  }
  const now = ctx.now().toISOString();
  if (c.share_token === null) {
    if (input.client_id === undefined) {
      throw badRequest(
        "client_id is required when a canvas is shared for the first time: pass one of your team's real-time instances",
      );
    }
    const token = newCanvasToken();
    ctx.store.run(
      "UPDATE canvases SET share_token = ?, share_client_id = ?, last_updated = ? WHERE id = ?",
      token,
      input.client_id,
      now,
      c.id,
    );
    recordTokenScope(ctx.store, c, token);
  } else {
    const clientId = input.client_id ?? c.share_client_id;
    if (input.new_token) {
      // The old token and every session token minted for it stop working at once.
      const token = newCanvasToken();
      forgetCanvasToken(ctx.store, c.id);
      ctx.store.run(
        "UPDATE canvases SET share_token = ?, share_client_id = ?, last_updated = ? WHERE id = ?",
        token,
        clientId,
        now,
        c.id,
      );
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
    ctx.store.run(
      "UPDATE canvases SET share_token = NULL, share_client_id = NULL, last_updated = ? WHERE id = ?",
      ctx.now().toISOString(),
      c.id,
    );
  }
  return canvasJson(ctx.store, reloadCanvas(ctx.store, c.id), "full", p);
}

/** The UDF's per-UDF shared token: the oldest existing one, or a new one minted under `scope`. */
function udfSharedToken(store: Store, udfId: string, scope: string, now: Date): string {
  const row = store.get<{ token: string }>(
    "SELECT token FROM udf_shared_tokens WHERE udf_id = ? ORDER BY created_at, token LIMIT 1",
    udfId,
  );
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

export const sharingArea: Area = {
  name: "sharing",
  ddl: SESSION_TOKENS_DDL,
  routes: [
    { method: "POST", path: "/collection/share", scope: "user_or_environment", handler: share },
    { method: "POST", path: "/collection/unshare", scope: "user_or_environment", handler: unshare },
    { method: "GET", path: "/collection/by-token/:canvas_token", scope: "by_token", handler: byToken },
    { method: "GET", path: "/udf/shared/by-token/:token", scope: "by_token", handler: sharedUdf },
    ...sessionTokenRoutes,
  ],
};
