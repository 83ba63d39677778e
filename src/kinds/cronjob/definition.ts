/** The Cronjob kind's fields: its Pulumi arguments and outputs (`src/provider/cronjob.ts`). */
import type { FieldCheck, KindDefinition } from "../kind-definition";
import { onDrift, orVarRef, protect } from "../repository-keys";

/** The check of a schedule array: whole numbers from `min` to `max`, named in one message. */
function scheduleValues(
  field: string,
  min: number,
  max: number,
  example: string,
  every: string,
  label = field,
): FieldCheck {
  return {
    message: `${field} is a list of ${label} values ${min}-${max}, e.g. ${example}${every}.`,
    minimum: min,
    maximum: max,
  };
}

export const cronjobDefinition = {
  kind: "Cronjob",
  description:
    'A UDF run on a schedule (batch compute: the team needs billing enabled). Every field updates in place; an equivalent schedule written differently (`"0 6 * * 1-5"` or the arrays) is no change.',
  example: 'new svc.Cronjob("nightly", { name: "nightly_refresh", schedule: "0 2 * * *", udfId: loader.id });',
  inputs: {
    name: {
      type: "string",
      description:
        "The cronjob's name, its identity in the team: a cronjob of that name is adopted. Renaming updates in place.",
      required: true,
      output: "always",
      example: '"nightly_refresh"',
      check: {
        message: "A cronjob name is a non-empty string.",
        minLength: { value: 1, message: "A cronjob name must not be empty." },
      },
    },
    schedule: {
      type: "string",
      description:
        'When to run, as a cron expression `"minute hour day-of-month month day-of-week"` (UTC), or `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`. Ranges, lists, steps and the names `MON`-`SUN`, `JAN`-`DEC` are accepted. The minute must be ONE value: the platform runs a cronjob at most once an hour. When both day fields are restricted, a day must match both. Give this or the arrays (`minute` …), not both.',
      output: "always",
      outputDescription: 'The schedule as a canonical cron expression, e.g. `"0 6 * * 1-5"`.',
      example: '"0 6 * * MON-FRI"',
      check: {
        message: 'schedule is a cron expression "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5".',
      },
    },
    minute: {
      type: { oneOf: ["integer", { array: "integer" }] },
      description: "The one minute of the hour to run at (array form).",
      output: "always",
      outputType: { array: "integer" },
      example: "[0]",
      check: scheduleValues("minute", 0, 59, "[0]", "; exactly one value"),
    },
    hour: {
      type: { array: "integer" },
      description: "Hours 0-23 (array form).",
      output: "always",
      defaultDoc: "every hour",
      example: "[6, 18]",
      check: scheduleValues("hour", 0, 23, "[6, 18]", "; [] means every hour"),
    },
    dayOfMonth: {
      type: { array: "integer" },
      description: "Days of the month 1-31 (array form).",
      output: "always",
      defaultDoc: "[] (every day)",
      check: scheduleValues("dayOfMonth", 1, 31, "[1, 15]", "; [] means every day", "day of month"),
    },
    month: {
      type: { array: "integer" },
      description: "Months 1-12 (array form).",
      output: "always",
      defaultDoc: "[] (every month)",
      check: scheduleValues("month", 1, 12, "[1, 7]", "; [] means every month"),
    },
    dayOfWeek: {
      type: { array: "integer" },
      description: "Days of the week, 0 (or 7) = Sunday (array form).",
      output: "always",
      defaultDoc: "[] (every day)",
      example: "[1, 2, 3, 4, 5]",
      check: scheduleValues(
        "dayOfWeek",
        0,
        7,
        "[1, 2, 3, 4, 5] (0 or 7 = Sunday)",
        "; [] means every day",
        "day of week",
      ),
    },
    udfId: {
      type: "string",
      description: "The id of the UDF to run.",
      required: true,
      output: "always",
      example: "udf.id",
      check: {
        message: "udfId is the id of the UDF to run (a `Udf` resource's `id`).",
        minLength: { value: 1, message: "udfId must not be empty." },
      },
    },
    udfArgs: {
      type: { map: "any" },
      description: "Arguments passed to the UDF on each run.",
      defaultDoc: "none",
      example: '{ city: "nyc" }',
      check: { message: 'udfArgs is an object of arguments passed on each run, e.g. {"city": "nyc"}.', nullable: true },
    },
    enabled: {
      type: "boolean",
      description: "Whether the schedule is active; `false` pauses it and keeps the cronjob.",
      default: true,
      output: "always",
      check: { message: "enabled is true or false." },
    },
    description: {
      type: "string",
      description: "Free text.",
      defaultDoc: "none",
      check: { message: "description is a string.", nullable: true },
    },
  },
  outputs: {
    lastRun: { type: "string", description: "When it last ran, or null." },
  },
  repository: {
    file: {
      schema: "cronjob",
      title: "cronjobs/<name>.yaml",
      description:
        "A UDF run on a schedule; the cronjob's name is the file name. Give schedule, or the arrays (minute required), not both.",
      rules: { required: ["udf"], oneOf: [{ required: ["schedule"] }, { required: ["minute"] }] },
    },
    keys: {
      schedule: {
        schema: {
          type: "string",
          description:
            'A cron expression "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5". The minute field holds exactly one value: the platform runs a cronjob at one minute of each matching hour.',
        },
        input: "schedule",
      },
      minute: {
        schema: orVarRef("The one minute of the hour the cronjob runs at (0-59).", {
          anyOf: [
            { type: "integer", minimum: 0, maximum: 59 },
            { type: "array", items: { type: "integer", minimum: 0, maximum: 59 }, minItems: 1, maxItems: 1 },
          ],
        }),
        input: "minute",
      },
      hour: {
        schema: orVarRef("Hours (0-23); [] means every hour.", {
          type: "array",
          items: { type: "integer", minimum: 0, maximum: 23 },
        }),
        input: "hour",
      },
      day_of_month: {
        schema: orVarRef("Days of the month (1-31); [] means every day.", {
          type: "array",
          items: { type: "integer", minimum: 1, maximum: 31 },
        }),
        input: "dayOfMonth",
      },
      month: {
        schema: orVarRef("Months (1-12); [] means every month.", {
          type: "array",
          items: { type: "integer", minimum: 1, maximum: 12 },
        }),
        input: "month",
      },
      day_of_week: {
        schema: orVarRef("Days of the week (0 or 7 = Sunday); [] means every day.", {
          type: "array",
          items: { type: "integer", minimum: 0, maximum: 7 },
        }),
        input: "dayOfWeek",
      },
      udf: {
        schema: {
          type: "string",
          pattern: "^[A-Za-z0-9_]+/[A-Za-z0-9_-]+$",
          description: "The UDF to run, as <canvas>/<slug>; it must exist in the repository.",
        },
        field: "udfId",
      },
      args: {
        schema: { type: "object", description: "Arguments passed to the UDF on each run.", additionalProperties: true },
        input: "udfArgs",
      },
      enabled: {
        schema: orVarRef("Whether the cronjob runs. Default true.", { type: "boolean" }, true),
        input: "enabled",
        keep: true,
      },
      description: {
        schema: { type: "string", description: "A description shown on the platform." },
        input: "description",
        keep: true,
      },
      protect: { schema: protect("cronjob") },
      on_drift: { schema: onDrift("cronjob") },
    },
  },
  pulumiHooks: true,
  importId: {
    id: "CRONJOB_ID",
    where: "the cronjob's id",
    inputs: ["name", "schedule", "udfId", "udfArgs", "enabled", "description"],
  },
} satisfies KindDefinition;
