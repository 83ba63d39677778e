/**
 * The `ServiceAccount` Pulumi resource. Generated from `src/kinds/service-account/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition, or `./service-account-hooks.ts` for what it cannot say.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ServiceAccountArgs } from "./arguments";
import { serviceAccountHooks as hooks } from "./service-account-hooks";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { ServiceAccountArgs } from "./arguments";

/**
 * A service account of the team's environment and its token (a machine credential for
 * `Svc-Service-Token`). The token is returned only at creation, so every change replaces the
 * account, new before old: the new token can be distributed before the old one stops working.
 * Managing accounts needs a user's Bearer token (`svc:token`). If an account with the same platform
 * name already exists (an interrupted earlier create, or another stack), creation stops and says
 * how to resolve it rather than adopting an account whose token nobody can read.
 *
 * @example
 * const deployer = new svc.ServiceAccount("deployer", { name: "ci-deployer", rotation: "2025-06" });
 * export const deployerToken = deployer.token; // secret
 */
export class ServiceAccount extends pulumi.CustomResource {
  /**
   * The account's name; on the platform it reads `<name> [svc-iac <tag>]`. A change replaces it.
   */
  declare readonly name: pulumi.Output<string>;
  /**
   * The name on the platform: `<name> [svc-iac <tag>]`.
   */
  declare readonly accountName: pulumi.Output<string>;
  /**
   * The token (secret).
   */
  declare readonly token: pulumi.Output<string>;
  /**
   * When the account was created (ISO 8601).
   */
  declare readonly createdAt: pulumi.Output<string>;

  constructor(name: string, args: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      accountName: undefined,
      token: undefined,
      createdAt: undefined,
      ...Object.fromEntries((hooks.registers ?? []).map((output) => [output, undefined])),
      ...args,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("ServiceAccount"), name, withStub("ServiceAccount", inputs), {
        ...hooks.defaults,
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "token", ...(hooks.secretOutputs ?? [])],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}

hooks.decorate?.(ServiceAccount.prototype);
