import * as pulumi from "@pulumi/pulumi";
import type { SecretArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { SecretArgs } from "./arguments";

/**
 * A user secret, owned by the signed-in user (`svc:token` must be a paid user's Bearer token).
 * An existing secret of that key is adopted and overwritten. A value changed on the platform shows
 * as drift on `valueFingerprint` after a refresh, without revealing it.
 *
 * @example
 * new svc.Secret("openai", { key: "OPENAI_API_KEY", value: config.requireSecret("openaiKey") });
 */
export class Secret extends pulumi.CustomResource {
  declare readonly key: pulumi.Output<string>;
  /** A salted hash of the value (never the value); a secret output. */
  declare readonly valueFingerprint: pulumi.Output<string>;

  constructor(name: string, args: SecretArgs, opts?: pulumi.CustomResourceOptions) {
    // The value is a secret even when given as plain text, so the engine encrypts it in state.
    // The fingerprint is key-less (a provider holds no key): a secret output, so a guess cannot be
    // tested against it.
    const inputs = { valueFingerprint: undefined, ...args, value: pulumi.secret(args.value) };
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
