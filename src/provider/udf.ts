import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "./stub";

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
export class Udf extends pulumi.dynamic.Resource {
  declare readonly canvasId: pulumi.Output<string>;
  declare readonly slug: pulumi.Output<string>;
  declare readonly entrypoint: pulumi.Output<string>;
  /** The platform's hash of the body last written. */
  declare readonly udfBodyHash: pulumi.Output<string>;
  /** The per-UDF shared token (`fsh_...`), when `createSharedToken` is true. Secret. */
  declare readonly sharedToken: pulumi.Output<string | undefined>;

  constructor(name: string, args: UdfArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerFor("Udf"), name, { udfBodyHash: undefined, sharedToken: undefined, ...args }, {
      ...opts,
      additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "sharedToken"],
    }, "svc", "Udf");
  }
}
