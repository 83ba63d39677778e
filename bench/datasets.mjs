// Dataset query (spec 4.11): rows per second for a bounding-box query returning 10,000 rows, as
// Parquet, from the emulator in its own process (`svc-iac emulator --seed`), beside the floor
// measured in the same run: downloading the dataset's own Parquet files (the bytes the query
// reads) through the files API, with the same client and the same number of passes.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetMetadata } from "hyparquet";
import { createClient } from "../dist/index.js";
import { seededRandom } from "../dist/emulator/seeded-random.js";
import { startEmulatorProcess } from "./emulator.mjs";

const PATH = "s3://demo-bucket/datasets/bench";
// 10,000 rows inside the box, 30,000 around it.
const BOX = { minLng: -122.5, minLat: 37.7, maxLng: -122.45, maxLat: 37.75 };
const INSIDE = 10_000;
const OUTSIDE = 30_000;

function rowsCsv() {
  const r = seededRandom(7); // the same rows every run
  const lines = ["id,lat,lng,time,fare"];
  const between = (lo, hi) => lo + (hi - lo) * r();
  for (let i = 0; i < INSIDE + OUTSIDE; i++) {
    // Inside: strictly within the box. Outside: north of it (37.76 to 37.85), same longitudes and wider.
    const [lat, lng] =
      i < INSIDE
        ? [between(37.7001, 37.7499), between(-122.4999, -122.4501)]
        : [between(37.76, 37.85), between(-122.55, -122.35)];
    const time = new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 365 * 86400_000)).toISOString();
    lines.push(`${i},${lat.toFixed(6)},${lng.toFixed(6)},${time},${(r() * 80).toFixed(2)}`);
  }
  return lines.join("\n") + "\n";
}

function writeSeed() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-datasets-"));
  writeFileSync(join(dir, "rows.csv"), rowsCsv());
  writeFileSync(
    join(dir, "seed.yaml"),
    `teams:
  - name: demo
    instances: [{client_id: rt-demo-primary, name: demo-primary, preference_rank: 10}]
    buckets: [s3://demo-bucket]
    users: [{name: Dana Demo, handle: dana, tier: paid}]
datasets:
  - {path: ${PATH}, resolution: 8, rows: rows.csv, time_column: time, row_group_rows: 1000}
`,
  );
  return dir;
}

const perSecond = (n, ms) => Math.round((n * 1000) / ms);

export async function benchDatasets(line, { passes = 10 } = {}) {
  const dir = writeSeed();
  const started = performance.now();
  const emu = await startEmulatorProcess({ quiet: true, args: ["--seed", join(dir, "seed.yaml")] });
  const startMs = performance.now() - started;
  const svc = createClient({ baseUrl: emu.info.base_url, token: emu.info.user_token });
  try {
    const query = { path: PATH, bbox: BOX, maxRowGroups: 4096 };
    const first = await svc.datasets.query(query); // warm-up, and the row count
    const bytes = first.parquet;
    const rows = Number(
      parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)).num_rows,
    );
    if (rows !== INSIDE) throw new Error(`the box query returned ${rows} rows, expected ${INSIDE}`);

    let t = performance.now();
    for (let i = 0; i < passes; i++) await svc.datasets.query(query);
    const queryMs = performance.now() - t;

    const files = (await svc.files.list(PATH)).filter((p) => p.endsWith(".parquet"));
    await Promise.all(files.map((f) => svc.files.download(f)));
    t = performance.now();
    let fileBytes = 0;
    for (let i = 0; i < passes; i++) for (const f of files) fileBytes += (await svc.files.download(f)).length;
    const floorMs = performance.now() - t;

    line(`emulator start, indexing ${INSIDE + OUTSIDE} rows`, `${(startMs / 1000).toFixed(2)} s`);
    line(
      "box query, 10,000 rows as Parquet: rows/s",
      perSecond(rows * passes, queryMs),
      `${(queryMs / passes).toFixed(0)} ms a query, ${(bytes.length / 1024).toFixed(0)} KiB`,
    );
    line(
      "floor: download the dataset's files: rows/s",
      perSecond((INSIDE + OUTSIDE) * passes, floorMs),
      `${(floorMs / passes).toFixed(0)} ms a pass, ${files.length} file(s), ${(fileBytes / passes / 1024).toFixed(0)} KiB`,
    );
    return { rows, queryMs, floorMs, passes };
  } finally {
    await svc.close();
    emu.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchDatasets((label, value, note) =>
    console.log(`${label.padEnd(48)} ${String(value).padStart(10)}   ${note ?? ""}`),
  );
}
