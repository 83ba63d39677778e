import { cellToParent, getResolution, latLngToCell } from "h3-js";
import { parquetMetadata, parquetReadObjects, type AsyncBuffer } from "hyparquet";
import { describe, expect, it } from "vitest";
import type { SvcClient } from "../../src/api/client";
import type { H3QueryParams } from "../../src/api/datasets";
import { ApiError } from "../../src/api/errors";
import { failure, useEmulator } from "../helpers/emulator";
import {
  AREA,
  COUNTRIES,
  RESOLUTION,
  brute,
  cellOf,
  ids,
  makeRows,
  readParquet,
  rng,
  writeSeed,
  type SourceRow,
} from "../helpers/datasets";

const ROWS = makeRows(10_000);
const PLACES = [
  { name: "ferry", cell: latLngToCell(37.7955, -122.3937, RESOLUTION), kind: "pier" },
  { name: "park", cell: latLngToCell(37.7694, -122.4862, RESOLUTION), kind: "green" },
  { name: "tower", cell: latLngToCell(37.8024, -122.4058, RESOLUTION), kind: "view" },
];
const TRIPS = "s3://demo-bucket/datasets/trips";
const PUBLIC = "s3://demo-bucket/public/places";
const SEED = writeSeed(
  ROWS,
  `  - path: ${TRIPS}
    resolution: ${RESOLUTION}
    rows: rows.csv
    time_column: time
    partition_by: [country, {column: day, period: month}]
    row_group_rows: 100
  - {path: ${PUBLIC}, resolution: ${RESOLUTION}, rows: places.json, cell_column: cell, public: true}
  - {path: "gs://demo-gcs/public/places", resolution: ${RESOLUTION}, rows: places.json, cell_column: cell, public: true}
  - {path: s3://demo-bucket/datasets/pending, resolution: 7, state: indexing}
  - {path: s3://other-bucket/private/places, resolution: ${RESOLUTION}, rows: places.json, cell_column: cell}
`,
  { "places.json": JSON.stringify(PLACES) },
);

const fx = useEmulator({ seed: SEED });

/** Every page of a query, read back with the Parquet library: the rows and the page count. */
async function all(client: SvcClient, params: H3QueryParams): Promise<{ rows: Record<string, any>[]; pages: number }> {
  const rows: Record<string, any>[] = [];
  let pages = 0;
  for await (const page of client.datasets.pages(params)) {
    pages++;
    rows.push(...(await readParquet(page.parquet)));
  }
  return { rows, pages };
}

/** The ids a query returns (each at most once) must be exactly the brute-force ones. */
async function expectExactly(params: Omit<H3QueryParams, "path">, keep: (r: SourceRow) => boolean) {
  const { rows } = await all(fx.user, { path: TRIPS, columns: ["id"], ...params });
  const got = rows.map((r) => r.id as number);
  expect(new Set(got).size, "no row twice").toBe(got.length);
  expect(got.sort((a, b) => a - b)).toEqual(ids(ROWS.filter(keep)));
  return got.length;
}

const between = (r: () => number, lo: number, hi: number) => lo + r() * (hi - lo);
const iso = (ms: number) => new Date(ms).toISOString();

