import { describe, expect, it } from "vitest";
import type { UdfTest } from "../../../src/model/desired";
import { changedUdfs, selectTests } from "../../../src/reconcile/commands/test";

const test = (address: string, name: string): UdfTest => {
  const [canvas, slug] = address.slice("udf.".length).split("/");
  return {
    address,
    canvas,
    slug,
    name,
    args: {},
    expect: {},
    expectError: false,
    source: { file: `canvases/${canvas}/${slug}.yaml`, line: 1, column: 1, path: "tests[0]" },
  };
};
const tests = [test("udf.a/one", "x"), test("udf.a/two", "y"), test("udf.b/one", "z")];

describe("which tests run", () => {
  it("GIVEN --only patterns THEN only UDFs matching one of them, * matching any text", () => {
    expect(selectTests(tests, { only: ["udf.a/*"] }).tests.map((t) => t.name)).toEqual(["x", "y"]);
    expect(selectTests(tests, { only: ["udf.*/one", "udf.a/two"] }).tests.map((t) => t.name)).toEqual(["x", "y", "z"]);
    expect(selectTests(tests, { only: ["udf.a.one"] })).toEqual({ tests: [], unmatched: ["udf.a.one"] });
  });

  it("GIVEN the addresses an apply changed THEN exactly those UDFs' tests", () => {
    expect(selectTests(tests, { addresses: ["udf.b/one"] }).tests.map((t) => t.name)).toEqual(["z"]);
    expect(selectTests(tests, { addresses: [] }).tests).toEqual([]);
  });

  it("takes the UDFs an apply created, adopted, updated, renamed or replaced, and done", () => {
    const r = (address: string, action: string, status = "done", kind = "Udf") =>
      ({ address, kind, action, status }) as never;
    expect(
      changedUdfs([
        r("udf.a/two", "update"),
        r("udf.a/one", "create"),
        r("udf.b/one", "replace", "failed"),
        r("udf.c/x", "delete"),
        r("canvas.a", "update", "done", "Canvas"),
        r("udf.d/y", "rename"),
        r("udf.e/z", "adopt"),
      ]),
    ).toEqual(["udf.a/one", "udf.a/two", "udf.d/y", "udf.e/z"]);
  });
});
