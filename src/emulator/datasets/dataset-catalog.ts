/**
 * The emulator's record of indexed datasets: one row per dataset folder (owner, visibility, state,
 * generation, schema), one per Parquet file (its partition folders) and one per row group (cell
 * range, time range, byte range), so a query reads only the row groups that can match.
 */
import type { PartitionColumn } from "./dataset-spec";
import { parseJson, type Store } from "../store";

export const DATASETS_DDL = `
CREATE TABLE IF NOT EXISTS datasets (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), path TEXT NOT NULL UNIQUE,
  public INTEGER NOT NULL DEFAULT 0, resolution INTEGER NOT NULL, state TEXT NOT NULL,
  generation INTEGER NOT NULL, columns TEXT NOT NULL, partition_by TEXT NOT NULL,
  cell_column TEXT NOT NULL, lat_column TEXT, lng_column TEXT, time_column TEXT,
  num_rows INTEGER NOT NULL, indexed_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dataset_files (
  dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE, url TEXT NOT NULL,
  partition_values TEXT NOT NULL, size INTEGER NOT NULL, footer_length INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, url)
);
CREATE TABLE IF NOT EXISTS dataset_row_groups (
  dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE, ord INTEGER NOT NULL,
  file_url TEXT NOT NULL, row_group_index INTEGER NOT NULL, num_rows INTEGER NOT NULL,
  min_cell TEXT NOT NULL, max_cell TEXT NOT NULL, time_min INTEGER, time_max INTEGER,
  byte_offset INTEGER NOT NULL, byte_length INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, ord)
);
`;

/** A Parquet column of the dataset: name and the hyparquet-writer basic type. */
export interface DatasetColumn {
  name: string;
  type: "STRING" | "DOUBLE" | "INT32" | "BOOLEAN" | "TIMESTAMP" | "JSON";
}

export interface DatasetRecord {
  id: string;
  envId: string;
  path: string;
  public: boolean;
  resolution: number;
  state: "ready" | "indexing";
  generation: number;
  columns: DatasetColumn[];
  partitionBy: PartitionColumn[];
  cellColumn: string;
  latColumn: string | null;
  lngColumn: string | null;
  timeColumn: string | null;
  numRows: number;
}

export interface RowGroupRecord {
  ord: number;
  fileUrl: string;
  rowGroupIndex: number;
  numRows: number;
  /** 16 hex digits, so text order is numeric order. */
  minCell: string;
  maxCell: string;
  timeMin: number | null;
  timeMax: number | null;
  byteOffset: number;
  byteLength: number;
}

export interface FileRecord {
  url: string;
  partition: Record<string, string>;
  size: number;
  footerLength: number;
}

interface DatasetRow {
  id: string;
  env_id: string;
  path: string;
  public: number;
  resolution: number;
  state: string;
  generation: number;
  columns: string;
  partition_by: string;
  cell_column: string;
  lat_column: string | null;
  lng_column: string | null;
  time_column: string | null;
  num_rows: number;
}

const toRecord = (r: DatasetRow): DatasetRecord => ({
  id: r.id,
  envId: r.env_id,
  path: r.path,
  public: r.public === 1,
  resolution: r.resolution,
  state: r.state === "indexing" ? "indexing" : "ready",
  generation: r.generation,
  columns: parseJson<DatasetColumn[]>(r.columns, []),
  partitionBy: parseJson<PartitionColumn[]>(r.partition_by, []),
  cellColumn: r.cell_column,
  latColumn: r.lat_column,
  lngColumn: r.lng_column,
  timeColumn: r.time_column,
  numRows: r.num_rows,
});

/** The dataset whose folder is `path` (no trailing slash), or undefined. */
export function datasetAt(store: Store, path: string): DatasetRecord | undefined {
  const r = store.get<DatasetRow>("SELECT * FROM datasets WHERE path = ?", path.replace(/\/+$/, ""));
  return r && toRecord(r);
}

/** Every row group of a dataset in file order, then row group order. */
export function rowGroupsOf(store: Store, datasetId: string): RowGroupRecord[] {
  return store
    .all<Record<string, number | string | null>>(
      "SELECT * FROM dataset_row_groups WHERE dataset_id = ? ORDER BY ord",
      datasetId,
    )
    .map((r) => ({
      ord: r.ord as number,
      fileUrl: r.file_url as string,
      rowGroupIndex: r.row_group_index as number,
      numRows: r.num_rows as number,
      minCell: r.min_cell as string,
      maxCell: r.max_cell as string,
      timeMin: r.time_min as number | null,
      timeMax: r.time_max as number | null,
      byteOffset: r.byte_offset as number,
      byteLength: r.byte_length as number,
    }));
}

export function filesOf(store: Store, datasetId: string): Map<string, FileRecord> {
  const rows = store.all<{ url: string; partition_values: string; size: number; footer_length: number }>(
    "SELECT url, partition_values, size, footer_length FROM dataset_files WHERE dataset_id = ? ORDER BY url",
    datasetId,
  );
  return new Map(
    rows.map((r) => [
      r.url,
      { url: r.url, partition: parseJson(r.partition_values, {}), size: r.size, footerLength: r.footer_length },
    ]),
  );
}

/** True when `url` (an object or folder URL) lies inside a public dataset's folder. */
export function insidePublicDataset(store: Store, url: string): boolean {
  const rows = store.all<{ path: string }>("SELECT path FROM datasets WHERE public = 1");
  return rows.some((r) => url === r.path || url.startsWith(`${r.path}/`));
}

/** Writes a dataset's record (replacing an earlier index of the same folder). */
export function saveDataset(
  store: Store,
  d: DatasetRecord & { indexedAt: string },
  files: FileRecord[],
  rowGroups: RowGroupRecord[],
): void {
  store.run("DELETE FROM datasets WHERE path = ?", d.path);
  store.run(
    `INSERT INTO datasets (id, env_id, path, public, resolution, state, generation, columns, partition_by, cell_column, lat_column, lng_column, time_column, num_rows, indexed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    d.id,
    d.envId,
    d.path,
    d.public,
    d.resolution,
    d.state,
    d.generation,
    JSON.stringify(d.columns),
    JSON.stringify(d.partitionBy),
    d.cellColumn,
    d.latColumn,
    d.lngColumn,
    d.timeColumn,
    d.numRows,
    d.indexedAt,
  );
  for (const f of files) {
    store.run(
      "INSERT INTO dataset_files (dataset_id, url, partition_values, size, footer_length) VALUES (?, ?, ?, ?, ?)",
      d.id,
      f.url,
      JSON.stringify(f.partition),
      f.size,
      f.footerLength,
    );
  }
  for (const g of rowGroups) {
    store.run(
      `INSERT INTO dataset_row_groups (dataset_id, ord, file_url, row_group_index, num_rows, min_cell, max_cell, time_min, time_max, byte_offset, byte_length)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      d.id,
      g.ord,
      g.fileUrl,
      g.rowGroupIndex,
      g.numRows,
      g.minCell,
      g.maxCell,
      g.timeMin,
      g.timeMax,
      g.byteOffset,
      g.byteLength,
    );
  }
}
