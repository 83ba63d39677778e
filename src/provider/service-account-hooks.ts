/** What the generated `ServiceAccount` class (`./service-account.ts`) cannot take from the definition. */
import type { ServiceAccountArgs } from "./arguments";
import type { ResourceHooks } from "./resource-hooks";

export const serviceAccountHooks: ResourceHooks<ServiceAccountArgs> = {
  // Replaced new before old: the new token can be distributed before the old one stops working.
  defaults: { deleteBeforeReplace: false },
};
