/** What the generated `Cronjob` class (`./cronjob.ts`) cannot take from the definition. */
import type { CronjobArgs } from "./arguments";
import type { ResourceHooks } from "./resource-hooks";

export const cronjobHooks: ResourceHooks<CronjobArgs> = {
  // Undefined inputs are not sent; naming them registers every output (the normalized schedule).
  registers: ["schedule", "minute", "hour", "dayOfMonth", "month", "dayOfWeek", "enabled"],
};
