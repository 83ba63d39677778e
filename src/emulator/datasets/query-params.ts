/**
 * The parameters of `GET /h3/query` (spec 4.11), checked before any dataset is looked at:
 * 400 for several or incomplete spatial selectors and invalid cell ids (section 7), 422 for values
 * of the wrong form (numbers, datetimes, JSON, format, max_row_groups outside 1..4096).
 */
import { isValidCell } from "h3-js";
import { HttpError, badRequest, invalid } from "../http-error";
import type { PartitionFilter, PartitionRangeFilter, PartitionValue } from "./partitions";
import { parseInstant } from "./partitions";
import type { SpatialSelector } from "./spatial";

export const MAX_ROW_GROUPS = 4096;
export const DEFAULT_ROW_GROUPS = 1024;

export interface DatasetQuery {
  path: string;
  spatial: SpatialSelector | undefined;
  timeMin: number | undefined;
  timeMax: number | undefined;
  partition: PartitionFilter | undefined;
  partitionRange: PartitionRangeFilter | undefined;
  columns: string[] | undefined;
  format: "parquet" | "index";
  maxRowGroups: number;
  cursor: string | undefined;
  /** Every parameter but `cursor`, canonical: the identity a cursor is bound to. */
  identity: string;
}

const SELECTORS: Record<string, readonly string[]> = {
  "bounding box": ["min_lng", "min_lat", "max_lng", "max_lat"],
  point: ["lat", "lng"],
  cell: ["cell"],
  "hex range": ["hex_min", "hex_max"],
};

const one = (q: URLSearchParams, name: string): string | undefined => {
  const v = q.get(name);
  return v === null || v === "" ? undefined : v;
};

function number(q: URLSearchParams, name: string, min: number, max: number): number {
  const text = one(q, name)!;
  const n = Number(text);
  if (!Number.isFinite(n))
    throw invalid("query", name, `Input should be a valid number, found "${text.slice(0, 40)}"`, "float_parsing");
  if (n < min || n > max) throw invalid("query", name, `Input should be from ${min} to ${max}`, "value_error");
  return n;
}

const HEX = /^[0-9a-fA-F]{1,16}$/;

function spatial(q: URLSearchParams): SpatialSelector | undefined {
  const used = Object.entries(SELECTORS).filter(([, names]) => names.some((n) => one(q, n) !== undefined));
  if (used.length > 1)
    throw badRequest(`Use at most one spatial selector; got the ${used.map(([k]) => k).join(" and the ")}`);
  if (used.length === 0) return undefined;
  const [kind, names] = used[0];
  const missing = names.filter((n) => one(q, n) === undefined);
  if (missing.length)
    throw badRequest(
      `Incomplete ${kind}: ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing (give ${names.join(", ")})`,
    );
  switch (kind) {
    case "bounding box": {
      const b = {
        kind: "bbox" as const,
        minLng: number(q, "min_lng", -180, 180),
        minLat: number(q, "min_lat", -90, 90),
        maxLng: number(q, "max_lng", -180, 180),
        maxLat: number(q, "max_lat", -90, 90),
      };
      if (b.minLng > b.maxLng)
        throw invalid(
          "query",
          "min_lng",
          "min_lng must not be greater than max_lng (a box across the antimeridian is two queries)",
        );
      if (b.minLat > b.maxLat) throw invalid("query", "min_lat", "min_lat must not be greater than max_lat");
      return b;
    }
    case "point":
      return { kind: "point", lat: number(q, "lat", -90, 90), lng: number(q, "lng", -180, 180) };
    case "cell": {
      const cell = one(q, "cell")!;
      if (!HEX.test(cell) || !isValidCell(cell))
        throw badRequest(
          `Invalid cell id "${cell.slice(0, 40)}": expected an H3 cell id in hex, such as 8928308280fffff`,
        );
      return { kind: "cell", cell: cell.toLowerCase() };
    }
    default: {
      const [min, max] = [one(q, "hex_min")!, one(q, "hex_max")!];
      for (const [name, v] of [
        ["hex_min", min],
        ["hex_max", max],
      ]) {
        if (!HEX.test(v))
          throw badRequest(`Invalid cell id in ${name} "${v.slice(0, 40)}": expected up to 16 hex digits`);
      }
      if (BigInt(`0x${min}`) > BigInt(`0x${max}`))
        throw invalid("query", "hex_min", "hex_min must not be greater than hex_max");
      return { kind: "hex", min: min.toLowerCase(), max: max.toLowerCase() };
    }
  }
}

