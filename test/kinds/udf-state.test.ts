import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Udf } from "../../src/api/schemas";
import { observedUdfs, plainlyValidUdfs } from "../../src/kinds/udf/udf-state";

const record = {
  id: "u-1",
  slug: "loader",
  udf_body: JSON.stringify({
    name: "loader",
    entrypoint: "udf",
    code: "def udf():\n    return 1\n",
    headers: [],
    metadata: {},
  }),
  collection_id: "c-1",
  collection_name: "demo",
  is_visible: true,
  position: 0,
  udf_body_hash: "abc",
  last_updated: "2026-01-01T00:00:00Z",
  owning_user: null,
};

/** One field of a record set to each of several values, valid or not. */
const variants: Record<string, unknown>[] = [
  record,
  { ...record, extra: { anything: 1 } },
  ...[
    "id",
    "slug",
    "udf_body",
    "collection_id",
    "collection_name",
    "is_visible",
    "position",
    "udf_body_hash",
    "last_updated",
    "owning_user",
    "shared_token",
  ].flatMap((field) =>
    [undefined, null, "", "x", 0, 1.5, -3, 2 ** 53, Number.NaN, true, [], {}, ["x"]].map((value) => {
      const copy: Record<string, unknown> = { ...record, [field]: value };
      if (value === undefined) delete copy[field];
      return copy;
    }),
  ),
];

describe("GIVEN the UDF records of a canvas's answer", () => {
  it("THEN the hand check accepts no list the spec's schema refuses, and accepts the ordinary records", () => {
    for (const v of variants) {
      const zodOk = z.array(Udf).safeParse([v]).success;
      if (plainlyValidUdfs([v])) expect({ record: v, zodOk }).toEqual({ record: v, zodOk: true });
    }
    expect(plainlyValidUdfs([record, { ...record, id: "u-2", collection_id: null, shared_token: "fsh_x" }])).toBe(true);
    expect(plainlyValidUdfs({ 0: record })).toBe(false);
  });

  it("WHEN a record does not match the spec THEN observing the answer fails naming the canvas and the field", () => {
    expect(() =>
      observedUdfs("demo", [{ ...record, position: "first" }], "GET /collection/by-id/{collection_id}"),
    ).toThrow(/canvas "demo".*0\.position/);
  });

  it("THEN each UDF on a canvas is keyed by canvas id and slug, and UDFs on no canvas are left out", () => {
    const seen = observedUdfs("demo", [record, { ...record, id: "u-2", slug: "other", collection_id: null }], "here");
    expect(seen.map((o) => [o.id, o.key, o.state.code])).toEqual([["u-1", "c-1/loader", "def udf():\n    return 1\n"]]);
  });
});
