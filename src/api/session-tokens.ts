/**
 * Spec 4.1: session tokens, which let a browser reach a team-only shared canvas through the query
 * parameter `svc_session_token`. The canvas token is a secret path parameter (never in errors).
 */
import { SessionToken } from "./schemas";
import type { Transport } from "./transport";

export interface CreateSessionTokenInput {
  /** Lifetime in seconds, 1 to 86400. @default 3600 (server side) */
  ttl?: number;
}

export function sessionTokensApi(t: Transport) {
  return {
    /**
     * `POST /session-token/by-access-token/{canvas_token}` (user or service credentials): mints a
     * session token for one of the caller team's canvas tokens (random or name-based). 404 when
     * the canvas token does not exist (e.g. after rotation) or is another team's; 422 when `ttl`
     * is below 1 or above 86400. Returns `{token, session_token, expires_at}`.
     */
    create: (canvasToken: string, input: CreateSessionTokenInput = {}) =>
      t.json(
        "POST /session-token/by-access-token/{canvas_token}",
        {
          params: { canvas_token: canvasToken },
          body: { json: input.ttl === undefined ? {} : { ttl: input.ttl } },
          secretParams: ["canvas_token"],
        },
        SessionToken,
      ),

    /**
     * `DELETE /session-token/by-access-token/{canvas_token}`: revokes every session token of that
     * canvas token at once (204). 404 when the canvas token does not exist or is another team's.
     */
    revokeAll: async (canvasToken: string): Promise<void> => {
      await t.send("DELETE /session-token/by-access-token/{canvas_token}", {
        params: { canvas_token: canvasToken },
        secretParams: ["canvas_token"],
      });
    },
  };
}
