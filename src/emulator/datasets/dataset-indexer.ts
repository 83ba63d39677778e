/**
 * The emulator's dataset indexer: rows → Parquet files in the object store under the dataset's
 * folder, one sub-folder per partition value, rows sorted by H3 cell at the dataset's resolution
 * and cut into row groups whose cell range, time range and byte range are recorded in the catalog.
 * Indexing a folder again replaces its files and bumps its generation (older cursors get 409).
 */
import { randomUUID } from "node:crypto";
import { parquetMetadata } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { getResolution, isValidCell, latLngToCell } from "h3-js";
import { DatasetSpec, loadRows, partitionColumns, type DatasetSpecInput, type PartitionColumn } from "./dataset-spec";
import {
  datasetAt,
  saveDataset,
  type DatasetColumn,
  type DatasetRecord,
  type FileRecord,
  type RowGroupRecord,
} from "./dataset-catalog";
import { folderPath, folderValue, parseInstant } from "./partitions";
import { pad16 } from "./spatial";
import { ObjectStore, bucketUrl, parseStoragePath } from "../object-store";
import type { EmulatorEnv } from "../route";
import { SvcError } from "../../errors";

export const PARQUET_CONTENT_TYPE = "application/vnd.apache.parquet";

/** What {@link indexDataset} did. */
export interface IndexResult {
  path: string;
  state: "ready" | "indexing";
  generation: number;
  rows: number;
  files: string[];
  row_groups: number;
}

/** One source row ready to be written: its values by column, its cell and its partition folders. */
interface PreparedRow {
  values: Record<string, unknown>;
  cell: string;
  time: number | null;
  folders: Record<string, string>;
}

/**
 * Indexes `input` into the emulator's object store and catalog. A `rows` file path is resolved
 * against `baseDir`. Throws an Error naming the spec field or the file and line of a bad row;
 * nothing is written then.
 */
export function indexDataset(env: EmulatorEnv, input: DatasetSpecInput, baseDir = process.cwd()): IndexResult {
  const parsed = DatasetSpec.safeParse(input);
  if (!parsed.success) {
    throw new SvcError(
      "dataset_invalid",
      `Invalid dataset: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  }
  const spec = parsed.data;
  const location = parseStoragePath(spec.path.replace(/\/+$/, ""), ["path"]);
  const path = `${bucketUrl(location)}/${location.key}`;
  const owner = env.store.get<{ env_id: string }>("SELECT env_id FROM buckets WHERE url = ?", bucketUrl(location));
  if (!owner)
    throw new SvcError(
      "dataset_invalid",
      `Invalid dataset ${path}: ${bucketUrl(location)} is not a bucket of any team (add it to a team's buckets in the seed)`,
    );
  const partitions = partitionColumns(spec);
  const source = loadRows(spec.rows, baseDir);
  const cellColumn = spec.cell_column ?? "h3";
  const columns = inferColumns(source.rows, spec.time_column, spec.cell_column ? undefined : cellColumn, path);
  const prepared = source.rows.map((row, i) =>
    prepareRow(row, spec, partitions, cellColumn, `${path}: row ${source.where(i)}`),
  );

  const objects = new ObjectStore(env.objectsDir, env.store);
  const generation = (datasetAt(env.store, path)?.generation ?? 0) + 1;
  const record: DatasetRecord = {
    id: randomUUID(),
    envId: owner.env_id,
    path,
    public: spec.public,
    resolution: spec.resolution,
    state: spec.state,
    generation,
    columns,
    partitionBy: partitions,
    cellColumn,
    latColumn: spec.cell_column ? null : spec.lat_column,
    lngColumn: spec.cell_column ? null : spec.lng_column,
    timeColumn: spec.time_column ?? null,
    numRows: prepared.length,
  };
  const now = env.clock.now();
  return env.store.tx(() => {
    for (const o of objects.listAll({ ...location, key: `${location.key}/` }))
      objects.delete({ ...location, key: o.key });
    const files: FileRecord[] = [];
    const groups: RowGroupRecord[] = [];
    if (spec.state === "ready") {
      for (const [folder, rows] of byFolder(prepared, partitions)) {
        const key = `${location.key}/${folder ? `${folder}/` : ""}part-00000.parquet`;
        const url = `${path}/${key.slice(location.key.length + 1)}`;
        const bytes = Buffer.from(
          writeRows(
            columns,
            rows.map((r) => r.values),
            spec.row_group_rows,
          ),
        );
        objects.write({ ...location, key }, bytes, PARQUET_CONTENT_TYPE, now);
        const meta = parquetMetadata(bytes);
        files.push({ url, partition: rows[0].folders, size: bytes.length, footerLength: meta.metadata_length + 8 });
        let start = 0;
        meta.row_groups.forEach((rg, index) => {
          const slice = rows.slice(start, start + Number(rg.num_rows));
          start += slice.length;
          const times = slice.map((r) => r.time).filter((t): t is number => t !== null);
          const first = rg.columns.map((c) =>
            Number(c.meta_data!.dictionary_page_offset ?? c.meta_data!.data_page_offset),
          );
          groups.push({
            ord: groups.length,
            fileUrl: url,
            rowGroupIndex: index,
            numRows: slice.length,
            minCell: pad16(slice[0].cell),
            maxCell: pad16(slice[slice.length - 1].cell),
            timeMin: times.length ? Math.min(...times) : null,
            timeMax: times.length ? Math.max(...times) : null,
            byteOffset: Math.min(...first),
            byteLength: rg.columns.reduce((n, c) => n + Number(c.meta_data!.total_compressed_size), 0),
          });
        });
      }
    }
    saveDataset(env.store, { ...record, indexedAt: now.toISOString() }, files, groups);
    return {
      path,
      state: spec.state,
      generation,
      rows: prepared.length,
      files: files.map((f) => f.url),
      row_groups: groups.length,
    };
  });
}

/** Column types from the values: the time column is a timestamp, mixed kinds become text. */
function inferColumns(
  rows: Record<string, unknown>[],
  timeColumn: string | undefined,
  addedCell: string | undefined,
  path: string,
): DatasetColumn[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k)) seen.add(k), names.push(k);
  if (addedCell !== undefined) {
    if (seen.has(addedCell))
      throw new SvcError(
        "dataset_invalid",
        `Invalid dataset ${path}: the rows already have a column "${addedCell}"; name it in cell_column if it holds the H3 cells`,
      );
    names.push(addedCell);
  }
  return names.map((name) => {
    if (name === timeColumn) return { name, type: "TIMESTAMP" };
    if (name === addedCell) return { name, type: "STRING" };
    const kinds = new Set(
      rows
        .map((r) => r[name])
        .filter((v) => v !== null && v !== undefined)
        .map((v) => (typeof v === "object" ? "object" : typeof v)),
    );
    if (kinds.size !== 1) return { name, type: kinds.has("object") ? "JSON" : "STRING" };
    const [kind] = kinds;
    if (kind === "boolean") return { name, type: "BOOLEAN" };
    if (kind === "object") return { name, type: "JSON" };
    if (kind === "number") {
      const ints = rows.every(
        (r) => typeof r[name] !== "number" || (Number.isInteger(r[name]) && Math.abs(r[name] as number) < 2 ** 31),
      );
      return { name, type: ints ? "INT32" : "DOUBLE" };
    }
    return { name, type: "STRING" };
  });
}

