/**
 * Cronjob: a UDF run on a schedule (spec 2.1, 4.3). Natural key: the name. The schedule is given as
 * a cron expression (`"0 6 * * 1-5"`) or as the platform's arrays; both normalize to the same
 * arrays, so switching forms or writing an equivalent schedule is no change. Every field updates in
 * place (the update endpoint takes any subset; we send them all so removed fields are cleared).
 */
import { z } from "zod";
import { isApiError } from "../../api/errors";
import { unlessMissing } from "../missing";
import type { CreateCronjobInput } from "../../api/cronjobs";
import type { Cronjob as ApiCronjob } from "../../api/schemas";
import { checkWith } from "../check";
import {
  formatCron,
  minuteError,
  normalizeField,
  normalizeSchedule,
  parseCron,
  type ScheduleField,
} from "./cron-expression";
import { diffFields } from "../field-diff";
import type { CheckFailure, KindContext, ResourceKind } from "../kind";
import type { ReconcileTraits } from "../reconcile-traits";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { cronjobDefinition } from "./definition";
import { SvcError } from "../../errors";

const ARRAY_FIELDS = ["minute", "hour", "dayOfMonth", "month", "dayOfWeek"] as const satisfies readonly ScheduleField[];

/** The inputs as checked: a minute given as one number is the array of that number. */
type Raw = Omit<CheckedInputs<typeof cronjobDefinition>, "minute"> & { minute?: number[] };

const RawInputs = definitionCheck<typeof cronjobDefinition, Raw>(cronjobDefinition, {
  fields: {
    // One minute may be given as a number; the platform stores a one-element array.
    minute: (_, ofType) => z.preprocess((v) => (typeof v === "number" ? [v] : v), ofType({ array: "integer" })),
  },
});

/** Normalized desired state: the schedule always as the platform's arrays. */
export interface CronjobInputs {
  name: string;
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  dayOfWeek: number[];
  udfId: string;
  udfArgs?: Record<string, unknown>;
  enabled: boolean;
  description?: string;
}

/** Kept state: the inputs, the schedule written back as a canonical cron expression, and outputs. */
export interface CronjobState extends CronjobInputs {
  id: string;
  /** Canonical cron expression of the arrays, e.g. `"0 6 * * 1-5"`. */
  schedule: string;
  lastRun: string | null;
}

const present = (raw: unknown, f: string) =>
  !!raw && typeof raw === "object" && (raw as Record<string, unknown>)[f] !== undefined;

/** The minute values of the array form when they are well formed (else the schema reports them). */
function minuteValues(m: unknown): number[] | undefined {
  const list = typeof m === "number" ? [m] : m;
  return Array.isArray(list) && list.every((v) => Number.isInteger(v) && v >= 0 && v <= 59) ? list : undefined;
}

/** The two schedule forms: exactly one, a cron expression that parses, one minute value. */
function scheduleFailures(raw: unknown): CheckFailure[] {
  const arrays = ARRAY_FIELDS.filter((f) => present(raw, f));
  const hasSchedule = present(raw, "schedule");
  if (hasSchedule && arrays.length) {
    return [
      {
        property: "schedule",
        reason: `Give either schedule (a cron expression) or the arrays minute, hour, dayOfMonth, month, dayOfWeek, not both; found schedule and ${arrays.join(", ")}.`,
      },
    ];
  }
  if (!hasSchedule && !arrays.length) {
    return [
      {
        property: "schedule",
        reason:
          'schedule is required: a cron expression such as "0 6 * * 1-5", or the arrays minute (one value), hour, dayOfMonth, month, dayOfWeek.',
      },
    ];
  }
  const schedule = (raw as Record<string, unknown>).schedule;
  if (typeof schedule === "string") {
    const r = parseCron(schedule);
    return r.ok
      ? []
      : r.errors.map((e) => ({ property: "schedule", reason: `Invalid schedule ${JSON.stringify(schedule)}. ${e}` }));
  }
  if (!hasSchedule && !present(raw, "minute")) {
    return [
      {
        property: "minute",
        reason: "minute is required with the array form: the one minute of the hour the cronjob runs at, e.g. [0].",
      },
    ];
  }
  const minute = minuteValues((raw as Record<string, unknown>).minute);
  const problem = minute && minuteError([...new Set(minute)].sort((a, b) => a - b));
  return problem ? [{ property: "minute", reason: `Invalid minute ${JSON.stringify(minute)}. ${problem}` }] : [];
}

function normalize(r: Raw): CronjobInputs {
  const arrays =
    r.schedule !== undefined
      ? (parseCron(r.schedule) as { schedule: Record<ScheduleField, number[]> }).schedule
      : normalizeSchedule({
          minute: r.minute ?? [],
          hour: r.hour ?? [],
          dayOfMonth: r.dayOfMonth ?? [],
          month: r.month ?? [],
          dayOfWeek: r.dayOfWeek ?? [],
        });
  return {
    name: r.name,
    ...arrays,
    udfId: r.udfId,
    ...(r.udfArgs ? { udfArgs: r.udfArgs } : {}),
    enabled: r.enabled,
    ...(typeof r.description === "string" ? { description: r.description } : {}),
  };
}

