/**
 * SessionToken: a short-lived token that lets a browser open a team-only shared canvas
 * (`svc_session_token`). Natural key: a fingerprint of the canvas token it is minted for.
 *
 * The platform cannot list session tokens, so create never adopts (a lost answer leaves an
 * unused token that expires on its own) and `observeAll` returns `[]`. Delete revokes every session
 * token of that canvas token: the platform has no per-token revocation. The canvas token is kept in
 * state (delete needs it) as a secret output, and diffs show its fingerprint only.
 */
import { isApiError } from "../../api/errors";
import { checkWith } from "../check";
import { diffFields, secretFingerprint, summarize } from "../field-diff";
import type { KindContext, ResourceKind } from "../kind";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { sessionTokenDefinition } from "./definition";
import { SvcError } from "../../errors";

export { MAX_SESSION_TTL } from "./definition";

/** A session token's checked inputs. */
export type SessionTokenInputs = CheckedInputs<typeof sessionTokenDefinition>;
export const SessionTokenInputs = definitionCheck(sessionTokenDefinition);

/** Kept state. `canvasToken` and `sessionToken` are secret outputs. */
export interface SessionTokenState {
  canvasToken: string;
  canvasTokenFingerprint: string;
  ttl: number;
  sessionToken: string;
  /** ISO 8601 time after which the token no longer works. */
  expiresAt: string;
}

const SALT = "SessionToken";

const canvasTokenPrint = (token: string) => secretFingerprint(token, SALT, "canvasToken")!;

function expired(s: Pick<SessionTokenState, "expiresAt">, now: Date): boolean {
  return new Date(s.expiresAt).getTime() <= now.getTime();
}

/** Why a session token cannot be imported or read from its id alone. */
export const UNREADABLE =
  "A SessionToken cannot be read from its id alone: the platform neither lists nor returns session tokens, and the token and its canvas token are secrets that an id (kept in clear) must not hold. Declare a new SessionToken instead; minting one takes a single request.";

/**
 * Whether the platform still honours the session token: a by-token read of its canvas with it.
 * 404: the canvas token was rotated or unshared. 401: the session token is refused, unless the
 * canvas has a passcode, which is checked first (then the read is tried again with it). A canvas
 * token of public scope needs no session token, so there a revoked one still reads as honoured.
 */
async function honoured(ctx: KindContext, s: SessionTokenState): Promise<boolean> {
  const refused = (e: unknown) => isApiError(e, "not_found") || isApiError(e, "unauthorized");
  try {
    await ctx.client.sharing.getByToken(s.canvasToken, { sessionToken: s.sessionToken });
    return true;
  } catch (e) {
    if (!refused(e)) throw e;
    if (isApiError(e, "not_found")) return false;
  }
  const canvas = (await ctx.client.canvases.listExecEnvShared()).find((c) => c.share_token === s.canvasToken);
  if (!canvas?.passcode) return false;
  try {
    await ctx.client.sharing.getByToken(s.canvasToken, { sessionToken: s.sessionToken, passcode: canvas.passcode });
    return true;
  } catch (e) {
    if (refused(e)) return false;
    throw e;
  }
}

export const sessionTokenKind: ResourceKind<SessionTokenInputs, SessionTokenState> = {
  kind: "SessionToken",
  secretInputs: ["canvasToken"],
  secretOutputs: ["sessionToken", "canvasToken"],
  check: (raw) => checkWith(SessionTokenInputs, raw, ["canvasToken"]),
  key: (i) => canvasTokenPrint(i.canvasToken),
  diff(olds, news, ctx) {
    // Called without a clock by the provider host: the current time then.
    const now = (ctx?.now ?? (() => new Date()))();
    const d = diffFields(
      { ttl: olds.ttl, canvasTokenFingerprint: olds.canvasTokenFingerprint },
      { ttl: news.ttl, canvasToken: news.canvasToken },
      { replaceOn: ["canvasToken", "ttl"], secret: ["canvasToken"], salt: SALT },
    );
    const fields = [...d.fields];
    if (expired(olds, now))
      fields.push({ field: "expiresAt", action: "replace", secret: false, from: olds.expiresAt, note: "expired" });
    // Delete revokes every session token of the canvas token, so the old one must go first, or
    // its delete would revoke the new one too.
    return summarize(fields, d.stables, true);
  },
  async create(ctx, inputs) {
    let r;
    try {
      r = await ctx.client.sessionTokens.create(inputs.canvasToken, { ttl: inputs.ttl });
    } catch (e) {
      if (isApiError(e, "not_found")) {
        throw new SvcError(
          "canvas_token_invalid",
          "canvasToken is not a current canvas token of your team (unknown, rotated or unshared): pass the share's current token, e.g. share.shareToken.",
        );
      }
      throw e;
    }
    const state: SessionTokenState = {
      canvasToken: inputs.canvasToken,
      canvasTokenFingerprint: canvasTokenPrint(inputs.canvasToken),
      ttl: inputs.ttl,
      sessionToken: r.session_token,
      expiresAt: r.expires_at,
    };
    return { id: secretFingerprint(r.session_token, SALT, "sessionToken")!, state, adopted: false };
  },
  async read(ctx, _id, olds) {
    if (typeof olds?.sessionToken !== "string" || typeof olds.canvasToken !== "string")
      throw new SvcError("session_token_unreadable", UNREADABLE);
    if (expired(olds, (ctx.now ?? (() => new Date()))())) return undefined;
    // Session tokens cannot be read back, only tried: one revoked, or whose canvas token was
    // rotated or unshared, is refused, and then reads as gone so that the next update mints one.
    return (await honoured(ctx, olds)) ? olds : undefined;
  },
  async update(_ctx, _id, olds) {
    // Every input change replaces the token; nothing is updated in place.
    return olds;
  },
  async delete(ctx, _id, olds) {
    if (!olds.canvasToken) return;
    try {
      await ctx.client.sessionTokens.revokeAll(olds.canvasToken);
    } catch (e) {
      // A rotated or unshared canvas token took its session tokens with it.
      if (!isApiError(e, "not_found")) throw e;
    }
  },
  async observeAll() {
    return [];
  },
};
