/** A widget's code checked as JSON: the first problem at its 1-based line and column. */
import { describe, expect, it } from "vitest";
import { JSON_MAX_DEPTH, jsonProblem } from "../../src/repository/json-check";

describe("GIVEN a widget's code", () => {
  it("WHEN it is a JSON document THEN there is no problem", () => {
    expect(jsonProblem('{"type": "scatter-chart", "props": {"x": [1, 2.5e3, -0, true, null, "\\u00e9"]}}\n')).toBe(
      undefined,
    );
  });

  it.each([
    ['{"a": x}', 1, 7, 'found "x", expected a JSON value'],
    ['{\n  "a": tru}', 2, 8, 'found "t", expected a JSON value'],
    ['{"a": 1,}', 1, 9, 'found "}", expected a member name'],
    ['{"a": 1} x', 1, 10, 'found "x", expected the end of the document'],
    ['"abc', 1, 5, "found the end of the file, expected the closing"],
    ["", 1, 1, "found an empty file, expected a JSON document"],
    ['{"a"\n  1}', 2, 3, 'found "1", expected ":"'],
  ])("WHEN it is %j THEN the problem is at %i:%i", (text, line, column, message) => {
    const p = jsonProblem(text);
    expect(p).toMatchObject({ line, column });
    expect(p!.message).toContain(message);
  });

  it("WHEN it nests past the bound THEN the problem is at the bracket past it, and the scan does not overflow", () => {
    const p = jsonProblem(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expect(p).toMatchObject({ line: 1, column: JSON_MAX_DEPTH + 1 });
    expect(p!.message).toContain("nested deeper");
  });
});

describe("GIVEN a JSON file whose values are located (meta.json in the platform's layout)", () => {
  it("WHEN offsets are asked for THEN each value's offset is kept by its path, escaped member names decoded", () => {
    const text = '{\n  "a": [1, {"b\\u0021": "x"}],\n  "c": null\n}';
    const offsets = new Map<string, number>();
    expect(jsonProblem(text, offsets)).toBe(undefined);
    expect(offsets.get("")).toBe(0);
    expect(offsets.get("/a")).toBe(text.indexOf("["));
    expect(offsets.get("/a/0")).toBe(text.indexOf("1"));
    expect(offsets.get("/a/1/b!")).toBe(text.indexOf('"x"'));
    expect(offsets.get("/c")).toBe(text.indexOf("null"));
  });
});
