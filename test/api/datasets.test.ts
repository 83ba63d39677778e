import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, type SvcClient } from "../../src/api/client";
import { h3QueryString, type H3QueryParams } from "../../src/api/datasets";
import { ApiError } from "../../src/api/errors";
import { FAST_RETRY, failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

/**
 * A stand-in for the platform's `/v1/h3/query` (the emulator does not serve it yet). Datasets:
 * - `s3://pages/parquet`: three Parquet pages, cursors `c1`, `c2` in `X-Svc-Next-Cursor`.
 * - `s3://pages/index` with format=index: two JSON pages, cursor `i1` in `next_cursor`.
 * - `s3://errors/<status>`: answers that status with the spec's error body.
 * Each page checks the cursor it expects and that every other parameter is unchanged.
 */
interface Seen {
  url: string;
  authorization: string | undefined;
}
let server: Server;
let stub: SvcClient;
let seen: Seen[] = [];

const PAGE_BYTES = [Buffer.from("PAR1-page-one-PAR1"), Buffer.from("PAR1-page-two-PAR1"), Buffer.from("PAR1-page-three-PAR1")];
const PARQUET_CURSORS = [undefined, "c1", "c2"];

/** All parameters but the cursor, in a comparable form. */
function withoutCursor(url: URL): string {
  const p = new URLSearchParams(url.searchParams);
  p.delete("cursor");
  return p.toString();
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

let firstQuery: string | undefined;

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://stub");
  seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
  if (url.pathname !== "/v1/h3/query" || req.method !== "GET") return answer(res, 404, { detail: "Not Found" });
  const path = url.searchParams.get("path") ?? "";
  const cursor = url.searchParams.get("cursor") ?? undefined;
  const errorStatus = /^s3:\/\/errors\/(\d{3})$/.exec(path)?.[1];
  if (errorStatus) {
    const status = Number(errorStatus);
    const details: Record<number, unknown> = {
      400: "The cursor belongs to a different query",
      403: "This dataset is not public; credentials are required",
      404: "No readable dataset at s3://errors/404",
      409: "The dataset has not finished indexing",
      422: [{ loc: ["query", "columns"], msg: "Column 'nope' is not in the indexed files", type: "value_error" }],
    };
    return answer(res, status, { detail: details[status] });
  }
  // The same query on every page.
  if (cursor === undefined) firstQuery = withoutCursor(url);
  else if (withoutCursor(url) !== firstQuery) return answer(res, 400, { detail: "The cursor belongs to a different query" });

  if (path === "s3://pages/parquet") {
    const i = PARQUET_CURSORS.indexOf(cursor);
    if (i < 0) return answer(res, 400, { detail: `Unknown cursor ${cursor}` });
    const headers: Record<string, string> = { "content-type": "application/vnd.apache.parquet" };
    if (i + 1 < PARQUET_CURSORS.length) headers["x-svc-next-cursor"] = PARQUET_CURSORS[i + 1]!;
    res.writeHead(200, headers);
    return res.end(PAGE_BYTES[i]);
  }
  if (path === "s3://pages/index") {
    if (url.searchParams.get("format") !== "index") return answer(res, 400, { detail: "expected format=index" });
    if (cursor === undefined) {
      return answer(res, 200, {
        row_groups: [{ path: "s3://pages/index/a.parquet", row_group_index: 0, offset: 4, length: 100 }],
        footers: { "s3://pages/index/a.parquet": "Zm9vdGVy" },
        next_cursor: "i1",
      });
    }
    if (cursor === "i1") {
      return answer(res, 200, {
        row_groups: [{ path: "s3://pages/index/b.parquet", row_group_index: 3, offset: 900, length: 50 }],
        footers: { "s3://pages/index/b.parquet": "Zm9vdGVyMg==" },
        next_cursor: null,
      });
    }
    return answer(res, 400, { detail: `Unknown cursor ${cursor}` });
  }
  if (path === "s3://pages/loop") {
    res.writeHead(200, { "content-type": "application/vnd.apache.parquet", "x-svc-next-cursor": "same" });
    return res.end(Buffer.from("PAR1"));
  }
  return answer(res, 404, { detail: `No readable dataset at ${path}` });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  stub = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: "svc_pat_stub-token-123", retry: FAST_RETRY });
});

afterAll(async () => {
  await stub?.close();
  await new Promise<void>((r) => {
    server?.close(() => r());
    server?.closeAllConnections();
  });
});

