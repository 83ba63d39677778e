/**
 * Spec 4.11: `GET /h3/query`, spatial and time queries over an indexed dataset. One page comes back
 * as Parquet bytes (cursor in header `X-Svc-Next-Cursor`) or, with `format=index`, as JSON (cursor
 * in `next_cursor`). {@link DatasetsApi.pages} and {@link DatasetsApi.indexPages} follow the cursor,
 * sending the same query each time.
 *
 * What the spec calls invalid is refused here before anything is sent, with a plain `Error`: more
 * than one spatial selector, an incomplete bounding box, point or hex range, and `maxRowGroups`
 * outside 1..4096. Everything else (cell ids, partition columns, column names, cursors) is checked
 * by the server and arrives as an {@link ApiError}.
 */
import { z } from "zod";
import { cursorPages } from "./paging";
import type { QueryValue } from "./request";
import type { Transport } from "./transport";
import { SvcError } from "../errors";

/** A partition value: dates as `YYYY`, `YYYY-MM` or `YYYY-MM-DD` strings. */
export type PartitionValue = string | number | boolean;

export interface BoundingBox {
  minLng: number;
  minLat: number;
  maxLng: number;
  maxLat: number;
}

export interface H3QueryParams {
  /** The indexed dataset path (required). */
  path: string;
  /** Spatial selector: a bounding box (all four numbers). */
  bbox?: BoundingBox;
  /** Spatial selector: a point (both numbers). */
  point?: { lat: number; lng: number };
  /** Spatial selector: an H3 cell id, hex. */
  cell?: string;
  /** Spatial selector: an inclusive range of raw H3 cell ids, hex (both ends). */
  hexRange?: { min: string; max: string };
  /** Inclusive start of the time window (ISO datetime, or a Date). */
  timeMin?: string | Date;
  /** Inclusive end of the time window (ISO datetime, or a Date). */
  timeMax?: string | Date;
  /** Partition column → a value, or a list of values any of which may match. */
  partition?: Record<string, PartitionValue | readonly PartitionValue[]>;
  /** Partition column → inclusive `[min, max]`; `null` leaves an end open. */
  partitionRange?: Record<string, readonly [PartitionValue | null, PartitionValue | null]>;
  /** Columns to return; all when omitted. */
  columns?: readonly string[];
  /** 1 to 4096. @default 1024 (server side) */
  maxRowGroups?: number;
  /** A cursor from a previous page; the paging iterators start from it when given. */
  cursor?: string;
}

/** One Parquet page. */
export interface ParquetPage {
  parquet: Uint8Array;
  /** Present when more results remain. */
  nextCursor?: string;
}

/** One `format=index` page (spec 4.11 rule 4); field names beyond these are kept as sent. */
export const IndexPage = z.looseObject({
  row_groups: z.array(z.looseObject({ row_group_index: z.number().int() })),
  footers: z.unknown(),
  next_cursor: z.string().nullable().optional(),
});
export type IndexPage = z.infer<typeof IndexPage>;

export const MAX_ROW_GROUPS = 4096;

const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isText = (v: unknown) => typeof v === "string" && v !== "";
const time = (v: string | Date | undefined) => (v instanceof Date ? v.toISOString() : v);

/**
 * Checks the parameters and turns them into the query string of the spec's table (without
 * `format` and `cursor`). Throws an `Error` naming the problem.
 */