describe("dataset query (4.11): each selector returns exactly the brute-force rows", () => {
  it("GIVEN 20 random bounding boxes (tiny to wider than the data) THEN the rows inside each, and only those", async () => {
    const r = rng(1);
    let total = 0;
    for (let i = 0; i < 20; i++) {
      const w = [0.002, 0.02, 0.08, 0.4][i % 4];
      const minLng = between(r, AREA.minLng - 0.05, AREA.maxLng),
        minLat = between(r, AREA.minLat - 0.05, AREA.maxLat);
      const bbox = {
        minLng,
        minLat,
        maxLng: minLng + w * between(r, 0.5, 1.5),
        maxLat: minLat + w * between(r, 0.5, 1.5),
      };
      total += await expectExactly({ bbox }, brute.bbox(bbox));
    }
    expect(total).toBeGreaterThan(1000);
  });

  it("GIVEN 16 random points (half on rows) THEN the rows in the point's cell", async () => {
    const r = rng(2);
    let hits = 0;
    for (let i = 0; i < 16; i++) {
      const row = ROWS[Math.floor(r() * ROWS.length)];
      const point =
        i % 2
          ? { lat: row.lat, lng: row.lng }
          : { lat: between(r, AREA.minLat, AREA.maxLat), lng: between(r, AREA.minLng, AREA.maxLng) };
      hits += await expectExactly({ point }, brute.point(point));
    }
    expect(hits).toBeGreaterThan(8);
  });

  it("GIVEN random cells coarser than, equal to and finer than the dataset THEN the rows in the cell or its descendants", async () => {
    const r = rng(3);
    const resolutions = [4, 5, 6, 7, 8, 9, 10];
    let hits = 0;
    for (let i = 0; i < 14; i++) {
      const row = ROWS[Math.floor(r() * ROWS.length)];
      const res = resolutions[i % resolutions.length];
      const cell = res <= RESOLUTION ? cellToParent(cellOf(row), res) : latLngToCell(row.lat, row.lng, res);
      expect(getResolution(cell)).toBe(res);
      hits += await expectExactly({ cell }, brute.cell(cell));
    }
    expect(hits).toBeGreaterThan(14);
  });

  it("GIVEN random hex ranges between two rows' cells THEN the rows whose raw cell id is in the range", async () => {
    const r = rng(4);
    for (let i = 0; i < 8; i++) {
      const [a, b] = [cellOf(ROWS[Math.floor(r() * ROWS.length)]), cellOf(ROWS[Math.floor(r() * ROWS.length)])];
      const [min, max] = BigInt(`0x${a}`) <= BigInt(`0x${b}`) ? [a, b] : [b, a];
      await expectExactly({ hexRange: { min, max } }, brute.hex(min, max));
    }
  });

  it("GIVEN random time windows, alone, open-ended and with a box THEN the rows whose time is inside", async () => {
    const r = rng(5);
    const start = Date.UTC(2024, 0, 1),
      end = Date.UTC(2025, 0, 1);
    for (let i = 0; i < 12; i++) {
      const a = between(r, start, end),
        b = a + between(r, 3_600_000, 40 * 86_400_000);
      const [timeMin, timeMax] = [i % 4 === 1 ? undefined : iso(a), i % 4 === 2 ? undefined : iso(b)];
      if (i % 3 === 0) {
        const bbox = { minLng: -122.5, minLat: 37.7, maxLng: -122.4, maxLat: 37.8 };
        await expectExactly(
          { bbox, timeMin, timeMax },
          (row) => brute.bbox(bbox)(row) && brute.time(timeMin, timeMax)(row),
        );
      } else {
        await expectExactly({ timeMin, timeMax }, brute.time(timeMin, timeMax));
      }
    }
  });

  it("GIVEN partition values and ranges THEN the rows of folders that match every named column (dates by overlapping period)", async () => {
    const month = (r: SourceRow) => r.day.slice(0, 7);
    await expectExactly({ partition: { country: "US" } }, (r) => r.country === "US");
    await expectExactly(
      { partition: { country: ["CA", "MX"], day: "2024-03-17" } },
      (r) => r.country !== "US" && month(r) === "2024-03",
    );
    await expectExactly({ partition: { day: "2024" } }, () => true);
    await expectExactly(
      { partitionRange: { day: ["2024-02-10", "2024-04"] } },
      (r) => month(r) >= "2024-02" && month(r) <= "2024-04",
    );
    await expectExactly(
      { partitionRange: { day: [null, "2024-01-31"] }, partition: { country: "MX" } },
      (r) => month(r) === "2024-01" && r.country === "MX",
    );
    await expectExactly({ partitionRange: { country: ["D", null] } }, (r) => r.country >= "D");
    const cell = cellToParent(cellOf(ROWS[7]), 6);
    await expectExactly(
      { cell, partition: { country: "CA" }, timeMin: "2024-06-01T00:00:00Z" },
      (r) => brute.cell(cell)(r) && r.country === "CA" && r.time >= "2024-06-01T00:00:00.000Z",
    );
  });
});

