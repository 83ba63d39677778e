/**
 * The `Canvas` Pulumi resource. Generated from `src/kinds/canvas/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition.
 */
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
  /**
   * The canvas name, unique in the team: letters, digits and underscores. Renaming updates in
   * place.
   */
  declare readonly name: pulumi.Output<string>;
  /**
   * Who may use the canvas's shared links: the team, or anyone. On a shared canvas a change needs a
   * new share token (see `CanvasShare`).
   */
  declare readonly accessScope: pulumi.Output<"team" | "public">;
  /**
   * Whether anyone may read the canvas.
   */
  declare readonly allowPublicRead: pulumi.Output<boolean>;
  /**
   * The owner's handle.
   */
  declare readonly username: pulumi.Output<string | null>;
  /**
   * When the canvas last changed (ISO 8601).
   */
  declare readonly lastUpdated: pulumi.Output<string>;

  constructor(name: string, args: CanvasArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      username: undefined,
      lastUpdated: undefined,
      ...args,
      passcode: args.passcode === undefined ? undefined : pulumi.secret(args.passcode),
    };
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
