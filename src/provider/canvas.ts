import * as pulumi from "@pulumi/pulumi";
import type { CanvasArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { CanvasArgs } from "./arguments";

/**
 * A canvas: a group of UDFs with a sharing level. Created by name, or adopted when a canvas of that
 * name exists. Updates never touch its UDFs (manage them with `Udf`).
 *
 * @example
 * const canvas = new svc.Canvas("sales", { name: "sales_dashboard" });
 */
export class Canvas extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  declare readonly accessScope: pulumi.Output<"team" | "public">;
  declare readonly allowPublicRead: pulumi.Output<boolean>;
  /** The owner's handle. */
  declare readonly username: pulumi.Output<string | null>;
  declare readonly lastUpdated: pulumi.Output<string>;

  constructor(name: string, args: CanvasArgs, opts?: pulumi.CustomResourceOptions) {
    // The passcode is made secret here, so it is never kept in plain among the state's inputs.
    const passcode = args.passcode === undefined ? undefined : pulumi.secret(args.passcode);
    // Its fingerprint is key-less (a provider holds no key), so it is a secret output: encrypted in
    // state and shown as [secret], never a hash anyone could test guesses against.
    const inputs = { username: undefined, lastUpdated: undefined, ...args, passcode };
    const stacks = quietStacks();
    try {
      super(dynamicType("Canvas"), name, withStub("Canvas", inputs), {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "passcodeFingerprint"],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