describe("dataset query (4.11): the Parquet returned", () => {
  it("GIVEN no columns THEN every column comes back with its source values, read back with the Parquet library", async () => {
    const bbox = { minLng: -122.45, minLat: 37.75, maxLng: -122.43, maxLat: 37.77 };
    const page = await fx.user.datasets.query({ path: TRIPS, bbox });
    expect(page.nextCursor).toBeUndefined();
    expect(Buffer.from(page.parquet.subarray(0, 4)).toString()).toBe("PAR1");
    const meta = parquetMetadata(
      page.parquet.buffer.slice(
        page.parquet.byteOffset,
        page.parquet.byteOffset + page.parquet.byteLength,
      ) as ArrayBuffer,
    );
    expect(meta.schema.slice(1).map((s) => s.name)).toEqual([
      "id",
      "lat",
      "lng",
      "time",
      "country",
      "day",
      "value",
      "name",
      "h3",
    ]);
    const rows = await readParquet(page.parquet);
    const byId = new Map(ROWS.map((r) => [r.id, r]));
    expect(rows.length).toBe(ROWS.filter(brute.bbox(bbox)).length);
    for (const got of rows) {
      const want = byId.get(got.id)!;
      expect(got).toEqual({ ...want, time: new Date(want.time), h3: cellOf(want) });
    }
  });

  it("GIVEN columns THEN only those, in the order asked, and the content type is application/vnd.apache.parquet", async () => {
    const res = await fetch(
      `${fx.emu.baseUrl}/h3/query?path=${encodeURIComponent(TRIPS)}&cell=${cellToParent(cellOf(ROWS[0]), 7)}&columns=name&columns=id`,
      {
        headers: { authorization: `Bearer ${fx.emu.tokens.user_token}` },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    const rows = await readParquet(new Uint8Array(await res.arrayBuffer()));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(Object.keys(r)).toEqual(["name", "id"]);
    expect(rows.find((r) => r.id === 0)).toEqual({ name: ROWS[0].name, id: 0 });
  });

  it("GIVEN a query that matches nothing THEN a valid Parquet file with no rows", async () => {
    const { rows, pages } = await all(fx.user, { path: TRIPS, point: { lat: -33.9, lng: 18.4 } });
    expect(pages).toBe(1);
    expect(rows).toEqual([]);
  });
});

describe("dataset query (4.11): paging with the cursor", () => {
  it("GIVEN max_row_groups 1, 7 and 4096 THEN paging returns every row exactly once", async () => {
    const index = await fx.user.datasets.queryIndex({ path: TRIPS });
    const groups = index.row_groups.length;
    expect(groups).toBeGreaterThan(100);
    for (const max of [7, 4096]) {
      const { rows, pages } = await all(fx.user, { path: TRIPS, columns: ["id"], maxRowGroups: max });
      expect(pages).toBe(Math.ceil(groups / max));
      expect(ids(rows as { id: number }[])).toEqual(ROWS.map((r) => r.id));
    }
    const bbox = { minLng: -122.5, minLat: 37.7, maxLng: -122.42, maxLat: 37.76 };
    const { rows, pages } = await all(fx.user, { path: TRIPS, bbox, columns: ["id"], maxRowGroups: 1 });
    expect(pages).toBeGreaterThan(10);
    expect(ids(rows as { id: number }[])).toEqual(ids(ROWS.filter(brute.bbox(bbox))));
  });

  it("GIVEN the cursor THEN it comes in X-Svc-Next-Cursor for Parquet and next_cursor for the index, and a page without one is the last", async () => {
    const first = await fx.user.datasets.query({ path: TRIPS, maxRowGroups: 50, columns: ["id"] });
    expect(first.nextCursor).toMatch(/\S/);
    const second = await fx.user.datasets.query({
      path: TRIPS,
      maxRowGroups: 50,
      columns: ["id"],
      cursor: first.nextCursor,
    });
    const a = ids((await readParquet(first.parquet)) as { id: number }[]),
      b = ids((await readParquet(second.parquet)) as { id: number }[]);
    expect(a.filter((x) => b.includes(x))).toEqual([]);
    const pages = [];
    for await (const p of fx.user.datasets.indexPages({ path: TRIPS, maxRowGroups: 40 })) pages.push(p);
    expect(pages.map((p) => p.row_groups.length).reduce((x, y) => x + y)).toBe(
      (await fx.user.datasets.queryIndex({ path: TRIPS })).row_groups.length,
    );
    expect(pages.at(-1)!.next_cursor).toBeNull();
    expect(pages.slice(0, -1).every((p) => typeof p.next_cursor === "string")).toBe(true);
  });
});

describe("dataset query (4.11): format=index", () => {
  it("GIVEN the index THEN each row group's byte range is a real row group of its file, readable with only those bytes and the footer", async () => {
    const cell = cellToParent(cellOf(ROWS[3]), 6);
    const index = await fx.user.datasets.queryIndex({ path: TRIPS, cell });
    expect(index.row_groups.length).toBeGreaterThan(0);
    const footers = index.footers as Record<string, string>;
    const seen = new Set<number>();
    for (const g of index.row_groups as any[]) {
      const file = await fx.user.files.download(g.path);
      const footer = Buffer.from(footers[g.path], "base64");
      expect(footer.equals(file.subarray(file.length - footer.length))).toBe(true);
      const meta = parquetMetadata(
        footer.buffer.slice(footer.byteOffset, footer.byteOffset + footer.byteLength) as ArrayBuffer,
      );
      const rg = meta.row_groups[g.row_group_index];
      const starts = rg.columns.map((c) =>
        Number(c.meta_data!.dictionary_page_offset ?? c.meta_data!.data_page_offset),
      );
      expect(g.offset).toBe(Math.min(...starts));
      expect(g.length).toBe(rg.columns.reduce((n, c) => n + Number(c.meta_data!.total_compressed_size), 0));
      expect(g.num_rows).toBe(Number(rg.num_rows));
      // Only the row group's bytes and the footer are there: a wrong offset fails the read.
      const fenced: AsyncBuffer = {
        byteLength: file.length,
        slice(start, end = file.length) {
          const inGroup = start >= g.offset && end <= g.offset + g.length;
          const inFooter = start >= file.length - footer.length;
          if (!inGroup && !inFooter) throw new Error(`read outside the row group: ${start}-${end}`);
          return file.buffer.slice(file.byteOffset + start, file.byteOffset + end) as ArrayBuffer;
        },
      };
      const rowStart = meta.row_groups.slice(0, g.row_group_index).reduce((n, x) => n + Number(x.num_rows), 0);
      const rows = await parquetReadObjects({
        file: fenced,
        metadata: meta,
        rowStart,
        rowEnd: rowStart + g.num_rows,
        columns: ["id", "h3"],
      });
      expect(rows).toHaveLength(g.num_rows);
      for (const r of rows) {
        expect(r.h3 >= g.min_cell && r.h3 <= g.max_cell).toBe(true);
        seen.add(r.id);
      }
      expect(Object.keys(g.partition).sort()).toEqual(["country", "day"]);
      expect(g.path).toContain(`/country=${g.partition.country}/day=${g.partition.day}/`);
    }
    // The row groups hold every row of the cell.
    for (const r of ROWS.filter(brute.cell(cell))) expect(seen.has(r.id)).toBe(true);
  });

  it("GIVEN a point or a small box THEN the index lists only row groups whose cell range can hold it", async () => {
    const whole = (await fx.user.datasets.queryIndex({ path: TRIPS })).row_groups as any[];
    const files = new Set(whole.map((g) => g.path)).size;
    const point = { lat: ROWS[11].lat, lng: ROWS[11].lng };
    const cell = latLngToCell(point.lat, point.lng, RESOLUTION);
    const atPoint = (await fx.user.datasets.queryIndex({ path: TRIPS, point })).row_groups as any[];
    // At most the row group holding the cell in each file, or two where it straddles a boundary.
    expect(atPoint.length).toBeLessThanOrEqual(2 * files);
    expect(atPoint.every((g) => g.min_cell <= cell && cell <= g.max_cell)).toBe(true);
    expect(atPoint.length).toBeLessThan(whole.length);
    const box = (
      await fx.user.datasets.queryIndex({
        path: TRIPS,
        bbox: { minLng: -122.45, minLat: 37.75, maxLng: -122.449, maxLat: 37.751 },
      })
    ).row_groups;
    expect(box.length).toBeGreaterThan(0);
    expect(box.length).toBeLessThan(whole.length);
  });
});

describe("dataset query (4.11): path resolution and access", () => {
  it("GIVEN svc://, the literal path and the service token THEN the team reads its own dataset", async () => {
    const cell = PLACES[0].cell;
    const viaAlias = await fx.user.datasets.query({ path: "svc://datasets/trips", cell, columns: ["id"] });
    const viaService = await fx.service.datasets.query({ path: TRIPS, cell, columns: ["id"] });
    expect(await readParquet(viaAlias.parquet)).toEqual(await readParquet(viaService.parquet));
  });

  it("GIVEN a public dataset THEN another team and a caller without credentials read it at its literal s3:// path", async () => {
    for (const client of [fx.other, fx.anon]) {
      const { rows } = await all(client, { path: PUBLIC });
      expect(rows.map((r) => r.name)).toEqual(
        PLACES.map((p) => p.name).sort((a, b) => (cellRank(a) < cellRank(b) ? -1 : 1)),
      );
    }
  });

  it("GIVEN a public dataset THEN its files are publicly readable: a caller without credentials reads a row group the index points at", async () => {
    const index = await fx.anon.datasets.queryIndex({ path: PUBLIC });
    const g = index.row_groups[0] as any;
    const file = await fx.anon.files.download(g.path);
    const meta = parquetMetadata(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer);
    expect(Number(meta.row_groups[g.row_group_index].num_rows)).toBe(g.num_rows);
    const e = await failure(fx.anon.files.download(`${TRIPS}/country=US/day=2024-01/part-00000.parquet`));
    expect(e.status).toBe(404);
  });

  it.each<[string, () => SvcClient, string, number, string]>([
    [
      "no credentials, a private dataset",
      () => fx.anon,
      TRIPS,
      403,
      "Without credentials only a public dataset at a literal s3:// path",
    ],
    [
      "no credentials, a public dataset at gs://",
      () => fx.anon,
      "gs://demo-gcs/public/places",
      403,
      "literal s3:// path",
    ],
    ["no credentials, an svc:// path", () => fx.anon, "svc://public/places", 403, "literal s3:// path"],
    ["no credentials, nothing there", () => fx.anon, "s3://demo-bucket/nothing", 403, "literal s3:// path"],
    [
      "another team's private dataset",
      () => fx.user,
      "s3://other-bucket/private/places",
      404,
      "No readable dataset at s3://other-bucket/private/places",
    ],
    ["no dataset at the path", () => fx.user, "s3://demo-bucket/datasets/none", 404, "No readable dataset"],
    [
      "a dataset that never finishes indexing",
      () => fx.user,
      "s3://demo-bucket/datasets/pending",
      409,
      "has not finished indexing",
    ],
  ])("GIVEN %s THEN %s", async (_what, client, path, status, detail) => {
    for (const call of [() => client().datasets.query({ path }), () => client().datasets.queryIndex({ path })]) {
      const e = await failure(call());
      expect(e).toBeInstanceOf(ApiError);
      expect(e.status).toBe(status);
      expect(e.detail).toContain(detail);
    }
  });

  it("GIVEN an invalid token THEN 401 before anything else", async () => {
    const e = await failure(fx.client({ token: "svc_pat_bogus-token" }).datasets.query({ path: PUBLIC }));
    expect(e).toMatchObject({ status: 401, code: "unauthorized", detail: "Invalid or expired credentials" });
  });
});

/** PLACES come back sorted by cell. */
const cellRank = (name: string) => PLACES.find((p) => p.name === name)!.cell;

/** Raw requests, for what the client refuses to send. */
async function raw(query: Record<string, string | string[]>): Promise<{ status: number; body: any }> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const x of [v].flat()) q.append(k, x);
  const res = await fetch(`${fx.emu.baseUrl}/h3/query?${q}`, {
    headers: { authorization: `Bearer ${fx.emu.tokens.user_token}` },
  });
  return { status: res.status, body: await res.json() };
}

