/**
 * Partition folders (spec 4.11 rule 2): one folder level per partition column, `column=value`
 * (Hive style, value URL-encoded). A date column's folders name a period: `YYYY`, `YYYY-MM` or
 * `YYYY-MM-DD`. A query's `partition` / `partition_range` selects folders; a date column matches a
 * folder whose period overlaps the value or range, any other column compares values.
 */
import type { PartitionColumn } from "./dataset-spec";

export type PartitionValue = string | number | boolean;
/** Column → a value or a list of values (any may match). */
export type PartitionFilter = Record<string, PartitionValue | PartitionValue[]>;
/** Column → inclusive [min, max]; null leaves an end open. */
export type PartitionRangeFilter = Record<string, [PartitionValue | null, PartitionValue | null]>;

const PERIOD_TEXT = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

/** A half-open UTC interval in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

/**
 * The interval a date value covers: `YYYY`, `YYYY-MM` and `YYYY-MM-DD` cover their period, a full
 * ISO datetime covers one millisecond. Undefined when the text is not a date.
 */
export function periodInterval(value: PartitionValue): Interval | undefined {
  const text = String(value);
  const m = PERIOD_TEXT.exec(text);
  if (m) {
    const [y, mo, d] = [Number(m[1]), m[2] ? Number(m[2]) - 1 : undefined, m[3] ? Number(m[3]) : undefined];
    if (mo !== undefined && mo > 11) return undefined;
    if (mo === undefined) return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1) };
    if (d === undefined) return { start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1) };
    const start = Date.UTC(y, mo, d);
    if (new Date(start).getUTCDate() !== d) return undefined;
    return { start, end: start + 86_400_000 };
  }
  const t = parseInstant(text);
  return t === undefined ? undefined : { start: t, end: t + 1 };
}

/** An ISO datetime (a missing zone is UTC) or epoch milliseconds as epoch milliseconds; undefined otherwise. */
export function parseInstant(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) || !value.includes("T") ? value : `${value}Z`;
  const t = Date.parse(zoned);
  return Number.isNaN(t) ? undefined : t;
}

/** The folder value of a row's partition column: the value itself, or its date cut to the period. */
export function folderValue(column: PartitionColumn, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!column.period) return typeof value === "object" ? undefined : String(value);
  const t = parseInstant(value) ?? periodInterval(String(value))?.start;
  if (t === undefined) return undefined;
  const iso = new Date(t).toISOString();
  return iso.slice(0, column.period === "year" ? 4 : column.period === "month" ? 7 : 10);
}

/** `country=US/day=2024-03`: the folder path of one partition. */
export function folderPath(columns: PartitionColumn[], values: Record<string, string>): string {
  return columns.map((c) => `${c.column}=${encodeURIComponent(values[c.column])}`).join("/");
}

const compare = (a: PartitionValue, b: PartitionValue): number => {
  const na = Number(a),
    nb = Number(b);
  if (
    typeof a !== "boolean" &&
    typeof b !== "boolean" &&
    String(a).trim() !== "" &&
    String(b).trim() !== "" &&
    Number.isFinite(na) &&
    Number.isFinite(nb)
  ) {
    return na - nb;
  }
  const sa = String(a),
    sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
};

const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;

/** True when the folder value `folder` of `column` matches the query value. */
export function folderMatchesValue(column: PartitionColumn, folder: string, value: PartitionValue): boolean {
  if (!column.period) return folder === String(value);
  const f = periodInterval(folder),
    v = periodInterval(value);
  return f !== undefined && v !== undefined && overlaps(f, v);
}

/** True when the folder value lies in (or, for dates, overlaps) the inclusive range. */
export function folderMatchesRange(
  column: PartitionColumn,
  folder: string,
  [min, max]: [PartitionValue | null, PartitionValue | null],
): boolean {
  if (!column.period) return (min === null || compare(folder, min) >= 0) && (max === null || compare(folder, max) <= 0);
  const f = periodInterval(folder);
  if (!f) return false;
  const lo = min === null ? -Infinity : periodInterval(min)!.start;
  const hi = max === null ? Infinity : periodInterval(max)!.end;
  return f.start < hi && lo < f.end;
}

/** True when a file's partition folders match every column named by the filters. */
export function partitionMatches(
  columns: PartitionColumn[],
  folders: Record<string, string>,
  partition: PartitionFilter | undefined,
  range: PartitionRangeFilter | undefined,
): boolean {
  for (const c of columns) {
    const folder = folders[c.column];
    const want = partition?.[c.column];
    if (want !== undefined && !(Array.isArray(want) ? want : [want]).some((v) => folderMatchesValue(c, folder, v)))
      return false;
    const r = range?.[c.column];
    if (r !== undefined && !folderMatchesRange(c, folder, r)) return false;
  }
  return true;
}
