import { describe, expect, it } from "vitest";
import { expectMismatches } from "../../../src/reconcile/udf-tests/expect-match";

const result = {
  greeting: "hello ada",
  length: 3,
  letters: ["a", "d"],
  meta: { lang: "en", version: 2 },
  rows: [{ id: 1, tags: [] }],
};

describe("matching a test's expect: with the JSON result", () => {
  it("GIVEN a mapping THEN it matches any result holding its keys with matching values, recursively (a subset)", () => {
    expect(expectMismatches({ length: 3, meta: { lang: "en" } }, result)).toEqual([]);
    expect(expectMismatches({}, result)).toEqual([]);
  });

  it("GIVEN lists and scalars THEN they must be equal; numbers by value", () => {
    expect(expectMismatches({ letters: ["a", "d"], rows: [{ id: 1.0, tags: [] }] }, result)).toEqual([]);
    expect(expectMismatches(["a", "d"], ["a", "d"])).toEqual([]);
    expect(expectMismatches(null, null)).toEqual([]);
    expect(expectMismatches(7, 7)).toEqual([]);
  });

  it("GIVEN differences THEN each is named by its path, with what was expected and what was found", () => {
    expect(expectMismatches({ length: 4, meta: { lang: "fr", region: "eu" }, missing: 1 }, result)).toEqual([
      { path: "$.length", message: "expected 4, found 3" },
      { path: "$.meta.lang", message: 'expected "fr", found "en"' },
      { path: "$.meta.region", message: 'expected "eu", found no such key (the result has ["lang","version"])' },
      {
        path: "$.missing",
        message: 'expected 1, found no such key (the result has ["greeting","length","letters","meta","rows"])',
      },
    ]);
  });

  it("GIVEN a list THEN extra or missing items, and extra keys of a mapping inside it, are differences", () => {
    expect(expectMismatches({ letters: ["a"] }, result)).toEqual([
      { path: "$.letters", message: 'expected 1 item ["a"], found 2 ["a","d"]' },
    ]);
    expect(expectMismatches({ rows: [{ id: 1 }] }, result)).toEqual([
      { path: "$.rows[0]", message: 'expected {"id":1}, found {"id":1,"tags":[]} (items of a list must be equal)' },
    ]);
  });

  it("GIVEN a different kind of value THEN the difference says which kind was found", () => {
    expect(expectMismatches({ a: 1 }, [1])).toEqual([
      { path: "$", message: 'expected a mapping with ["a"], found a list [1]' },
    ]);
    expect(expectMismatches([1], { a: 1 })).toEqual([
      { path: "$", message: 'expected a list [1], found a mapping {"a":1}' },
    ]);
    expect(expectMismatches("1", 1)).toEqual([{ path: "$", message: 'expected "1", found 1' }]);
    expect(expectMismatches({ "odd key": 1 }, { "odd key": 2 })).toEqual([
      { path: '$["odd key"]', message: "expected 1, found 2" },
    ]);
  });
});