describe("dataset query (4.11): every error of section 7", () => {
  it.each<[string, Record<string, string | string[]>, string]>([
    [
      "a box and a point",
      { path: TRIPS, min_lng: "0", min_lat: "0", max_lng: "1", max_lat: "1", lat: "1", lng: "1" },
      "Use at most one spatial selector; got the bounding box and the point",
    ],
    [
      "a cell and a hex range",
      { path: TRIPS, cell: "8828308281fffff", hex_min: "1", hex_max: "2" },
      "at most one spatial selector",
    ],
    [
      "three of the box's four numbers",
      { path: TRIPS, min_lng: "0", min_lat: "0", max_lng: "1" },
      "Incomplete bounding box: max_lat is missing",
    ],
    ["a point without lng", { path: TRIPS, lat: "1" }, "Incomplete point: lng is missing"],
    ["hex_min alone", { path: TRIPS, hex_min: "8828308281fffff" }, "Incomplete hex range: hex_max is missing"],
    [
      "two cells (cell=A&cell=B)",
      { path: TRIPS, cell: [PLACES[0].cell, PLACES[1].cell] },
      'Query parameter "cell" was given 2 times; it takes one value',
    ],
    ["two paths", { path: [TRIPS, PUBLIC] }, 'Query parameter "path" was given 2 times'],
    [
      "two lat of a point",
      { path: TRIPS, lat: ["37.79", "37.76"], lng: "-122.39" },
      'Query parameter "lat" was given 2 times',
    ],
    ["two format values", { path: TRIPS, format: ["index", "parquet"] }, 'Query parameter "format" was given 2 times'],
    [
      "two max_row_groups values",
      { path: TRIPS, max_row_groups: ["1", "2"] },
      'Query parameter "max_row_groups" was given 2 times',
    ],
    [
      "two time_min values",
      { path: TRIPS, time_min: ["2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"] },
      'Query parameter "time_min" was given 2 times',
    ],
  ])("GIVEN %s THEN 400 (before the dataset is looked at)", async (_what, query, detail) => {
    const r = await raw(query);
    expect(r).toMatchObject({ status: 400 });
    expect(r.body).toEqual({ detail: expect.stringContaining(detail) });
  });

  it("GIVEN columns repeated (the one parameter the spec lets repeat) THEN it is not refused: both columns come back", async () => {
    const q = new URLSearchParams([
      ["path", TRIPS],
      ["cell", PLACES[0].cell],
      ["columns", "id"],
      ["columns", "time"],
      ["format", "index"],
    ]);
    const res = await fetch(`${fx.emu.baseUrl}/h3/query?${q}`, {
      headers: { authorization: `Bearer ${fx.emu.tokens.user_token}` },
    });
    expect(res.status).toBe(200);
  });

  it.each<[string, H3QueryParams, string]>([
    ["an invalid cell id", { path: TRIPS, cell: "8828308281fffffz" }, 'Invalid cell id "8828308281fffffz"'],
    ["a cell id that is not a cell", { path: TRIPS, cell: "123" }, "Invalid cell id"],
    [
      "a hex range that is not hex",
      { path: TRIPS, hexRange: { min: "xyz", max: "8828308281fffff" } },
      "Invalid cell id in hex_min",
    ],
    [
      "a partition on a non-partition column",
      { path: TRIPS, partition: { name: "x" } },
      'partition names "name", which is not a partition column of s3://demo-bucket/datasets/trips (partition columns: country, day)',
    ],
    [
      "a partition range on a non-partition column",
      { path: TRIPS, partitionRange: { value: [1, 2] } },
      'partition_range names "value"',
    ],
  ])("GIVEN %s THEN 400 through the client", async (_what, params, detail) => {
    const e = await failure(fx.user.datasets.query(params));
    expect(e).toMatchObject({ status: 400, code: "bad_request" });
    expect(e.detail).toContain(detail);
  });

  it("GIVEN a cursor sent with another query THEN 400, and a forged cursor THEN 400", async () => {
    const first = await fx.user.datasets.query({ path: TRIPS, maxRowGroups: 2, columns: ["id"] });
    const other = await failure(
      fx.user.datasets.query({ path: TRIPS, maxRowGroups: 2, columns: ["id", "name"], cursor: first.nextCursor }),
    );
    expect(other).toMatchObject({
      status: 400,
      detail: expect.stringContaining("The cursor belongs to a different query"),
    });
    const asIndex = await failure(
      fx.user.datasets.queryIndex({ path: TRIPS, maxRowGroups: 2, columns: ["id"], cursor: first.nextCursor }),
    );
    expect(asIndex.status).toBe(400);
    const [body, sig] = first.nextCursor!.split(".");
    const edited = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), o: 0 }),
    ).toString("base64url");
    const forged = await failure(
      fx.user.datasets.query({ path: TRIPS, maxRowGroups: 2, columns: ["id"], cursor: `${edited}.${sig}` }),
    );
    expect(forged).toMatchObject({ status: 400, detail: expect.stringContaining("Invalid cursor") });
  });

  it("GIVEN a cursor from before a re-index THEN 409, and the new index answers from the start", async () => {
    const path = "s3://demo-bucket/datasets/reindexed";
    const rows = ROWS.slice(0, 500).map((r) => ({ id: r.id, lat: r.lat, lng: r.lng }));
    await fx.emu.indexDataset({ path, resolution: RESOLUTION, rows, row_group_rows: 50 });
    const first = await fx.user.datasets.query({ path, maxRowGroups: 2 });
    expect(first.nextCursor).toBeDefined();
    const again = await fx.emu.indexDataset({
      path,
      resolution: RESOLUTION,
      rows: rows.slice(0, 300),
      row_group_rows: 50,
    });
    expect(again).toMatchObject({ generation: 2, rows: 300, row_groups: 6 });
    const e = await failure(fx.user.datasets.query({ path, maxRowGroups: 2, cursor: first.nextCursor }));
    expect(e).toMatchObject({ status: 409, code: "conflict", detail: expect.stringContaining("predates a re-index") });
    const { rows: now } = await all(fx.user, { path, maxRowGroups: 2 });
    expect(ids(now as { id: number }[])).toEqual(rows.slice(0, 300).map((r) => r.id));
  });

  it("GIVEN a column missing from the indexed files THEN 422 naming it", async () => {
    const e = await failure(fx.user.datasets.query({ path: TRIPS, columns: ["id", "nope"] }));
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toEqual([
      {
        loc: ["query", "columns"],
        msg: "'nope' is not in the indexed files (columns: id, lat, lng, time, country, day, value, name, h3)",
        type: "value_error",
      },
    ]);
  });

  it.each<[string, Record<string, string>, (string | number)[]]>([
    ["max_row_groups 4097", { max_row_groups: "4097" }, ["query", "max_row_groups"]],
    ["max_row_groups 0", { max_row_groups: "0" }, ["query", "max_row_groups"]],
    ["a format that is neither parquet nor index", { format: "csv" }, ["query", "format"]],
    ["a time that is not a datetime", { time_min: "yesterday" }, ["query", "time_min"]],
    ["a latitude out of range", { lat: "91", lng: "0" }, ["query", "lat"]],
    ["partition that is not JSON", { partition: "country=US" }, ["query", "partition"]],
    ["a date partition value that is not a date", { partition: '{"day":"March"}' }, ["query", "partition", "day"]],
  ])("GIVEN %s THEN 422", async (_what, query, loc) => {
    const r = await raw({ path: TRIPS, ...query });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(loc);
  });

  it("GIVEN a time window on a dataset without a time column THEN 422", async () => {
    const e = await failure(fx.user.datasets.query({ path: PUBLIC, timeMin: "2024-01-01T00:00:00Z" }));
    expect(e).toMatchObject({ status: 422 });
    expect(e.detail[0].msg).toContain("has no time column");
  });
});