function time(q: URLSearchParams, name: string): number | undefined {
  const text = one(q, name);
  if (text === undefined) return undefined;
  const t = parseInstant(text);
  if (t === undefined)
    throw invalid(
      "query",
      name,
      `Input should be an ISO datetime such as 2024-03-01T00:00:00Z, found "${text.slice(0, 40)}"`,
      "datetime_parsing",
    );
  return t;
}

const isScalar = (v: unknown): v is PartitionValue =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

function jsonObject(q: URLSearchParams, name: string): Record<string, unknown> | undefined {
  const text = one(q, name);
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw invalid("query", name, "Input should be a JSON object keyed by partition column", "json_invalid");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw invalid("query", name, "Input should be a JSON object keyed by partition column", "dict_type");
  return v as Record<string, unknown>;
}

function partition(q: URLSearchParams): PartitionFilter | undefined {
  const o = jsonObject(q, "partition");
  if (!o) return undefined;
  for (const [k, v] of Object.entries(o)) {
    if (!(isScalar(v) || (Array.isArray(v) && v.length > 0 && v.every(isScalar)))) {
      throw invalid(
        "query",
        ["partition", k],
        "Expected a value (string, number or boolean) or a non-empty list of values",
      );
    }
  }
  return o as PartitionFilter;
}

function partitionRange(q: URLSearchParams): PartitionRangeFilter | undefined {
  const o = jsonObject(q, "partition_range");
  if (!o) return undefined;
  for (const [k, v] of Object.entries(o)) {
    if (!(Array.isArray(v) && v.length === 2 && v.every((x) => x === null || isScalar(x)))) {
      throw invalid("query", ["partition_range", k], "Expected [min, max] (null for an open end)");
    }
  }
  return o as PartitionRangeFilter;
}

function maxRowGroups(q: URLSearchParams): number {
  const text = one(q, "max_row_groups");
  if (text === undefined) return DEFAULT_ROW_GROUPS;
  if (!/^\d+$/.test(text)) throw invalid("query", "max_row_groups", "Input should be a valid integer", "int_parsing");
  const n = Number(text);
  if (n > MAX_ROW_GROUPS)
    throw invalid(
      "query",
      "max_row_groups",
      `Input should be less than or equal to ${MAX_ROW_GROUPS}`,
      "less_than_equal",
    );
  if (n < 1)
    throw invalid("query", "max_row_groups", "Input should be greater than or equal to 1", "greater_than_equal");
  return n;
}

/** Every parameter but `cursor`, sorted by name (repeated values keep their order). */
function identity(q: URLSearchParams): string {
  const names = [...new Set(q.keys())].filter((k) => k !== "cursor").sort();
  return JSON.stringify(names.map((n) => [n, q.getAll(n)]));
}

/** Parses the query string; throws an HttpError (400 or 422) for what the spec refuses. */
export function parseDatasetQuery(q: URLSearchParams): DatasetQuery {
  const path = one(q, "path");
  if (path === undefined)
    throw new HttpError(422, [{ loc: ["query", "path"], msg: "Field required", type: "missing" }]);
  const format = one(q, "format") ?? "parquet";
  if (format !== "parquet" && format !== "index")
    throw invalid("query", "format", "Input should be 'parquet' or 'index'", "literal_error");
  const timeMin = time(q, "time_min"),
    timeMax = time(q, "time_max");
  if (timeMin !== undefined && timeMax !== undefined && timeMin > timeMax)
    throw invalid("query", "time_min", "time_min must not be after time_max");
  const columns = q.getAll("columns").filter((c) => c !== "");
  return {
    path,
    spatial: spatial(q),
    timeMin,
    timeMax,
    partition: partition(q),
    partitionRange: partitionRange(q),
    columns: columns.length ? [...new Set(columns)] : undefined,
    format,
    maxRowGroups: maxRowGroups(q),
    cursor: one(q, "cursor"),
    identity: identity(q),
  };
}
