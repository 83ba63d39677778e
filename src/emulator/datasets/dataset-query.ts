/**
 * `GET /h3/query` (spec 4.11): parameters → readable dataset → checks against its schema →
 * matching row groups (by recorded cell range, time range and partition folders) → one page of
 * at most `max_row_groups` of them → the index as JSON, or their rows, filtered exactly, as one
 * Parquet file.
 *
 * Everything up to the page runs synchronously inside the request's transaction; reading and
 * writing Parquet is asynchronous and touches only files.
 */
import { parquetMetadata, parquetReadObjects, type AsyncBuffer, type FileMetaData } from "hyparquet";
import { badRequest, invalid } from "../http-error";
import { ObjectStore, parseStoragePath } from "../object-store";
import { bytes, json, type Reply, type RequestContext } from "../route";
import { filesOf, rowGroupsOf, type DatasetRecord, type FileRecord, type RowGroupRecord } from "./dataset-catalog";
import { readableDataset } from "./dataset-access";
import { PARQUET_CONTENT_TYPE, writeRows } from "./dataset-indexer";
import { decodeCursor, encodeCursor } from "./cursor";
import { partitionMatches, periodInterval } from "./partitions";
import { parseDatasetQuery, type DatasetQuery } from "./query-params";
import { cellRanges, mergeRanges, positionOfCell, rangeOverlaps, rowMatcher, type RowPosition } from "./spatial";

/** Answers one dataset query: a JSON reply for `format=index`, a promise of the Parquet reply otherwise. */
export function answerDatasetQuery(ctx: RequestContext): Reply | Promise<Reply> {
  const q = parseDatasetQuery(ctx.query);
  const dataset = readableDataset(ctx, q.path);
  checkAgainstDataset(q, dataset);
  const files = filesOf(ctx.store, dataset.id);
  const matching = matchingRowGroups(q, dataset, rowGroupsOf(ctx.store, dataset.id), files);
  const offset =
    q.cursor === undefined ? 0 : decodeCursor(ctx.env.keys, q.cursor, q.identity, dataset.generation, q.path);
  const page = matching.slice(offset, offset + q.maxRowGroups);
  const end = offset + page.length;
  const next = end < matching.length ? encodeCursor(ctx.env.keys, q.identity, dataset.generation, end) : undefined;
  const objects = new ObjectStore(ctx.env.objectsDir, ctx.store);
  if (q.format === "index") return json(200, indexBody(objects, dataset, page, files, next));
  return parquetReply(objects, dataset, q, page, files, next);
}

/** Partition columns (400), date values (422), column names (422) and the time window (422) against the dataset. */
function checkAgainstDataset(q: DatasetQuery, d: DatasetRecord): void {
  const byName = new Map(d.partitionBy.map((p) => [p.column, p]));
  for (const [param, filter] of [
    ["partition", q.partition],
    ["partition_range", q.partitionRange],
  ] as const) {
    for (const [column, value] of Object.entries(filter ?? {})) {
      const p = byName.get(column);
      if (!p) {
        const known = d.partitionBy.length ? d.partitionBy.map((c) => c.column).join(", ") : "none";
        throw badRequest(
          `${param} names "${column}", which is not a partition column of ${d.path} (partition columns: ${known})`,
        );
      }
      const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== null);
      if (p.period && values.some((v) => periodInterval(v) === undefined)) {
        throw invalid(
          "query",
          [param, column],
          `"${column}" is a date partition: values must be YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime`,
        );
      }
    }
  }
  const names = new Set(d.columns.map((c) => c.name));
  const unknown = (q.columns ?? []).filter((c) => !names.has(c));
  if (unknown.length) {
    throw invalid(
      "query",
      "columns",
      `${unknown.map((c) => `'${c}'`).join(", ")} ${unknown.length > 1 ? "are" : "is"} not in the indexed files (columns: ${[...names].join(", ")})`,
    );
  }
  if ((q.timeMin !== undefined || q.timeMax !== undefined) && !d.timeColumn) {
    throw invalid(
      "query",
      q.timeMin !== undefined ? "time_min" : "time_max",
      `${d.path} has no time column, so it cannot be read by time`,
    );
  }
}

function matchingRowGroups(
  q: DatasetQuery,
  d: DatasetRecord,
  groups: RowGroupRecord[],
  files: Map<string, FileRecord>,
): RowGroupRecord[] {
  const ranges = q.spatial && mergeRanges(cellRanges(q.spatial, d.resolution));
  const timed = q.timeMin !== undefined || q.timeMax !== undefined;
  return groups.filter(
    (g) =>
      (!ranges || rangeOverlaps(ranges, g.minCell, g.maxCell)) &&
      (!timed ||
        (g.timeMin !== null &&
          g.timeMax !== null &&
          g.timeMax >= (q.timeMin ?? -Infinity) &&
          g.timeMin <= (q.timeMax ?? Infinity))) &&
      partitionMatches(d.partitionBy, files.get(g.fileUrl)?.partition ?? {}, q.partition, q.partitionRange),
  );
}

