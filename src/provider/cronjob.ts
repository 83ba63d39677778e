import * as pulumi from "@pulumi/pulumi";
import { dynamicType, quietStacks, withStub } from "./registration";

export interface CronjobArgs {
  /**
   * The cronjob's name, its identity in the team: a cronjob of that name is adopted. Renaming updates in place.
   * @example "nightly_refresh"
   */
  name: pulumi.Input<string>;
  /**
   * When to run, as a cron expression `"minute hour day-of-month month day-of-week"` (UTC), or
   * `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. Ranges, lists, steps and the names
   * `MON`-`SUN`, `JAN`-`DEC` are accepted. The minute must be ONE value: the platform runs a
   * cronjob at most once an hour. When both day fields are restricted, a day must match both.
   * Give this or the arrays (`minute` …), not both.
   * @example "0 6 * * MON-FRI"
   */
  schedule?: pulumi.Input<string>;
  /**
   * The one minute of the hour to run at (array form).
   * @example [0]
   */
  minute?: pulumi.Input<number | number[]>;
  /**
   * Hours 0-23 (array form).
   * @default every hour
   * @example [6, 18]
   */
  hour?: pulumi.Input<number[]>;
  /**
   * Days of the month 1-31 (array form).
   * @default [] (every day)
   */
  dayOfMonth?: pulumi.Input<number[]>;
  /**
   * Months 1-12 (array form).
   * @default [] (every month)
   */
  month?: pulumi.Input<number[]>;
  /**
   * Days of the week, 0 (or 7) = Sunday (array form).
   * @default [] (every day)
   * @example [1, 2, 3, 4, 5]
   */
  dayOfWeek?: pulumi.Input<number[]>;
  /**
   * The id of the UDF to run.
   * @example udf.id
   */
  udfId: pulumi.Input<string>;
  /**
   * Arguments passed to the UDF on each run.
   * @default none
   * @example { city: "nyc" }
   */
  udfArgs?: pulumi.Input<Record<string, unknown>>;
  /**
   * Whether the schedule is active; `false` pauses it and keeps the cronjob.
   * @default true
   */
  enabled?: pulumi.Input<boolean>;
  /**
   * Free text.
   * @default none
   */
  description?: pulumi.Input<string>;
}

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
