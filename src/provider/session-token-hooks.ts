/** What the generated `SessionToken` class (`./session-token.ts`) cannot take from the definition. */
import type { SessionTokenArgs } from "./arguments";
import type { ResourceHooks } from "./resource-hooks";

export const sessionTokenHooks: ResourceHooks<SessionTokenArgs> = {
  // The provider returns the canvas token among its outputs: kept secret there too.
  secretOutputs: ["canvasToken"],
};
