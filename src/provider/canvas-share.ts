import * as pulumi from "@pulumi/pulumi";
import { dynamicType, quietStacks, withStub } from "./registration";

export interface CanvasShareArgs {
  /**
   * The canvas to share. Changing it shares the other canvas (a replacement) and unshares this one.
   * @example canvas.id
   */
  canvasId: pulumi.Input<string>;
  /**
   * The real-time instance the shared UDFs run on. Changing it re-shares on the new instance and
   * keeps the token.
   * @default the available instance with the highest `preference_rank`
   * @example "rt-demo-primary"
   */
  clientId?: pulumi.Input<string>;
  /**
   * Any value; changing it rotates the share token: the old token, its links and its session
   * tokens stop working at once.
   * @default none
   * @example "2026-06"
   */
  rotation?: pulumi.Input<string | number>;
  /**
   * The canvas's access scope, normally `canvas.accessScope`. A token keeps the scope it was
   * minted under, so when this differs from it the diff says a rotation is required and the
   * update rotates the token (old links and session tokens stop working).
   * @default none (scope changes are not followed)
   * @example canvas.accessScope
   */
  accessScope?: pulumi.Input<"team" | "public">;
}

/**
 * A canvas's share: its canvas token (`shareToken`) and real-time instance. Adopts an existing
 * share; delete unshares (every old link and session token stops working).
 *
 * @example
 * const share = new svc.CanvasShare("share", { canvasId: canvas.id, accessScope: canvas.accessScope });
 */
export class CanvasShare extends pulumi.CustomResource {
  declare readonly canvasId: pulumi.Output<string>;
  /** The canvas token (`fc_...`). Secret. */
  declare readonly shareToken: pulumi.Output<string>;
  /** The real-time instance the shared UDFs run on. */
  declare readonly shareClientId: pulumi.Output<string | null>;
  /** The canvas's access scope when the current token was minted. */
  declare readonly mintedScope: pulumi.Output<"team" | "public">;

  constructor(name: string, args: CanvasShareArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = { shareToken: undefined, shareClientId: undefined, mintedScope: undefined, ...args };
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
