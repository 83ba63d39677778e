import * as pulumi from "@pulumi/pulumi";
import type { UdfArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { UdfHeaderArgs, UdfArgs } from "./arguments";

/**
 * A UDF on a canvas. Created, or adopted when the canvas already has a UDF with that slug (its body
 * is then rewritten). After a body change on a shared canvas the UDF's real-time cache is dropped,
 * so shared URLs serve the new code.
 *
 * @example
 * const listings = new svc.Udf("listings", { canvasId: canvas.id, slug: "listings", codePath: "udfs/listings.py" });
 */
export class Udf extends pulumi.CustomResource {
  declare readonly canvasId: pulumi.Output<string>;
  declare readonly slug: pulumi.Output<string>;
  declare readonly entrypoint: pulumi.Output<string>;
  /** The platform's hash of the body last written. */
  declare readonly udfBodyHash: pulumi.Output<string>;
  /**
   * The per-UDF shared token (`fsh_...`), when `createSharedToken` is true. Secret. Without
   * `createSharedToken` it resolves to undefined once the UDF is created.
   */
  declare readonly sharedToken: pulumi.Output<string | undefined>;

  constructor(name: string, args: UdfArgs, opts?: pulumi.CustomResourceOptions) {
    // `sharedToken` is registered as an output only when a token may be minted: each registered
    // output costs the SDK four pending promises per resource (see `quietStacks`).
    const mintsToken = args.createSharedToken !== undefined && args.createSharedToken !== false;
    const outputs = mintsToken ? { udfBodyHash: undefined, sharedToken: undefined } : { udfBodyHash: undefined };
    const secret = mintsToken
      ? { additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "sharedToken"] }
      : {};
    const stacks = quietStacks();
    try {
      super(dynamicType("Udf"), name, withStub("Udf", { ...outputs, ...args }), { ...opts, ...secret });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}

// A UDF that mints no token has no registered `sharedToken`: reading it gives an output of
// undefined that depends on the UDF, made on first read. The SDK's assignment of the registered
// output (when a token is minted) lands on the instance through the setter.
Object.defineProperty(Udf.prototype, "sharedToken", {
  configurable: true,
  get(this: Udf) {
    const none = this.id.apply(() => undefined);
    Object.defineProperty(this, "sharedToken", { value: none, enumerable: true, configurable: true });
    return none;
  },
  set(this: Udf, value: unknown) {
    Object.defineProperty(this, "sharedToken", { value, writable: true, enumerable: true, configurable: true });
  },
});
