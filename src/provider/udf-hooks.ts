/** What the generated `Udf` class (`./udf.ts`) cannot take from the definition. */
import type { UdfArgs } from "./arguments";
import type { ResourceHooks } from "./resource-hooks";

interface WithId {
  id: { apply(f: () => undefined): unknown };
}

export const udfHooks: ResourceHooks<UdfArgs> = {
  // `sharedToken` is registered as an output only when a token may be minted: each registered
  // output costs the SDK four pending promises per resource (see `quietStacks`).
  mayBeSet: (args) => args.createSharedToken !== undefined && args.createSharedToken !== false,
  // A UDF that mints no token has no registered `sharedToken`: reading it gives an output of
  // undefined that depends on the UDF, made on first read. The SDK's assignment of the registered
  // output (when a token is minted) lands on the instance through the setter.
  decorate(prototype) {
    Object.defineProperty(prototype, "sharedToken", {
      configurable: true,
      get(this: WithId) {
        const none = this.id.apply(() => undefined);
        Object.defineProperty(this, "sharedToken", { value: none, enumerable: true, configurable: true });
        return none;
      },
      set(this: WithId, value: unknown) {
        Object.defineProperty(this, "sharedToken", { value, writable: true, enumerable: true, configurable: true });
      },
    });
  },
};
