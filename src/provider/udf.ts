import * as pulumi from "@pulumi/pulumi";
import { dynamicType, quietStacks, withStub } from "./registration";

/** A helper module of a UDF, importable by its code (`import utils`). Give `code` or `codePath`. */
export interface UdfHeaderArgs {
  /**
   * The Python module name; its file in the UDF body is `<moduleName>.py`.
   * @example "utils"
   */
  moduleName: pulumi.Input<string>;
  /**
   * The module's Python source.
   * @default none (then `codePath` is required)
   */
  code?: pulumi.Input<string>;
  /**
   * Path of a `.py` file holding the module, relative to the Pulumi program folder; read at every
   * preview and update, so editing the file updates the UDF.
   * @default none (then `code` is required)
   * @example "udfs/utils.py"
   */
  codePath?: pulumi.Input<string>;
}

export interface UdfArgs {
  /**
   * The canvas holding the UDF. Changing it moves the UDF to the other canvas, in place.
   * @example canvas.id
   */
  canvasId: pulumi.Input<string>;
  /**
   * URL-safe name, unique on its canvas: letters, digits, `_` and `-`. Renaming updates in place.
   * @example "load-listings"
   */
  slug: pulumi.Input<string>;
  /**
   * The UDF's Python source. Give `code` or `codePath`.
   * @default none (then `codePath` is required)
   * @example "@fused.udf\ndef udf(city: str = \"nyc\"):\n    ...\n"
   */
  code?: pulumi.Input<string>;
  /**
   * Path of a `.py` file holding the UDF's source, relative to the Pulumi program folder. Its
   * content (not the path) is compared, so editing the file updates the UDF in place.
   * @default none (then `code` is required)
   * @example "udfs/listings.py"
   */
  codePath?: pulumi.Input<string>;
  /**
   * The name of the function to call.
   * @default "udf"
   */
  entrypoint?: pulumi.Input<string>;
  /**
   * Helper modules importable by the code.
   * @default []
   * @example [{ moduleName: "utils", codePath: "udfs/utils.py" }]
   */
  headers?: pulumi.Input<pulumi.Input<UdfHeaderArgs>[]>;
  /**
   * Free-form metadata, namespaced keys.
   * @default {}
   * @example { "fused:description": "Loads listings", "fused:tags": ["demo"] }
   */
  metadata?: pulumi.Input<Record<string, unknown>>;
  /**
   * Mint a per-UDF shared token (`sharedToken`). The platform only mints it when the UDF is
   * created, so changing this replaces the UDF (the old one is deleted first: slugs are unique).
   * A UDF adopted by slug has no `sharedToken`.
   * @default false
   */
  createSharedToken?: pulumi.Input<boolean>;
}

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
