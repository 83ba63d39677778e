/**
 * Canvas tokens and session tokens (spec 4.1, 2.4, section 3): resolving a canvas token (random
 * `fc_...` or name-based `fc_<team>/<canvas-name>`), the access rule of the by-token readers
 * (passcode, session token), and the session-token routes. Part of the sharing area.
 *
 * Session tokens are stored only as hashes, bound to the canvas and to the canvas token that was
 * current when they were minted: rotating the canvas token (share with `new_token=true`) or
 * unsharing kills them at once.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { canvasById, type CanvasRow } from "../catalog";
import { notFound, unauthorized } from "../http-error";
import { hashToken, randomToken } from "../keys";
import { caller, noContent, parseBody, type RequestContext, type RouteDef } from "../route";
import type { Store } from "../store";

export const SESSION_TOKENS_DDL = `
-- Session tokens (spec 4.1), stored hashed. share_token_hash: the canvas token current at mint time.
CREATE TABLE IF NOT EXISTS session_tokens (
  token_hash TEXT PRIMARY KEY, canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  share_token_hash TEXT NOT NULL, expires_at TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_tokens_canvas ON session_tokens(canvas_id);
-- The access scope a canvas token was minted under (platform facts: changing scope needs a rotation).
CREATE TABLE IF NOT EXISTS canvas_token_scopes (
  canvas_id TEXT PRIMARY KEY REFERENCES canvases(id) ON DELETE CASCADE,
  share_token_hash TEXT NOT NULL, access_scope TEXT NOT NULL
);
`;

/** Default and largest session-token lifetime, in seconds (spec 8). */
export const SESSION_TTL_DEFAULT = 3600;
export const SESSION_TTL_MAX = 86_400;

export const CANVAS_TOKEN_NOT_FOUND = "Canvas token not found";

/**
 * The shared canvas a token names, or undefined. Random tokens match `share_token`; name-based
 * tokens `fc_<team>/<canvas-name>` match the team's canvas of that name while it is shared.
 */
export function canvasForToken(store: Store, token: string): CanvasRow | undefined {
  if (!token.startsWith("fc_")) return undefined;
  const slash = token.indexOf("/");
  if (slash < 0) return store.get<CanvasRow>("SELECT * FROM canvases WHERE share_token = ?", token);
  const team = token.slice(3, slash);
  const name = token.slice(slash + 1);
  if (!team || !name) return undefined;
  return store.get<CanvasRow>(
    "SELECT c.* FROM canvases c JOIN envs e ON e.id = c.env_id WHERE e.name = ? AND c.name = ? AND c.share_token IS NOT NULL",
    team,
    name,
  );
}

/** The shared canvas a token names, or 404 (the token is never echoed). */
export function requireCanvasForToken(store: Store, token: string): CanvasRow {
  const c = canvasForToken(store, token);
  if (!c) throw notFound(CANVAS_TOKEN_NOT_FOUND);
  return c;
}

/** Records the scope the canvas's current token was minted under. */
export function recordTokenScope(store: Store, c: CanvasRow, shareToken: string): void {
  store.run(
    "INSERT INTO canvas_token_scopes (canvas_id, share_token_hash, access_scope) VALUES (?, ?, ?) " +
      "ON CONFLICT(canvas_id) DO UPDATE SET share_token_hash = excluded.share_token_hash, access_scope = excluded.access_scope",
    c.id,
    hashToken(shareToken),
    c.access_scope,
  );
}

/** Forgets everything bound to a canvas token: its session tokens and its recorded scope. */
export function forgetCanvasToken(store: Store, canvasId: string): void {
  store.run("DELETE FROM session_tokens WHERE canvas_id = ?", canvasId);
  store.run("DELETE FROM canvas_token_scopes WHERE canvas_id = ?", canvasId);
}

/**
 * The scope the canvas's current token carries: the scope recorded when it was minted (a later
 * scope change needs a rotation), else the canvas's own scope.
 */
