/**
 * What the dataset client does that the emulator cannot show: the exact query string it sends,
 * that invalid parameters send nothing, and that a server repeating a cursor stops paging. A small
 * recording server stands in for the platform; every behaviour of the query itself is tested
 * against the emulator in `datasets.test.ts`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, type SvcClient } from "../../src/api/client";
import { h3QueryString, type H3QueryParams } from "../../src/api/datasets";
import { FAST_RETRY, failure } from "../helpers/emulator";

let server: Server;
let client: SvcClient;
let seen: { url: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  // Answers every query with a Parquet magic and the same cursor: a server stuck on one page.
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    res.writeHead(200, { "content-type": "application/vnd.apache.parquet", "x-svc-next-cursor": "same" });
    res.end(Buffer.from("PAR1"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: "svc_pat_stub-token-123", retry: FAST_RETRY });
});

afterAll(async () => {
  await client?.close();
  await new Promise<void>((r) => {
    server?.close(() => r());
    server?.closeAllConnections();
  });
});

beforeEach(() => {
  seen = [];
});

const FULL: H3QueryParams = {
  path: "s3://pages/parquet",
  bbox: { minLng: -74.1, minLat: 40.6, maxLng: -73.9, maxLat: 40.9 },
  timeMin: new Date("2024-01-01T00:00:00Z"),
  timeMax: "2024-06-30T23:59:59Z",
  partition: { country: ["US", "CA"], year: 2024 },
  partitionRange: { date: ["2024-01", null] },
  columns: ["id", "geometry"],
  maxRowGroups: 16,
};

describe("dataset client (4.11): the query string", () => {
  it("encodes every parameter per the spec's table (bbox split, JSON partitions, repeated columns, ISO times)", async () => {
    await client.datasets.query({ ...FULL, cursor: "c1" });
    expect(seen).toHaveLength(1);
    const q = new URL(seen[0].url, "http://stub").searchParams;
    expect([...q.entries()]).toEqual([
      ["path", "s3://pages/parquet"],
      ["min_lng", "-74.1"],
      ["min_lat", "40.6"],
      ["max_lng", "-73.9"],
      ["max_lat", "40.9"],
      ["time_min", "2024-01-01T00:00:00.000Z"],
      ["time_max", "2024-06-30T23:59:59Z"],
      ["partition", '{"country":["US","CA"],"year":2024}'],
      ["partition_range", '{"date":["2024-01",null]}'],
      ["columns", "id"],
      ["columns", "geometry"],
      ["max_row_groups", "16"],
      ["cursor", "c1"],
    ]);
    expect(seen[0].authorization).toBe("Bearer svc_pat_stub-token-123");
  });

  it("encodes the point, cell and hex-range selectors", () => {
    expect(h3QueryString({ path: "p", point: { lat: 1.5, lng: -2 } })).toMatchObject({ lat: 1.5, lng: -2 });
    expect(h3QueryString({ path: "p", cell: "8928308280fffff" })).toMatchObject({ cell: "8928308280fffff" });
    expect(h3QueryString({ path: "p", hexRange: { min: "8928308280fffff", max: "89283082fffffff" } })).toMatchObject({
      hex_min: "8928308280fffff",
      hex_max: "89283082fffffff",
    });
  });

  it("accepts the limits 1 and 4096 for max_row_groups", () => {
    expect(h3QueryString({ path: "p", maxRowGroups: 1 }).max_row_groups).toBe(1);
    expect(h3QueryString({ path: "p", maxRowGroups: 4096 }).max_row_groups).toBe(4096);
  });
});

describe("dataset client (4.11): refused before sending", () => {
  it.each<[string, H3QueryParams, string]>([
    [
      "two selectors",
      { path: "p", cell: "8928308280fffff", point: { lat: 1, lng: 2 } },
      "use at most one spatial selector, got point, cell",
    ],
    [
      "bbox and hex range",
      { path: "p", bbox: { minLng: 0, minLat: 0, maxLng: 1, maxLat: 1 }, hexRange: { min: "a", max: "b" } },
      "got bbox, hexRange",
    ],
    [
      "an incomplete bbox",
      { path: "p", bbox: { minLng: 0, minLat: 0, maxLng: 1 } as never },
      "a bounding box needs all four",
    ],
    [
      "a NaN in the bbox",
      { path: "p", bbox: { minLng: 0, minLat: Number.NaN, maxLng: 1, maxLat: 1 } },
      "a bounding box needs all four",
    ],
    ["an incomplete point", { path: "p", point: { lat: 1 } as never }, "a point needs both lat and lng"],
    ["an incomplete hex range", { path: "p", hexRange: { min: "a" } as never }, "a hex range needs both min and max"],
    ["max_row_groups 0", { path: "p", maxRowGroups: 0 }, "maxRowGroups must be an integer from 1 to 4096, got 0"],
    ["max_row_groups 1.5", { path: "p", maxRowGroups: 1.5 }, "got 1.5"],
    ["no path", { path: "" }, "path is required"],
    ["a non-object partition", { path: "p", partition: "year=2024" as never }, "partition must be an object"],
    [
      "a one-ended partition range",
      { path: "p", partitionRange: { date: ["2024"] as never } },
      "partitionRange.date must be [min, max]",
    ],
  ])("GIVEN %s THEN nothing is sent", async (_what, params, message) => {
    for (const call of [() => client.datasets.query(params), () => client.datasets.queryIndex(params)]) {
      const e = await failure(call());
      expect(e.message).toMatch(/^Invalid dataset query: /);
      expect(e.message).toContain(message);
    }
    expect(() => client.datasets.pages(params)).toThrow(message);
    expect(() => client.datasets.indexPages(params)).toThrow(message);
    expect(seen).toEqual([]);
  });
});

it("GIVEN a server that repeats a cursor THEN paging stops with an error instead of looping", async () => {
  const got: string[] = [];
  const e = await failure(
    (async () => {
      for await (const p of client.datasets.pages({ path: "s3://pages/loop" }))
        got.push(Buffer.from(p.parquet).toString());
    })(),
  );
  expect(e.message).toContain("twice");
  expect(got).toEqual(["PAR1", "PAR1"]);
});
