/**
 * What every svc resource class hands the SDK when it registers: the type token, the inputs with
 * the provider stub, and quiet stacks while the SDK's constructor runs.
 *
 * Each class extends `pulumi.CustomResource` itself (no base class between them): the SDK takes
 * as a resource's source position the first frame after its own constructors and the one of the
 * resource's class, which is then the user's `new svc.Udf(...)` line, not a line of this package.
 */
import { providerText } from "./stub";
import { SvcError } from "../errors";

const PROVIDER_KEY = "__provider";

/**
 * The type token `pulumi.dynamic.Resource` gives kind `kind` of module "svc". Kept as it was, so
 * URNs in existing stacks never change, and the engine runs the kind on the dynamic-provider host.
 */
export function dynamicType(kind: string): string {
  return `pulumi-nodejs:dynamic/svc:${kind}`;
}

/** The inputs as registered: the caller's, plus the kind's provider stub in `__provider`. */
export function withStub<T extends object>(kind: string, props: T): T & { __provider: string } {
  if (PROVIDER_KEY in props)
    throw new SvcError(
      "reserved_input",
      `svc.${kind}: "${PROVIDER_KEY}" is reserved for the provider stub and cannot be an input`,
    );
  return { ...props, __provider: providerText(kind) };
}

/**
 * Stacks captured while the SDK's resource constructor runs, switched off for its duration.
 *
 * The SDK wraps each of a resource's pending promises (four per property, two each for `urn` and
 * `id`) with a stack captured by `new Error().stack`, read only to print leaked promises under
 * `PULUMI_DEBUG_PROMISE_LEAKS`. For 10,000 `svc.Udf` they were 30% of the memory the program
 * holds once they are declared, and 45% of its time. With `PULUMI_DEBUG_PROMISE_LEAKS` set, stacks
 * are kept.
 * The SDK takes the resource's source position with its own unlimited stack either way.
 */
export interface QuietStacks {
  /** Puts back the program's `Error.stackTraceLimit`; safe to call twice. */
  restore(): void;
  /**
   * The error a constructor threw while stacks were quiet, with the stack of the program's call
   * (above `ctor`) when it has none of its own.
   */
  atCaller(error: unknown, ctor: Function): unknown;
}

export function quietStacks(): QuietStacks {
  const limit = Error.stackTraceLimit;
  if (!process.env.PULUMI_DEBUG_PROMISE_LEAKS) Error.stackTraceLimit = 0;
  const restore = () => {
    Error.stackTraceLimit = limit;
  };
  return {
    restore,
    atCaller(error, ctor) {
      restore();
      if (error instanceof Error && !/\n\s+at /.test(error.stack ?? "")) Error.captureStackTrace(error, ctor);
      return error;
    },
  };
}