export function tokenScope(store: Store, c: CanvasRow): string {
  if (!c.share_token) return c.access_scope;
  const row = store.get<{ access_scope: string }>(
    "SELECT access_scope FROM canvas_token_scopes WHERE canvas_id = ? AND share_token_hash = ?",
    c.id,
    hashToken(c.share_token),
  );
  return row?.access_scope ?? c.access_scope;
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

/**
 * The passcode gate: when the canvas has a passcode, the header
 * `Authorization: Svc-Canvas-Passcode <passcode>` must match (401 otherwise).
 */
export function checkPasscode(ctx: RequestContext, c: CanvasRow): void {
  if (c.passcode === null || c.passcode === "") return;
  if (ctx.auth.scheme !== "passcode") {
    throw unauthorized(
      "This canvas is protected by a passcode: send it in the header Authorization: Svc-Canvas-Passcode <passcode>",
    );
  }
  if (!sameSecret(ctx.auth.credential, c.passcode)) throw unauthorized("The canvas passcode is incorrect");
}

/**
 * The team gate: a valid, unexpired `svc_session_token` minted for the canvas's current token
 * (401 otherwise; none can be valid once the canvas is unshared).
 */
export function checkSessionToken(ctx: RequestContext, c: CanvasRow): void {
  const session = ctx.query.get("svc_session_token");
  if (!session) {
    throw unauthorized(
      "This canvas is shared with its team only: a session token is required in the query parameter svc_session_token",
    );
  }
  if (!c.share_token) throw unauthorized("The session token is invalid, expired or revoked");
  const row = ctx.store.get<{ expires_at: string }>(
    "SELECT expires_at FROM session_tokens WHERE token_hash = ? AND canvas_id = ? AND share_token_hash = ?",
    hashToken(session),
    c.id,
    hashToken(c.share_token),
  );
  if (!row || new Date(row.expires_at).getTime() <= ctx.now().getTime()) {
    throw unauthorized("The session token is invalid, expired or revoked");
  }
}

/**
 * The by-token access rule: the passcode gate ({@link checkPasscode}), then, for a canvas whose
 * token carries team scope, the team gate ({@link checkSessionToken}). A public token needs
 * nothing more.
 */
export function checkTokenAccess(ctx: RequestContext, c: CanvasRow): void {
  checkPasscode(ctx, c);
  if (tokenScope(ctx.store, c) === "public") return;
  checkSessionToken(ctx, c);
}

/** A canvas token of the caller's team, or 404 (unknown, rotated, unshared, or another team's). */
function ownTokenCanvas(ctx: RequestContext): CanvasRow {
  const c = canvasForToken(ctx.store, ctx.params.canvas_token);
  if (!c || c.env_id !== caller(ctx).envId) throw notFound(CANVAS_TOKEN_NOT_FOUND);
  return c;
}

const MintBody = z.object({
  ttl: z.number().int().min(1).max(SESSION_TTL_MAX).nullable().optional(),
});

export const sessionTokenRoutes: RouteDef[] = [
  {
    method: "POST",
    path: "/session-token/by-access-token/:canvas_token",
    scope: "user_or_environment",
    handler: (ctx) => {
      const { ttl } = parseBody(ctx, MintBody);
      const c = ownTokenCanvas(ctx);
      const now = ctx.now();
      const expires = new Date(now.getTime() + (ttl ?? SESSION_TTL_DEFAULT) * 1000);
      const session = randomToken("svc_sess_");
      ctx.store.run(
        "INSERT INTO session_tokens (token_hash, canvas_id, share_token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?)",
        hashToken(session),
        c.id,
        hashToken(c.share_token!),
        expires.toISOString(),
        now.toISOString(),
      );
      // Expired rows of this canvas are of no further use.
      ctx.store.run("DELETE FROM session_tokens WHERE canvas_id = ? AND expires_at <= ?", c.id, now.toISOString());
      return { token: ctx.params.canvas_token, session_token: session, expires_at: expires.toISOString() };
    },
  },
  {
    method: "DELETE",
    path: "/session-token/by-access-token/:canvas_token",
    scope: "user_or_environment",
    handler: (ctx) => {
      const c = ownTokenCanvas(ctx);
      ctx.store.run("DELETE FROM session_tokens WHERE canvas_id = ?", c.id);
      return noContent();
    },
  },
];

/** Re-reads a canvas after a change (it exists: the caller just found it). */
export function reloadCanvas(s: Store, id: string): CanvasRow {
  return canvasById(s, id)!;
}
