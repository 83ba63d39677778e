/**
 * Cron expressions (`m h dom mon dow`) to and from the platform's schedule arrays (spec 2.1). Pure.
 *
 * The platform's rules, which differ from classic cron:
 * - `minute` holds exactly one value: a cronjob runs at most once an hour, at one minute.
 * - `day_of_month`, `month` and `day_of_week` use an empty array for "every"; a list covering the
 *   whole range means the same and is normalized to `[]`, so equivalent schedules never drift.
 * - `hour` has no "empty = every" rule in the spec, so every hour is sent as the explicit `0..23`
 *   (the emulator reads `[]` as every hour too; both normalize to `0..23`).
 * - Day of week: 0 = Sunday; 7 is accepted as Sunday and stored as 0.
 * - When both day-of-month and day-of-week are restricted, a day must match both (the emulator's
 *   reading; classic cron would run on either).
 */

/** The platform's schedule, camelCase, normalized: sorted, no duplicates, "every" as above. */
export interface ScheduleArrays {
  minute: number[];
  hour: number[];
  dayOfMonth: number[];
  month: number[];
  dayOfWeek: number[];
}

export type ScheduleField = keyof ScheduleArrays;

interface FieldSpec {
  /** How messages name the field. */
  label: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** Index of `names[0]`. */
  namesFrom?: number;
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] as const;