describe("dataset query (4.11): the client refuses what the spec calls invalid before sending", () => {
  it.each<[string, H3QueryParams, string]>([
    [
      "two selectors",
      { path: TRIPS, cell: "8928308280fffff", point: { lat: 1, lng: 2 } },
      "use at most one spatial selector, got point, cell",
    ],
    [
      "an incomplete bbox",
      { path: TRIPS, bbox: { minLng: 0, minLat: 0, maxLng: 1 } as never },
      "a bounding box needs all four",
    ],
    [
      "max_row_groups 4097",
      { path: TRIPS, maxRowGroups: 4097 },
      "maxRowGroups must be an integer from 1 to 4096, got 4097",
    ],
    ["an invalid Date", { path: TRIPS, timeMin: new Date("nope") }, "timeMin is an invalid Date"],
  ])("GIVEN %s THEN a plain Error, not an ApiError", async (_what, params, message) => {
    for (const call of [() => fx.user.datasets.query(params), () => fx.user.datasets.queryIndex(params)]) {
      const e = await failure(call());
      expect(e).not.toBeInstanceOf(ApiError);
      expect(e.message).toContain(message);
    }
    expect(() => fx.user.datasets.pages(params)).toThrow(message);
  });
});

it("uses every country in the seeded rows (the partition tests depend on it)", () => {
  expect(new Set(ROWS.map((r) => r.country))).toEqual(new Set(COUNTRIES));
});
