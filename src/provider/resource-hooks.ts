/**
 * What a generated Pulumi class (`./<kind>.ts`, from the kind's definition) takes from the
 * hand-written `./<kind>-hooks.ts` when its definition sets `pulumiHooks`: the behaviour a
 * definition cannot say. Everything else (declared outputs, registered outputs, secret inputs
 * and outputs) is derived from the definition.
 */
import type * as pulumi from "@pulumi/pulumi";

export interface ResourceHooks<Args> {
  /**
   * Outputs registered besides the definition's own (inputs the arguments may leave unset: naming
   * them registers them). Each registered output costs the SDK four pending promises.
   */
  registers?: readonly string[];
  /**
   * Whether the outputs that may never be set (secret and not `required`) are registered, and
   * registered as secret outputs, for these arguments.
   * @default true
   */
  mayBeSet?(args: Args): boolean;
  /** Secret outputs besides the definition's (an input the provider returns as an output). */
  secretOutputs?: readonly string[];
  /** Resource options taken unless the program sets them. */
  defaults?: pulumi.CustomResourceOptions;
  /** Runs once on the class's prototype (a getter for an output that is not always registered). */
  decorate?(prototype: object): void;
}