export const FIELDS: Record<ScheduleField, FieldSpec> = {
  minute: { label: "minute", min: 0, max: 59 },
  hour: { label: "hour", min: 0, max: 23 },
  dayOfMonth: { label: "day of month", min: 1, max: 31 },
  month: { label: "month", min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  // 7 is Sunday as in most crons; normalized to 0.
  dayOfWeek: { label: "day of week", min: 0, max: 7, names: DAYS, namesFrom: 0 },
};

const ORDER: readonly ScheduleField[] = ["minute", "hour", "dayOfMonth", "month", "dayOfWeek"];

const MACROS: Record<string, string> = {
  "@hourly": "0 * * * *",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@weekly": "0 0 * * 0",
  "@monthly": "0 0 1 * *",
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
};

const ALL_HOURS = Array.from({ length: 24 }, (_, h) => h);

/** Why the minute field must hold one value, for messages. */
export const ONE_MINUTE_RULE =
  'The platform runs a cronjob at most once an hour, at exactly one minute; give one minute value (e.g. "0"), or declare several cronjobs, one per minute value.';

export type ParseResult = { ok: true; schedule: ScheduleArrays } | { ok: false; errors: string[] };

/**
 * Parses a 5-field cron expression (`"0 6 * * 1-5"`), or `@hourly`, `@daily`, `@weekly`,
 * `@monthly`, `@yearly`. Every error is reported, each naming the field and the part at fault.
 */
export function parseCron(expression: string): ParseResult {
  const text = MACROS[expression.trim().toLowerCase()] ?? expression.trim();
  const parts = text.split(/\s+/).filter(Boolean);
  if (parts.length !== 5) {
    return {
      ok: false,
      errors: [
        `A cron expression has 5 fields "minute hour day-of-month month day-of-week", e.g. "0 6 * * 1-5"; found ${parts.length} in ${JSON.stringify(expression)}.`,
      ],
    };
  }
  const errors: string[] = [];
  const out = {} as ScheduleArrays;
  ORDER.forEach((field, i) => {
    const r = parseField(field, parts[i]);
    if (typeof r === "string") errors.push(r);
    else out[field] = r;
  });
  const oneMinute = out.minute && minuteError(sortedUnique(out.minute), parts[0]);
  if (oneMinute) errors.unshift(oneMinute);
  if (errors.length) return { ok: false, errors };
  return { ok: true, schedule: normalizeSchedule(out) };
}

/** The message for a minute field that does not hold exactly one value, or undefined. */
export function minuteError(values: readonly number[], shown?: string): string | undefined {
  if (values.length === 1) return undefined;
  const field = shown === undefined ? "The minute field" : `The minute field ${JSON.stringify(shown)}`;
  if (values.length === 0) return `${field} is empty. ${ONE_MINUTE_RULE}`;
  const times = values.length === 60 ? "every minute" : `${values.length} times an hour (${values.join(",")})`;
  return `${field} runs ${times}. ${ONE_MINUTE_RULE}`;
}

/** One field's values (unsorted, with duplicates), or an error message. */
function parseField(field: ScheduleField, text: string): number[] | string {
  const spec = FIELDS[field];
  const values: number[] = [];
  for (const item of text.split(",")) {
    const r = parseItem(spec, item);
    if (typeof r === "string") return `Invalid ${spec.label} field ${JSON.stringify(text)}: ${r}`;
    values.push(...r);
  }
  return values;
}

function parseItem(spec: FieldSpec, item: string): number[] | string {
  const [range, stepText, extra] = item.split("/");
  if (extra !== undefined || range === "")
    return `${JSON.stringify(item)} is not a value, a range "a-b", a list "a,b" or a step "*/n".`;
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
      return `the step in ${JSON.stringify(item)} must be a whole number above 0.`;
    step = Number(stepText);
  }
  let from: number;
  let to: number;
  if (range === "*") {
    [from, to] = [spec.min, top(spec)];
  } else {
    const [a, b, more] = range.split("-");
    if (more !== undefined)
      return `${JSON.stringify(item)} is not a value, a range "a-b", a list "a,b" or a step "*/n".`;
    const lo = value(spec, a);
    if (typeof lo === "string") return lo;
    const hi = b === undefined ? (stepText === undefined ? lo : top(spec)) : value(spec, b);
    if (typeof hi === "string") return hi;
    if (hi < lo)
      return `the range ${JSON.stringify(range)} goes from high to low; write it from low to high (wrap-around is not supported).`;
    [from, to] = [lo, hi];
  }
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

/** The last value `*` covers (day of week: Saturday; 7 only as an explicit Sunday). */
const top = (spec: FieldSpec) => (spec.names === DAYS ? 6 : spec.max);

function value(spec: FieldSpec, text: string): number | string {
  const named = spec.names?.indexOf(text.toUpperCase() as never) ?? -1;
  if (named >= 0) return named + (spec.namesFrom ?? 0);
  if (!/^\d+$/.test(text)) {
    const names = spec.names ? ` or a name ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : "";
    return `${JSON.stringify(text)} is not a number from ${spec.min} to ${spec.max}${names}.`;
  }
  const n = Number(text);
  if (n < spec.min || n > spec.max) return `${n} is out of range ${spec.min}-${spec.max}.`;
  return n;
}

const sortedUnique = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** Normalizes one array field: sorted, unique, Sunday as 0, "every" as the platform stores it. */
export function normalizeField(field: ScheduleField, values: readonly number[]): number[] {
  const xs = sortedUnique(field === "dayOfWeek" ? values.map((v) => (v === 7 ? 0 : v)) : values);
  if (field === "hour") return xs.length === 0 ? [...ALL_HOURS] : xs;
  if (field === "minute") return xs;
  const { min, max } = FIELDS[field];
  const size = (field === "dayOfWeek" ? 6 : max) - min + 1;
  return xs.length === size ? [] : xs;
}

export function normalizeSchedule(s: ScheduleArrays): ScheduleArrays {
  return {
    minute: normalizeField("minute", s.minute),
    hour: normalizeField("hour", s.hour),
    dayOfMonth: normalizeField("dayOfMonth", s.dayOfMonth),
    month: normalizeField("month", s.month),
    dayOfWeek: normalizeField("dayOfWeek", s.dayOfWeek),
  };
}

/** The canonical cron expression of a schedule: `{minute:[0],hour:[6],…,dayOfWeek:[1..5]}` → `"0 6 * * 1-5"`. */
export function formatCron(s: ScheduleArrays): string {
  const n = normalizeSchedule(s);
  return ORDER.map((f) => (f === "hour" && n.hour.length === 24 ? "*" : compress(n[f]))).join(" ");
}

/** `[1,2,3,5]` → `"1-3,5"`; `[]` → `"*"`. */
function compress(xs: readonly number[]): string {
  if (xs.length === 0) return "*";
  const parts: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    parts.push(j - i >= 2 ? `${xs[i]}-${xs[j]}` : j > i ? `${xs[i]},${xs[j]}` : `${xs[i]}`);
    i = j + 1;
  }
  return parts.join(",");
}
