/**
 * The `CanvasShare` Pulumi resource. Generated from `src/kinds/canvas-share/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition.
 */
import * as pulumi from "@pulumi/pulumi";
import type { CanvasShareArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { CanvasShareArgs } from "./arguments";

/**
 * A canvas's share: its canvas token (`shareToken`) and real-time instance. Adopts an existing
 * share; delete unshares (every old link and session token stops working).
 *
 * @example
 * const share = new svc.CanvasShare("share", { canvasId: canvas.id, accessScope: canvas.accessScope });
 */
export class CanvasShare extends pulumi.CustomResource {
  /**
   * The canvas to share. Changing it shares the other canvas (a replacement) and unshares this one.
   */
  declare readonly canvasId: pulumi.Output<string>;
  /**
   * The canvas token (`fc_...`). Secret.
   */
  declare readonly shareToken: pulumi.Output<string>;
  /**
   * The real-time instance the shared UDFs run on.
   */
  declare readonly shareClientId: pulumi.Output<string | null>;
  /**
   * The canvas's access scope when the current token was minted.
   */
  declare readonly mintedScope: pulumi.Output<"team" | "public">;

  constructor(name: string, args: CanvasShareArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      shareToken: undefined,
      shareClientId: undefined,
      mintedScope: undefined,
      ...args,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("CanvasShare"), name, withStub("CanvasShare", inputs), {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "shareToken"],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