/** Spec 4.11 rule 4: the page's row groups with their files' footers. */
function indexBody(
  objects: ObjectStore,
  d: DatasetRecord,
  page: RowGroupRecord[],
  files: Map<string, FileRecord>,
  next: string | undefined,
) {
  const footers: Record<string, string> = {};
  for (const g of page) {
    if (footers[g.fileUrl] !== undefined) continue;
    const f = files.get(g.fileUrl)!;
    footers[g.fileUrl] = objects
      .readRange(parseStoragePath(f.url), f.size - f.footerLength, f.footerLength)!
      .toString("base64");
  }
  return {
    path: d.path,
    resolution: d.resolution,
    columns: d.columns,
    row_groups: page.map((g) => ({
      path: g.fileUrl,
      row_group_index: g.rowGroupIndex,
      offset: g.byteOffset,
      length: g.byteLength,
      num_rows: g.numRows,
      min_cell: g.minCell.replace(/^0+/, ""),
      max_cell: g.maxCell.replace(/^0+/, ""),
      time_min: g.timeMin === null ? null : new Date(g.timeMin).toISOString(),
      time_max: g.timeMax === null ? null : new Date(g.timeMax).toISOString(),
      partition: files.get(g.fileUrl)?.partition ?? {},
    })),
    footers,
    next_cursor: next ?? null,
  };
}

/** A stored object as hyparquet's AsyncBuffer: reads only the byte ranges asked for. */
function objectBuffer(objects: ObjectStore, f: FileRecord): AsyncBuffer {
  const p = parseStoragePath(f.url);
  return {
    byteLength: f.size,
    slice: (start, end = f.size) => {
      const b = objects.readRange(p, start, end - start)!;
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    },
  };
}

async function parquetReply(
  objects: ObjectStore,
  d: DatasetRecord,
  q: DatasetQuery,
  page: RowGroupRecord[],
  files: Map<string, FileRecord>,
  next: string | undefined,
): Promise<Reply> {
  const out = q.columns ?? d.columns.map((c) => c.name);
  const keep = rowFilter(q, d);
  const read = [...new Set([...out, ...keep.columns])];
  const rows: Record<string, unknown>[] = [];
  const opened = new Map<string, { file: AsyncBuffer; metadata: FileMetaData; starts: number[] }>();
  for (const g of page) {
    let f = opened.get(g.fileUrl);
    if (!f) {
      const rec = files.get(g.fileUrl)!;
      const file = objectBuffer(objects, rec);
      const metadata = parquetMetadata(await file.slice(rec.size - rec.footerLength));
      const starts = [0];
      for (const rg of metadata.row_groups) starts.push(starts[starts.length - 1] + Number(rg.num_rows));
      f = { file, metadata, starts };
      opened.set(g.fileUrl, f);
    }
    const got = await parquetReadObjects({
      file: f.file,
      metadata: f.metadata,
      columns: read,
      rowStart: f.starts[g.rowGroupIndex],
      rowEnd: f.starts[g.rowGroupIndex + 1],
    });
    for (const r of got) if (keep.test(r)) rows.push(Object.fromEntries(out.map((c) => [c, r[c]])));
  }
  const columns = out.map((name) => d.columns.find((c) => c.name === name)!);
  const body = Buffer.from(writeRows(columns, rows, 100_000));
  return bytes(200, body, PARQUET_CONTENT_TYPE, next ? { "x-svc-next-cursor": next } : {});
}

/** The exact per-row test (spatial selector and time window) and the columns it reads. */
function rowFilter(
  q: DatasetQuery,
  d: DatasetRecord,
): { columns: string[]; test: (row: Record<string, unknown>) => boolean } {
  const columns: string[] = [];
  let spatial: ((row: Record<string, unknown>) => boolean) | undefined;
  if (q.spatial) {
    const match = rowMatcher(q.spatial, d.resolution);
    const { cellColumn: cc, latColumn: la, lngColumn: ln } = d;
    columns.push(cc, ...(la && ln ? [la, ln] : []));
    const position = (row: Record<string, unknown>): RowPosition => {
      const cell = String(row[cc]).toLowerCase();
      return la && ln ? { cell, lat: row[la] as number, lng: row[ln] as number } : positionOfCell(cell);
    };
    spatial = (row) => match(position(row));
  }
  let timed: ((row: Record<string, unknown>) => boolean) | undefined;
  if (d.timeColumn && (q.timeMin !== undefined || q.timeMax !== undefined)) {
    const tc = d.timeColumn;
    const [lo, hi] = [q.timeMin ?? -Infinity, q.timeMax ?? Infinity];
    columns.push(tc);
    timed = (row) => {
      const v = row[tc];
      const t = v instanceof Date ? v.getTime() : undefined;
      return t !== undefined && t >= lo && t <= hi;
    };
  }
  return { columns, test: (row) => (!spatial || spatial(row)) && (!timed || timed(row)) };
}
