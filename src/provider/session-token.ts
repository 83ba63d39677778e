import * as pulumi from "@pulumi/pulumi";
import type { SessionTokenArgs } from "./arguments";
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
  /** The session token. Secret. */
  declare readonly sessionToken: pulumi.Output<string>;
  /** ISO 8601 time after which the token no longer works. */
  declare readonly expiresAt: pulumi.Output<string>;
  declare readonly ttl: pulumi.Output<number>;

  constructor(name: string, args: SessionTokenArgs, opts?: pulumi.CustomResourceOptions) {
    // The canvas token is made secret here too, so it is never kept in plain among the inputs.
    const inputs = {
      sessionToken: undefined,
      expiresAt: undefined,
      ...args,
      canvasToken: pulumi.secret(args.canvasToken),
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("SessionToken"), name, withStub("SessionToken", inputs), {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "sessionToken", "canvasToken"],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
