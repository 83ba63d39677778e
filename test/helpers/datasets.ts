/**
 * A seeded, reproducible dataset for the dataset query tests and the bench: rows with an id, a
 * position, a time, a country and a day (partitions), written as CSV beside a seed file that
 * declares it, and brute-force filters over the same rows that the emulator's answers must equal.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cellToParent, getResolution, latLngToCell } from "h3-js";
import { parquetReadObjects } from "hyparquet";
import { seededRandom } from "../../src/emulator/seeded-random";

/** A seeded PRNG, so every run draws the same rows and queries. */
export const rng = seededRandom;

export interface SourceRow {
  id: number;
  lat: number;
  lng: number;
  time: string;
  country: string;
  day: string;
  value: number;
  name: string;
}

export const RESOLUTION = 8;
export const COUNTRIES = ["CA", "MX", "US"];
/** The area the rows fall in: around San Francisco, dense enough that cells hold several rows. */
export const AREA = { minLat: 37.6, maxLat: 37.9, minLng: -122.55, maxLng: -122.3 };

export function makeRows(count: number, seed = 42): SourceRow[] {
  const r = rng(seed);
  const start = Date.UTC(2024, 0, 1);
  const span = Date.UTC(2025, 0, 1) - start;
  return Array.from({ length: count }, (_, id) => {
    const t = new Date(start + Math.floor((r() * span) / 1000) * 1000).toISOString();
    return {
      id,
      lat: round(AREA.minLat + r() * (AREA.maxLat - AREA.minLat)),
      lng: round(AREA.minLng + r() * (AREA.maxLng - AREA.minLng)),
      time: t,
      country: COUNTRIES[Math.floor(r() * COUNTRIES.length)],
      day: t.slice(0, 10),
      value: Math.round(r() * 1e6) / 100,
      name: `row "${id}", n°${id % 97}`,
    };
  });
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function toCsv(rows: SourceRow[]): string {
  const cols = Object.keys(rows[0]) as (keyof SourceRow)[];
  const cell = (v: unknown) => (typeof v === "string" && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v));
  return [cols.join(","), ...rows.map((r) => cols.map((c) => cell(r[c])).join(","))].join("\n") + "\n";
}

/** Writes `rows.csv` and `seed.yaml` (the default teams plus `datasets:`) into a new folder; returns the seed path. */
export function writeSeed(rows: SourceRow[], datasetsYaml: string, extraFiles: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-datasets-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rows.csv"), toCsv(rows));
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(dir, name), text);
  const seed = `teams:
  - name: demo
    instances: [{client_id: rt-demo-primary, name: demo-primary, preference_rank: 10}]
    buckets: [s3://demo-bucket, gs://demo-gcs]
    users: [{name: Dana Demo, handle: dana, tier: paid}]
    service_accounts: [{name: ci-bot}]
  - name: other
    billing: false
    instances: [{client_id: rt-other-primary, name: other-primary, preference_rank: 5}]
    buckets: [s3://other-bucket]
    users: [{name: Olga Other, handle: olga, tier: paid}]
datasets:
${datasetsYaml}`;
  const file = join(dir, "seed.yaml");
  writeFileSync(file, seed);
  return file;
}

/** Rows of a Parquet answer, with the library. */
export async function readParquet(bytes: Uint8Array): Promise<Record<string, any>[]> {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parquetReadObjects({ file: buf });
}

const cells = new WeakMap<SourceRow, string>();
/** A row's cell at the dataset's resolution (computed once per row). */
export function cellOf(r: SourceRow): string {
  let c = cells.get(r);
  if (c === undefined) cells.set(r, (c = latLngToCell(r.lat, r.lng, RESOLUTION)));
  return c;
}

/** Brute-force filters, one per selector, straight from the spec's words. */
export const brute = {
  bbox: (b: { minLng: number; minLat: number; maxLng: number; maxLat: number }) => (r: SourceRow) =>
    r.lat >= b.minLat && r.lat <= b.maxLat && r.lng >= b.minLng && r.lng <= b.maxLng,
  point: (p: { lat: number; lng: number }) => {
    const c = latLngToCell(p.lat, p.lng, RESOLUTION);
    return (r: SourceRow) => cellOf(r) === c;
  },
  cell: (cell: string) => {
    const res = getResolution(cell);
    if (res <= RESOLUTION) return (r: SourceRow) => cellToParent(cellOf(r), res) === cell;
    return (r: SourceRow) => latLngToCell(r.lat, r.lng, res) === cell;
  },
  hex: (min: string, max: string) => (r: SourceRow) => {
    const id = BigInt(`0x${cellOf(r)}`);
    return id >= BigInt(`0x${min}`) && id <= BigInt(`0x${max}`);
  },
  time: (min: string | undefined, max: string | undefined) => (r: SourceRow) =>
    (min === undefined || r.time >= min) && (max === undefined || r.time <= max),
};

export const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