beforeEach(() => {
  seen = [];
  firstQuery = undefined;
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

describe("dataset query (4.11): encoding and paging", () => {
  it("encodes every parameter per the spec's table (bbox split, JSON partitions, repeated columns, ISO times)", async () => {
    const page = await stub.datasets.query(FULL);
    expect(Buffer.from(page.parquet).toString()).toBe("PAR1-page-one-PAR1");
    expect(page.nextCursor).toBe("c1");
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

  it("GIVEN three Parquet pages WHEN iterating pages() THEN each cursor goes back with the unchanged query", async () => {
    const pages = [];
    for await (const p of stub.datasets.pages(FULL)) pages.push(p);
    expect(pages.map((p) => Buffer.from(p.parquet).toString())).toEqual(["PAR1-page-one-PAR1", "PAR1-page-two-PAR1", "PAR1-page-three-PAR1"]);
    expect(pages.map((p) => p.nextCursor)).toEqual(["c1", "c2", undefined]);
    const urls = seen.map((s) => new URL(s.url, "http://stub"));
    expect(urls.map((u) => u.searchParams.get("cursor"))).toEqual([null, "c1", "c2"]);
    expect(new Set(urls.map(withoutCursor)).size).toBe(1);
  });

  it("GIVEN a starting cursor THEN query() and pages() start from it", async () => {
    firstQuery = withoutCursor(new URL(`http://stub/?path=${encodeURIComponent("s3://pages/parquet")}`));
    const one = await stub.datasets.query({ path: "s3://pages/parquet", cursor: "c2" });
    expect(Buffer.from(one.parquet).toString()).toBe("PAR1-page-three-PAR1");
    expect(one.nextCursor).toBeUndefined();
    const rest = [];
    for await (const p of stub.datasets.pages({ path: "s3://pages/parquet", cursor: "c1" })) rest.push(Buffer.from(p.parquet).toString());
    expect(rest).toEqual(["PAR1-page-two-PAR1", "PAR1-page-three-PAR1"]);
  });

  it("GIVEN index pages WHEN using queryIndex() and indexPages() THEN format=index is sent and next_cursor followed", async () => {
    const first = await stub.datasets.queryIndex({ path: "s3://pages/index", cell: "8928308280fffff" });
    expect(first.row_groups).toEqual([{ path: "s3://pages/index/a.parquet", row_group_index: 0, offset: 4, length: 100 }]);
    expect(first.footers).toEqual({ "s3://pages/index/a.parquet": "Zm9vdGVy" });
    expect(first.next_cursor).toBe("i1");

    seen = [];
    firstQuery = undefined;
    const all = [];
    for await (const p of stub.datasets.indexPages({ path: "s3://pages/index", cell: "8928308280fffff" })) all.push(p);
    expect(all.map((p) => p.row_groups[0].row_group_index)).toEqual([0, 3]);
    expect(all[1].next_cursor).toBeNull();
    const urls = seen.map((s) => new URL(s.url, "http://stub"));
    expect(urls.map((u) => [u.searchParams.get("format"), u.searchParams.get("cursor"), u.searchParams.get("cell")])).toEqual([
      ["index", null, "8928308280fffff"],
      ["index", "i1", "8928308280fffff"],
    ]);
  });

  it("GIVEN a server that repeats a cursor THEN paging stops with an error instead of looping", async () => {
    const got: string[] = [];
    const e = await failure(
      (async () => {
        for await (const p of stub.datasets.pages({ path: "s3://pages/loop" })) got.push(Buffer.from(p.parquet).toString());
      })(),
    );
    expect(e.message).toContain("twice");
    expect(got).toEqual(["PAR1", "PAR1"]);
  });
});

describe("dataset query (4.11): errors", () => {
  it.each([
    [400, "bad_request", "The cursor belongs to a different query"],
    [403, "forbidden", "This dataset is not public; credentials are required"],
    [404, "not_found", "No readable dataset at s3://errors/404"],
    [409, "conflict", "The dataset has not finished indexing"],
  ])("GIVEN the server answers %i THEN query() rejects with ApiError code %s and the detail", async (status, code, detail) => {
    const e = await failure(stub.datasets.query({ path: `s3://errors/${status}` }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status, code, detail, method: "GET" });
    expect(e.path).toBe(`/h3/query?path=${encodeURIComponent(`s3://errors/${status}`)}`);
    expect(e.message).not.toContain("svc_pat_stub-token-123");
    expect(seen).toHaveLength(1); // 4xx answers are not retried
  });

  it("GIVEN the server answers 422 for an unknown column THEN the validation detail arrives (index and paging too)", async () => {
    const e = await failure(stub.datasets.queryIndex({ path: "s3://errors/422", columns: ["nope"] }));
    expect(e).toMatchObject({ status: 422, code: "validation_failed" });
    expect(e.detail).toEqual([{ loc: ["query", "columns"], msg: "Column 'nope' is not in the indexed files", type: "value_error" }]);
    const viaPages = await failure(stub.datasets.pages({ path: "s3://errors/409" }).next());
    expect(viaPages).toMatchObject({ status: 409, code: "conflict", detail: "The dataset has not finished indexing" });
    const viaIndexPages = await failure(stub.datasets.indexPages({ path: "s3://errors/404" }).next());
    expect(viaIndexPages).toMatchObject({ status: 404, code: "not_found" });
  });

  it("GIVEN a cursor sent with a changed query THEN the server's 400 surfaces", async () => {
    await stub.datasets.query({ path: "s3://pages/parquet", cell: "aa" });
    const e = await failure(stub.datasets.query({ path: "s3://pages/parquet", cell: "bb", cursor: "c1" }));
    expect(e).toMatchObject({ status: 400, code: "bad_request", detail: "The cursor belongs to a different query" });
  });

  it.each<[string, H3QueryParams, string]>([
    ["two selectors", { path: "p", cell: "8928308280fffff", point: { lat: 1, lng: 2 } }, "use at most one spatial selector, got point, cell"],
    ["bbox and hex range", { path: "p", bbox: { minLng: 0, minLat: 0, maxLng: 1, maxLat: 1 }, hexRange: { min: "a", max: "b" } }, "got bbox, hexRange"],
    ["an incomplete bbox", { path: "p", bbox: { minLng: 0, minLat: 0, maxLng: 1 } as never }, "a bounding box needs all four"],
    ["a NaN in the bbox", { path: "p", bbox: { minLng: 0, minLat: Number.NaN, maxLng: 1, maxLat: 1 } }, "a bounding box needs all four"],
    ["an incomplete point", { path: "p", point: { lat: 1 } as never }, "a point needs both lat and lng"],
    ["an incomplete hex range", { path: "p", hexRange: { min: "a" } as never }, "a hex range needs both min and max"],
    ["max_row_groups 0", { path: "p", maxRowGroups: 0 }, "maxRowGroups must be an integer from 1 to 4096, got 0"],
    ["max_row_groups 4097", { path: "p", maxRowGroups: 4097 }, "maxRowGroups must be an integer from 1 to 4096, got 4097"],
    ["max_row_groups 1.5", { path: "p", maxRowGroups: 1.5 }, "got 1.5"],
    ["no path", { path: "" }, "path is required"],
    ["an invalid Date", { path: "p", timeMin: new Date("nope") }, "timeMin is an invalid Date"],
    ["a non-object partition", { path: "p", partition: "year=2024" as never }, "partition must be an object"],
    ["a one-ended partition range", { path: "p", partitionRange: { date: ["2024"] as never } }, "partitionRange.date must be [min, max]"],
  ])("GIVEN %s THEN every call fails before sending", async (_what, params, message) => {
    for (const call of [() => stub.datasets.query(params), () => stub.datasets.queryIndex(params)]) {
      const e = await failure(call());
      expect(e).not.toBeInstanceOf(ApiError);
      expect(e.message).toContain("Invalid dataset query:");
      expect(e.message).toContain(message);
    }
    expect(() => stub.datasets.pages(params)).toThrow(message);
    expect(() => stub.datasets.indexPages(params)).toThrow(message);
    expect(seen).toEqual([]);
  });

  it("accepts the limits 1 and 4096 for max_row_groups", async () => {
    expect(h3QueryString({ path: "p", maxRowGroups: 1 }).max_row_groups).toBe(1);
    expect(h3QueryString({ path: "p", maxRowGroups: 4096 }).max_row_groups).toBe(4096);
  });
});

describe("dataset query (4.11) against the emulator", () => {
  it("GIVEN the emulator THEN /h3/query answers 501 with a clear detail, with or without credentials", async () => {
    const e = await failure(fx.user.datasets.query({ path: "s3://demo-bucket/ds" }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 501, code: "server_error", detail: "The dataset query is not available in the emulator yet" });
    const anon = await failure(fx.anon.datasets.queryIndex({ path: "s3://demo-bucket/ds" }));
    expect(anon).toMatchObject({ status: 501, detail: "The dataset query is not available in the emulator yet" });
  });

  it("GIVEN an invalid token THEN the emulator answers 401 before anything else", async () => {
    const e = await failure(fx.client({ token: "svc_pat_bogus-token" }).datasets.query({ path: "s3://demo-bucket/ds" }));
    expect(e).toMatchObject({ status: 401, code: "unauthorized", detail: "Invalid or expired credentials" });
  });
});