function toBody(i: CronjobInputs): CreateCronjobInput {
  return {
    name: i.name,
    enabled: i.enabled,
    minute: i.minute,
    hour: i.hour,
    day_of_month: i.dayOfMonth,
    month: i.month,
    day_of_week: i.dayOfWeek,
    udf: i.udfId,
    // null clears a description or arguments removed from the desired state.
    description: i.description ?? null,
    udf_args: i.udfArgs ?? null,
  };
}

/** Maps a platform cronjob to kept state, normalizing its arrays. */
export function cronjobState(c: ApiCronjob): CronjobState {
  const arrays = normalizeSchedule({
    minute: c.minute,
    hour: c.hour,
    dayOfMonth: c.day_of_month,
    month: c.month,
    dayOfWeek: c.day_of_week,
  });
  return {
    id: c.id,
    name: c.name,
    schedule: formatCron(arrays),
    ...arrays,
    udfId: c.udf,
    ...(c.udf_args ? { udfArgs: c.udf_args } : {}),
    enabled: c.enabled,
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    lastRun: c.last_run ?? null,
  };
}

async function findByName(ctx: KindContext, name: string): Promise<ApiCronjob | undefined> {
  // Names are not unique on the platform; the listing is oldest first, so the oldest is adopted.
  return (await ctx.client.cronjobs.list()).find((c) => c.name === name);
}

async function createNew(ctx: KindContext, inputs: CronjobInputs): Promise<ApiCronjob> {
  try {
    return await ctx.client.cronjobs.create(toBody(inputs));
  } catch (e) {
    if (!isApiError(e, "forbidden")) throw e;
    throw new SvcError(
      "billing_required",
      `Cannot create cronjob "${inputs.name}": the platform refused it (403). Creating a cronjob needs billing enabled for the team, because scheduled runs use batch compute. ${e.message}`,
      { cause: e },
    );
  }
}

export const cronjobKind: ResourceKind<CronjobInputs, CronjobState> = {
  kind: "Cronjob",
  secretInputs: [],
  secretOutputs: [],
  check(raw) {
    const base = checkWith(RawInputs, raw);
    const form = scheduleFailures(raw);
    const failures = [...base.failures.filter((f) => !form.some((g) => g.property === f.property)), ...form];
    if (failures.length) return { inputs: (raw ?? {}) as CronjobInputs, failures };
    return { inputs: normalize(base.inputs), failures: [] };
  },
  key: (i) => i.name,
  diff(olds, news) {
    const old: Record<string, unknown> = { ...olds };
    for (const f of ARRAY_FIELDS) old[f] = normalizeField(f, olds[f] ?? []);
    // Listed explicitly so removing an optional field is a change too.
    return diffFields(old, { ...news, udfArgs: news.udfArgs, description: news.description }, {});
  },
  async create(ctx, inputs) {
    const existing = await findByName(ctx, inputs.name);
    if (existing) {
      // Adopt, then make it match: a lost answer to an earlier create must not leave a duplicate.
      const c = await ctx.client.cronjobs.update(existing.id, toBody(inputs));
      return { id: c.id, state: cronjobState(c), adopted: true };
    }
    const c = await createNew(ctx, inputs);
    return { id: c.id, state: cronjobState(c), adopted: false };
  },
  async read(ctx, id) {
    try {
      return cronjobState(await ctx.client.cronjobs.get(id));
    } catch (e) {
      if (isApiError(e, "not_found")) return undefined;
      throw e;
    }
  },
  async update(ctx, id, _olds, news) {
    return cronjobState(await ctx.client.cronjobs.update(id, toBody(news)));
  },
  async delete(ctx, id) {
    await unlessMissing(ctx.client.cronjobs.delete(id));
  },
  async observeAll(ctx) {
    // One request returns every cronjob of the environment with full records.
    return (await ctx.client.cronjobs.list()).map((c) => ({ id: c.id, key: c.name, state: cronjobState(c) }));
  },
};

export const cronjobTraits: ReconcileTraits = {
  phase: 5,
  nameInput: "name",
  addressPrefix: "cronjob",
  references: [{ field: "udfId", ref: "udf", shown: true }],
  volatile: ["lastRun"],
  textFields: { udfArgs: "json" },
  // Import writes the cronjobs running UDFs of the canvases it imports.
  // The update sends the name: a renamed cronjob (by a moved: entry) keeps its id and history.
  renames: {},
  observeGroup: "canvas",
  cascade: { effect: "broken", why: "the UDF it runs is deleted, so it stays scheduled and every run fails" },
  // Cronjobs running this project's UDFs (declared or in the inventory).
  unmanaged: {
    within: "Udf",
    parents: "claimed",
    parentId: (o) => String(o.state.udfId),
    address: (o) => `cronjob.${o.state.name}`,
  },
};
