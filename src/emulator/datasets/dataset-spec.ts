/**
 * What the emulator's indexer takes (spec 4.11 is silent on how datasets get there): the `datasets:`
 * entries of a seed file and the argument of `emu.indexDataset(...)`. Rows come inline or from a
 * CSV or JSON file; each one has a position (lat/lng columns, or an H3 cell column at the dataset's
 * resolution), an optional time column and optional partition columns.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { z } from "zod";
import { SvcError } from "../../errors";

export const PERIODS = ["year", "month", "day"] as const;
export type Period = (typeof PERIODS)[number];

const Column = z
  .string()
  .min(1)
  .regex(/^[^/=\s]+$/, "a column name without '/', '=' or spaces");

export const PartitionSpec = z.union([Column, z.strictObject({ column: Column, period: z.enum(PERIODS) })]);

export const DatasetSpec = z.strictObject({
  /** The dataset folder, `s3://bucket/key` or `gs://bucket/key`, in a bucket of a seeded team (its owner). */
  path: z.string().regex(/^(s3|gs):\/\/[^/]+\/.+/, "a dataset folder such as s3://bucket/datasets/name"),
  /** H3 resolution of the index, 0 to 15. */
  resolution: z.number().int().min(0).max(15),
  /** A CSV or JSON file (an array of objects), relative to the seed file; or the rows themselves. */
  rows: z.union([z.string().min(1), z.array(z.record(z.string(), z.unknown()))]).default([]),
  lat_column: Column.default("lat"),
  lng_column: Column.default("lng"),
  /** A column holding each row's H3 cell (hex) at the dataset's resolution; without it lat/lng are indexed into column `h3`. */
  cell_column: Column.optional(),
  /** A column of ISO datetimes (or epoch milliseconds) read by `time_min` / `time_max`. */
  time_column: Column.optional(),
  /** One folder level per column (`column=value`); dates as `YYYY`, `YYYY-MM` or `YYYY-MM-DD` folders by `period`. */
  partition_by: z.array(PartitionSpec).default([]),
  /** Readable by anyone (also without credentials at its literal s3:// path). @default false */
  public: z.boolean().default(false),
  /** Rows per Parquet row group. @default 1000 */
  row_group_rows: z.number().int().min(1).max(1_000_000).default(1000),
  /** `indexing`: the dataset is registered but never finishes indexing (queries answer 409). @default "ready" */
  state: z.enum(["ready", "indexing"]).default("ready"),
});
export type DatasetSpecInput = z.input<typeof DatasetSpec>;
export type DatasetSpec = z.output<typeof DatasetSpec>;

/** A partition column and, for a date column, the period of its folders. */
export interface PartitionColumn {
  column: string;
  period?: Period;
}

export const partitionColumns = (spec: DatasetSpec): PartitionColumn[] =>
  spec.partition_by.map((p) => (typeof p === "string" ? { column: p } : { column: p.column, period: p.period }));

/** Source rows with where each came from, for errors that name the file and line. */
export interface SourceRows {
  rows: Record<string, unknown>[];
  /** `file:line` (CSV), `file[index]` (JSON) or `rows[index]` (inline) of row `i`. */
  where(i: number): string;
}

/** Loads the rows of a spec; a file path is resolved against `baseDir`. Throws an Error naming the file. */
export function loadRows(rows: DatasetSpec["rows"], baseDir: string): SourceRows {
  if (Array.isArray(rows)) return { rows, where: (i) => `rows[${i}]` };
  const file = isAbsolute(rows) ? rows : resolve(baseDir, rows);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new SvcError("dataset_invalid", `${file}: cannot read the dataset rows: ${(e as Error).message}`);
  }
  if (/\.json$/i.test(file)) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new SvcError("dataset_invalid", `${file}: not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(data) || !data.every((r) => r !== null && typeof r === "object" && !Array.isArray(r))) {
      throw new SvcError("dataset_invalid", `${file}: expected a JSON array of objects (one per row)`);
    }
    return { rows: data as Record<string, unknown>[], where: (i) => `${file}[${i}]` };
  }
  if (!/\.csv$/i.test(file))
    throw new SvcError("dataset_invalid", `${file}: dataset rows must be a .csv or .json file`);
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, { columns: true, skip_empty_lines: true, info: true, bom: true });
  } catch (e) {
    throw new SvcError("dataset_invalid", `${file}: not valid CSV: ${(e as Error).message}`);
  }
  return {
    rows: records.map((r) => csvTypes(r.record)),
    where: (i) => `${file}:${records[i]?.info.lines ?? "?"}`,
  };
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** CSV cells are text: empty is null, numbers and true/false become typed values. */
function csvTypes(record: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    out[k] = v === "" ? null : NUMBER.test(v) ? Number(v) : v === "true" ? true : v === "false" ? false : v;
  }
  return out;
}
