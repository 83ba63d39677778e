import * as pulumi from "@pulumi/pulumi";
import type { CronjobArgs } from "./arguments";
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
  declare readonly name: pulumi.Output<string>;
  /** The schedule as a canonical cron expression, e.g. `"0 6 * * 1-5"`. */
  declare readonly schedule: pulumi.Output<string>;
  declare readonly minute: pulumi.Output<number[]>;
  declare readonly hour: pulumi.Output<number[]>;
  declare readonly dayOfMonth: pulumi.Output<number[]>;
  declare readonly month: pulumi.Output<number[]>;
  declare readonly dayOfWeek: pulumi.Output<number[]>;
  declare readonly udfId: pulumi.Output<string>;
  declare readonly enabled: pulumi.Output<boolean>;
  /** When it last ran, or null. */
  declare readonly lastRun: pulumi.Output<string | null>;

  constructor(name: string, args: CronjobArgs, opts?: pulumi.CustomResourceOptions) {
    // Undefined inputs are not sent; naming them registers every output.
    const outputs = {
      schedule: undefined,
      minute: undefined,
      hour: undefined,
      dayOfMonth: undefined,
      month: undefined,
      dayOfWeek: undefined,
      enabled: undefined,
      lastRun: undefined,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("Cronjob"), name, withStub("Cronjob", { ...outputs, ...args }), opts);
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
