/**
 * The `SessionToken` Pulumi resource. Generated from `src/kinds/session-token/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition, or `./session-token-hooks.ts` for what it cannot say.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SessionTokenArgs } from "./arguments";
import { sessionTokenHooks as hooks } from "./session-token-hooks";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { SessionTokenArgs } from "./arguments";

/**
 * A session token for a team-only shared canvas (`svc_session_token`). Replaced once expired (at
 * the next `pulumi up`). Delete revokes every session token of its canvas token: the platform has
 * no per-token revocation, so two SessionTokens on one canvas token share that fate.
 *
 * @example
 * const session = new svc.SessionToken("embed", { canvasToken: share.shareToken, ttl: 1800 });
 */
export class SessionToken extends pulumi.CustomResource {
  /**
   * Lifetime in seconds, 1 to 86400 (24 hours). A change replaces the token.
   */
  declare readonly ttl: pulumi.Output<number>;
  /**
   * The session token. Secret.
   */
  declare readonly sessionToken: pulumi.Output<string>;
  /**
   * ISO 8601 time after which the token no longer works.
   */
  declare readonly expiresAt: pulumi.Output<string>;

  constructor(name: string, args: SessionTokenArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      sessionToken: undefined,
      expiresAt: undefined,
      ...Object.fromEntries((hooks.registers ?? []).map((output) => [output, undefined])),
      ...args,
      canvasToken: pulumi.secret(args.canvasToken),
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("SessionToken"), name, withStub("SessionToken", inputs), {
        ...hooks.defaults,
        ...opts,
        additionalSecretOutputs: [
          ...(opts?.additionalSecretOutputs ?? []),
          "sessionToken",
          ...(hooks.secretOutputs ?? []),
        ],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}

hooks.decorate?.(SessionToken.prototype);
