/**
 * The `Cronjob` Pulumi resource. Generated from `src/kinds/cronjob/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition, or `./cronjob-hooks.ts` for what it cannot say.
 */
import * as pulumi from "@pulumi/pulumi";
import type { CronjobArgs } from "./arguments";
import { cronjobHooks as hooks } from "./cronjob-hooks";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { CronjobArgs } from "./arguments";

/**
 * A UDF run on a schedule (batch compute: the team needs billing enabled). Every field updates in
 * place; an equivalent schedule written differently (`"0 6 * * 1-5"` or the arrays) is no change.
 *
 * @example
 * new svc.Cronjob("nightly", { name: "nightly_refresh", schedule: "0 2 * * *", udfId: loader.id });
 */
export class Cronjob extends pulumi.CustomResource {
  /**
   * The cronjob's name, its identity in the team: a cronjob of that name is adopted. Renaming
   * updates in place.
   */
  declare readonly name: pulumi.Output<string>;
  /**
   * The schedule as a canonical cron expression, e.g. `"0 6 * * 1-5"`.
   */
  declare readonly schedule: pulumi.Output<string>;
  /**
   * The one minute of the hour to run at (array form).
   */
  declare readonly minute: pulumi.Output<number[]>;
  /**
   * Hours 0-23 (array form).
   */
  declare readonly hour: pulumi.Output<number[]>;
  /**
   * Days of the month 1-31 (array form).
   */
  declare readonly dayOfMonth: pulumi.Output<number[]>;
  /**
   * Months 1-12 (array form).
   */
  declare readonly month: pulumi.Output<number[]>;
  /**
   * Days of the week, 0 (or 7) = Sunday (array form).
   */
  declare readonly dayOfWeek: pulumi.Output<number[]>;
  /**
   * The id of the UDF to run.
   */
  declare readonly udfId: pulumi.Output<string>;
  /**
   * Whether the schedule is active; `false` pauses it and keeps the cronjob.
   */
  declare readonly enabled: pulumi.Output<boolean>;
  /**
   * When it last ran, or null.
   */
  declare readonly lastRun: pulumi.Output<string | null>;

  constructor(name: string, args: CronjobArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      lastRun: undefined,
      ...Object.fromEntries((hooks.registers ?? []).map((output) => [output, undefined])),
      ...args,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("Cronjob"), name, withStub("Cronjob", inputs), {
        ...hooks.defaults,
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...(hooks.secretOutputs ?? [])],
      });
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}

hooks.decorate?.(Cronjob.prototype);