function prepareRow(
  row: Record<string, unknown>,
  spec: DatasetSpec,
  partitions: PartitionColumn[],
  cellColumn: string,
  where: string,
): PreparedRow {
  const values: Record<string, unknown> = { ...row };
  let cell: string;
  if (spec.cell_column) {
    const c = row[spec.cell_column];
    if (typeof c !== "string" || !isValidCell(c))
      throw new SvcError(
        "dataset_invalid",
        `${where}: column ${spec.cell_column}: expected an H3 cell id in hex, found ${JSON.stringify(c)}`,
      );
    if (getResolution(c) !== spec.resolution) {
      throw new SvcError(
        "dataset_invalid",
        `${where}: column ${spec.cell_column}: cell ${c} has resolution ${getResolution(c)}, the dataset's resolution is ${spec.resolution}`,
      );
    }
    cell = c.toLowerCase();
  } else {
    const lat = row[spec.lat_column],
      lng = row[spec.lng_column];
    if (typeof lat !== "number" || lat < -90 || lat > 90)
      throw new SvcError(
        "dataset_invalid",
        `${where}: column ${spec.lat_column}: expected a latitude from -90 to 90, found ${JSON.stringify(lat)}`,
      );
    if (typeof lng !== "number" || lng < -180 || lng > 180)
      throw new SvcError(
        "dataset_invalid",
        `${where}: column ${spec.lng_column}: expected a longitude from -180 to 180, found ${JSON.stringify(lng)}`,
      );
    cell = latLngToCell(lat, lng, spec.resolution);
    values[cellColumn] = cell;
  }
  let time: number | null = null;
  if (spec.time_column) {
    const raw = row[spec.time_column];
    if (raw !== null && raw !== undefined) {
      const t = parseInstant(raw);
      if (t === undefined)
        throw new SvcError(
          "dataset_invalid",
          `${where}: column ${spec.time_column}: expected an ISO datetime or epoch milliseconds, found ${JSON.stringify(raw)}`,
        );
      time = t;
      values[spec.time_column] = new Date(t);
    }
  }
  const folders: Record<string, string> = {};
  for (const p of partitions) {
    const v = folderValue(p, row[p.column]);
    if (v === undefined || v === "") {
      throw new SvcError(
        "dataset_invalid",
        `${where}: partition column ${p.column}: expected ${p.period ? "a date" : "a value"}, found ${JSON.stringify(row[p.column] ?? null)}`,
      );
    }
    folders[p.column] = v;
  }
  return { values, cell, time, folders };
}

/** Rows grouped by partition folder (sorted), each group sorted by cell (stable). */
function byFolder(rows: PreparedRow[], partitions: PartitionColumn[]): [string, PreparedRow[]][] {
  const groups = new Map<string, PreparedRow[]>();
  for (const r of rows) {
    const f = folderPath(partitions, r.folders);
    const g = groups.get(f);
    if (g) g.push(r);
    else groups.set(f, [r]);
  }
  for (const g of groups.values()) g.sort((a, b) => (a.cell < b.cell ? -1 : a.cell > b.cell ? 1 : 0));
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Rows as one Parquet file with the dataset's column types. */
export function writeRows(
  columns: DatasetColumn[],
  rows: Record<string, unknown>[],
  rowGroupSize: number,
): ArrayBuffer {
  return parquetWriteBuffer({
    columnData: columns.map((c) => ({ name: c.name, type: c.type, data: rows.map((r) => cellValue(c, r[c.name])) })),
    rowGroupSize,
  });
}

function cellValue(c: DatasetColumn, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (c.type === "STRING") return typeof v === "string" ? v : String(v);
  if (c.type === "TIMESTAMP" && !(v instanceof Date)) return new Date(parseInstant(v) ?? Number.NaN);
  return v;
}