export function h3QueryString(p: H3QueryParams): Record<string, QueryValue> {
  const fail = (msg: string): never => {
    throw new SvcError("dataset_query_invalid", `Invalid dataset query: ${msg}.`);
  };
  if (!p || !isText(p.path)) fail("path is required");
  const selectors = (["bbox", "point", "cell", "hexRange"] as const).filter((k) => p[k] !== undefined && p[k] !== null);
  if (selectors.length > 1) fail(`use at most one spatial selector, got ${selectors.join(", ")}`);
  if (p.bbox && !(isNum(p.bbox.minLng) && isNum(p.bbox.minLat) && isNum(p.bbox.maxLng) && isNum(p.bbox.maxLat))) {
    fail("a bounding box needs all four of minLng, minLat, maxLng and maxLat as finite numbers");
  }
  if (p.point && !(isNum(p.point.lat) && isNum(p.point.lng))) fail("a point needs both lat and lng as finite numbers");
  if (p.cell !== undefined && !isText(p.cell)) fail("cell must be a non-empty H3 cell id in hex");
  if (p.hexRange && !(isText(p.hexRange.min) && isText(p.hexRange.max))) fail("a hex range needs both min and max");
  if (
    p.maxRowGroups !== undefined &&
    !(Number.isInteger(p.maxRowGroups) && p.maxRowGroups >= 1 && p.maxRowGroups <= MAX_ROW_GROUPS)
  ) {
    fail(`maxRowGroups must be an integer from 1 to ${MAX_ROW_GROUPS}, got ${p.maxRowGroups}`);
  }
  for (const [name, v] of [
    ["timeMin", p.timeMin],
    ["timeMax", p.timeMax],
  ] as const) {
    if (v instanceof Date && Number.isNaN(v.getTime())) fail(`${name} is an invalid Date`);
  }
  for (const [name, v] of [
    ["partition", p.partition],
    ["partitionRange", p.partitionRange],
  ] as const) {
    if (v !== undefined && (v === null || typeof v !== "object" || Array.isArray(v)))
      fail(`${name} must be an object keyed by partition column`);
  }
  for (const [col, range] of Object.entries(p.partitionRange ?? {})) {
    if (!Array.isArray(range) || range.length !== 2)
      fail(`partitionRange.${col} must be [min, max] (null for an open end)`);
  }
  if (p.columns !== undefined && (!Array.isArray(p.columns) || !p.columns.every(isText)))
    fail("columns must be an array of column names");

  return {
    path: p.path,
    min_lng: p.bbox?.minLng,
    min_lat: p.bbox?.minLat,
    max_lng: p.bbox?.maxLng,
    max_lat: p.bbox?.maxLat,
    lat: p.point?.lat,
    lng: p.point?.lng,
    cell: p.cell,
    hex_min: p.hexRange?.min,
    hex_max: p.hexRange?.max,
    time_min: time(p.timeMin),
    time_max: time(p.timeMax),
    partition: p.partition === undefined ? undefined : JSON.stringify(p.partition),
    partition_range: p.partitionRange === undefined ? undefined : JSON.stringify(p.partitionRange),
    columns: p.columns,
    max_row_groups: p.maxRowGroups,
  };
}

export function datasetsApi(t: Transport) {
  const parquetPage = async (query: Record<string, QueryValue>, cursor: string | undefined): Promise<ParquetPage> => {
    const res = await t.send("GET /h3/query", { query: { ...query, cursor } });
    const next = res.headers["x-svc-next-cursor"];
    const page: ParquetPage = { parquet: new Uint8Array(res.body.buffer, res.body.byteOffset, res.body.byteLength) };
    if (next) page.nextCursor = next;
    return page;
  };
  const indexPage = (query: Record<string, QueryValue>, cursor: string | undefined) =>
    t.json("GET /h3/query", { query: { ...query, format: "index", cursor } }, IndexPage);

  return {
    /**
     * `GET /h3/query` (Parquet): one page of matching rows and, when more remain, the cursor for
     * the next page (pass it back as `cursor` with the same parameters, or use {@link pages}).
     * @throws Error before sending when the parameters are invalid (see the module notes).
     * @throws ApiError 400 (several or incomplete selectors, invalid cell id, non-partition column,
     *   cursor of another query), 403 (no credentials and not a public s3:// dataset), 404 (no
     *   readable dataset at path), 409 (never finished indexing, or cursor predates a re-index),
     *   422 (unknown column, max_row_groups above 4096), 401 (invalid credentials).
     */
    query: async (params: H3QueryParams): Promise<ParquetPage> => parquetPage(h3QueryString(params), params.cursor),

    /**
     * `GET /h3/query?format=index`: one page of the row-group index (row groups with file path,
     * row_group_index and byte offsets; base64 Parquet footers; `next_cursor`).
     * @throws Error and ApiError as {@link query}.
     */
    queryIndex: async (params: H3QueryParams): Promise<IndexPage> => indexPage(h3QueryString(params), params.cursor),

    /**
     * Every Parquet page of a query, following `X-Svc-Next-Cursor` until a page has none. The
     * parameters are checked when this is called (a plain `Error`), each page may throw as {@link query}.
     */
    pages: (params: H3QueryParams): AsyncGenerator<ParquetPage> => {
      const query = h3QueryString(params);
      return cursorPages(async (cursor) => {
        const page = await parquetPage(query, cursor ?? params.cursor);
        return { page, next: page.nextCursor };
      });
    },

    /**
     * Every index page of a query, following `next_cursor` until a page has none. Checked and
     * failing as {@link pages}.
     */
    indexPages: (params: H3QueryParams): AsyncGenerator<IndexPage> => {
      const query = h3QueryString(params);
      return cursorPages(async (cursor) => {
        const page = await indexPage(query, cursor ?? params.cursor);
        return { page, next: page.next_cursor ?? undefined };
      });
    },
  };
}

export type DatasetsApi = ReturnType<typeof datasetsApi>;
