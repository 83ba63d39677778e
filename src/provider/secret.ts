/**
 * The `Secret` Pulumi resource. Generated from `src/kinds/secret/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SecretArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { SecretArgs } from "./arguments";

/**
 * A user secret, owned by the signed-in user (`svc:token` must be a paid user's Bearer token). An
 * existing secret of that key is adopted and overwritten. A value changed on the platform shows as
 * drift on `valueFingerprint` after a refresh, without revealing it.
 *
 * @example
 * new svc.Secret("openai", { key: "OPENAI_API_KEY", value: config.requireSecret("openaiKey") });
 */
export class Secret extends pulumi.CustomResource {
  /**
   * The secret's key, 1 to 256 characters. A new key replaces the secret (new written first).
   */
  declare readonly key: pulumi.Output<string>;
  /**
   * A salted hash of the value (never the value); a secret output.
   */
  declare readonly valueFingerprint: pulumi.Output<string>;

  constructor(name: string, args: SecretArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      valueFingerprint: undefined,
      ...args,
      value: pulumi.secret(args.value),
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("Secret"), name, withStub("Secret", inputs), {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "valueFingerprint"],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
