import { describe, expect, it } from "vitest";
import { buildRequest, encodeQuery, expandPath, parseRoute } from "../../src/api/request";
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter } from "../../src/api/retry";
import { listing } from "../../src/api/paging";

const ctx = {
  baseUrl: "https://host/server/v1/",
  udfBaseUrl: "https://udf.host",
  credentials: { token: "tok-123456" },
};

describe("building requests (pure)", () => {
  it("URL-encodes name-based canvas tokens, slashes included, and hides them in the display path", () => {
    const r = buildRequest(
      "POST /session-token/by-access-token/{canvas_token}",
      { params: { canvas_token: "fc_demo/my canvas" }, secretParams: ["canvas_token"] },
      ctx,
    );
    expect(r.url).toBe("https://host/server/v1/session-token/by-access-token/fc_demo%2Fmy%20canvas");
    expect(r.displayPath).toBe("/session-token/by-access-token/{canvas_token}");
    expect(r.secrets).toContain("fc_demo/my canvas");
  });

  it("sends Bearer by default, Svc-Service-Token for service clients, the passcode scheme instead of both, and nothing for by-token calls", () => {
    expect(buildRequest("GET /user/self", {}, ctx).headers.authorization).toBe("Bearer tok-123456");
    expect(
      buildRequest("GET /user/self", {}, { ...ctx, credentials: { serviceToken: "sa-123456" } }).headers.authorization,
    ).toBe("Svc-Service-Token sa-123456");
    expect(buildRequest("GET /x", { auth: { passcode: "pc-1234" } }, ctx).headers.authorization).toBe(
      "Svc-Canvas-Passcode pc-1234",
    );
    expect(buildRequest("GET /x", { auth: "none" }, ctx).headers.authorization).toBeUndefined();
  });

  it("uses the UDF host for base 'udf' and repeats array query parameters in order", () => {
    expect(buildRequest("GET /a", { base: "udf" }, ctx).url).toBe("https://udf.host/a");
    expect(encodeQuery({ columns: ["a", "b"], skip: 0, gone: undefined, flag: true })).toBe(
      "?columns=a&columns=b&skip=0&flag=true",
    );
  });

  it("marks GET, PUT and DELETE idempotent, POST not", () => {
    expect(["GET", "PUT", "DELETE", "POST"].map((m) => buildRequest(`${m} /a`, {}, ctx).idempotent)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it("rejects a malformed route and a missing path parameter with messages that say what is expected", () => {
    expect(() => parseRoute("get /a")).toThrow('Invalid route "get /a". A route must be in the format "METHOD /path".');
    expect(() => expandPath("/udf/by-id/{udf_id}", {})).toThrow(
      'Missing path parameter(s) udf_id for "/udf/by-id/{udf_id}".',
    );
  });
});

describe("retry policy (pure)", () => {
  it("grows back-off exponentially within [half, full] of the step and caps it", () => {
    const o = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, o, () => 0)).toBe(50);
    expect(backoffDelay(1, o, () => 1)).toBe(100);
    expect(backoffDelay(3, o, () => 1)).toBe(400);
    expect(backoffDelay(10, o, () => 1)).toBe(1000);
  });

  it("reads Retry-After as seconds or an HTTP date, capped", () => {
    expect(parseRetryAfter("2", DEFAULT_RETRY)).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), DEFAULT_RETRY, 4000)).toBe(6000);
    expect(parseRetryAfter("99999", DEFAULT_RETRY)).toBe(60_000);
    expect(parseRetryAfter("soon", DEFAULT_RETRY)).toBeUndefined();
  });
});

describe("listings (pure)", () => {
  it("pages with skip/limit until a short page", async () => {
    const calls: [number, number][] = [];
    const all = Array.from({ length: 7 }, (_, i) => i);
    const items = await listing(
      async (skip, limit) => {
        calls.push([skip, limit]);
        return all.slice(skip, skip + limit);
      },
      { pageSize: 3 },
    ).toArray();
    expect(items).toEqual(all);
    expect(calls).toEqual([
      [0, 3],
      [3, 3],
      [6, 3],
    ]);
  });
});
