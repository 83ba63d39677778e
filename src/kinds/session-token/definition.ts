/** The SessionToken kind's fields: its Pulumi arguments and outputs (`src/provider/session-token.ts`). */
import type { KindDefinition } from "../kind-definition";

/** Largest session-token lifetime the platform accepts, in seconds (24 hours). */
export const MAX_SESSION_TTL = 86_400;

export const sessionTokenDefinition = {
  kind: "SessionToken",
  description:
    "A session token for a team-only shared canvas (`svc_session_token`). Replaced once expired (at the next `pulumi up`). Delete revokes every session token of its canvas token: the platform has no per-token revocation, so two SessionTokens on one canvas token share that fate.",
  example: 'const session = new svc.SessionToken("embed", { canvasToken: share.shareToken, ttl: 1800 });',
  inputs: {
    canvasToken: {
      type: "string",
      description: "The canvas token to mint for (`fc_...`). Kept as a secret; a change replaces the session token.",
      required: true,
      secret: true,
      replaceOnChanges: true,
      example: "share.shareToken",
      check: {
        message: "canvasToken is a canvas token (fc_...), e.g. share.shareToken.",
        minLength: { value: 1, message: "canvasToken must not be empty: give a canvas token, e.g. share.shareToken." },
      },
    },
    ttl: {
      type: "integer",
      description: "Lifetime in seconds, 1 to 86400 (24 hours). A change replaces the token.",
      default: 3600,
      replaceOnChanges: true,
      output: "always",
      check: {
        message: `ttl is a whole number of seconds from 1 to ${MAX_SESSION_TTL}.`,
        minimum: { value: 1, message: "ttl is at least 1 second." },
        maximum: {
          value: MAX_SESSION_TTL,
          message: `ttl is at most ${MAX_SESSION_TTL} seconds (24 hours), the platform's longest session-token lifetime.`,
        },
      },
    },
  },
  outputs: {
    sessionToken: { type: "string", description: "The session token. Secret.", required: true, secret: true },
    expiresAt: { type: "string", description: "ISO 8601 time after which the token no longer works.", required: true },
  },
  pulumiHooks: true,
  importId:
    "not importable: the platform neither lists nor returns session tokens, and an id (kept in clear in state) must not hold the secret token; declare a new one",
} satisfies KindDefinition;
