import { describe, expect, it } from "vitest";
import { MAX_ROWS, renderResultTable, tableOf } from "../../../src/reconcile/deployed/result-table";

describe("a UDF's result as a terminal table", () => {
  it("GIVEN a GeoJSON FeatureCollection WHEN shown THEN each feature is a row of its properties and geometry type", () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { name: "a", pop: 10 }, geometry: { type: "Point", coordinates: [0, 0] } },
        { type: "Feature", properties: { name: "b" }, geometry: null },
      ],
    };
    expect(tableOf(fc)).toEqual({
      columns: ["name", "pop", "geometry"],
      rows: [
        ["a", 10, "Point"],
        ["b", undefined, null],
      ],
    });
  });

  it("GIVEN a list of rows WHEN shown THEN columns are numbered", () => {
    expect(
      renderResultTable([
        [1, "x"],
        [22, "yy"],
      ]),
    ).toBe(" 0  1\n--  --\n 1  x\n22  yy\n");
  });

  it("GIVEN text with escape sequences and line breaks WHEN shown THEN no control character reaches the terminal and cells stay one line", () => {
    const out = renderResultTable([{ name: "\u001b]0;pwned\u0007red\u001b[31m", note: "two\nlines" }]);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out.split("\n")).toHaveLength(4);
  });

  it(`GIVEN more than ${MAX_ROWS} rows or a long cell WHEN shown THEN the rest is counted and the cell cut`, () => {
    const rows = Array.from({ length: MAX_ROWS + 5 }, (_, i) => ({ i, long: "x".repeat(100) }));
    const out = renderResultTable(rows);
    expect(out.trimEnd().split("\n")).toHaveLength(MAX_ROWS + 3);
    expect(out).toContain(`… 5 more rows (--format json or csv prints them all)\n`);
    expect(out).toContain(`${"x".repeat(39)}…`);
  });

  it("GIVEN a scalar WHEN shown THEN it is printed as JSON", () => {
    expect(renderResultTable(42)).toBe("42\n");
    expect(renderResultTable([])).toBe("[]\n");
  });
});
