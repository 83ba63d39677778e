/**
 * The `Udf` Pulumi resource. Generated from `src/kinds/udf/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition, or `./udf-hooks.ts` for what it cannot say.
 */
import * as pulumi from "@pulumi/pulumi";
import type { UdfArgs } from "./arguments";
import { udfHooks as hooks } from "./udf-hooks";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { UdfArgs, UdfHeaderArgs } from "./arguments";

/**
 * A UDF on a canvas. Created, or adopted when the canvas already has a UDF with that slug (its body
 * is then rewritten). After a body change on a shared canvas the UDF's real-time cache is dropped,
 * so shared URLs serve the new code.
 *
 * @example
 * const listings = new svc.Udf("listings", { canvasId: canvas.id, slug: "listings", codePath: "udfs/listings.py" });
 */
export class Udf extends pulumi.CustomResource {
  /**
   * The canvas holding the UDF. Changing it moves the UDF to the other canvas, in place.
   */
  declare readonly canvasId: pulumi.Output<string>;
  /**
   * URL-safe name, unique on its canvas: letters, digits, `_` and `-`. Renaming updates in place.
   */
  declare readonly slug: pulumi.Output<string>;
  /**
   * The name of the function to call.
   */
  declare readonly entrypoint: pulumi.Output<string>;
  /**
   * The platform's hash of the body last written.
   */
  declare readonly udfBodyHash: pulumi.Output<string>;
  /**
   * The per-UDF shared token (`fsh_...`), when `createSharedToken` is true. Secret. Without
   * `createSharedToken` it resolves to undefined once the UDF is created.
   */
  declare readonly sharedToken: pulumi.Output<string | undefined>;

  constructor(name: string, args: UdfArgs, opts?: pulumi.CustomResourceOptions) {
    // Registered only when they may be set: each registered output costs the SDK four pending promises.
    const mayBeSet = hooks.mayBeSet?.(args) ?? true;
    const inputs = {
      udfBodyHash: undefined,
      ...(mayBeSet ? { sharedToken: undefined } : {}),
      ...Object.fromEntries((hooks.registers ?? []).map((output) => [output, undefined])),
      ...args,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("Udf"), name, withStub("Udf", inputs), {
        ...hooks.defaults,
        ...opts,
        additionalSecretOutputs: [
          ...(opts?.additionalSecretOutputs ?? []),
          ...(mayBeSet ? ["sharedToken"] : []),
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

hooks.decorate?.(Udf.prototype);
