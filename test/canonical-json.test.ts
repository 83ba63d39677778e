import { describe, expect, it } from "vitest";
import { canonicalJson, sortedJsonText, sortKeysDeep } from "../src/canonical-json";

class Point {
  constructor(
    readonly y: number,
    readonly x: number,
  ) {}
}

const CASES: Record<string, unknown> = {
  "keys out of order at every level": { b: 1, a: { d: [{ z: 1, y: 2 }], c: null } },
  "keys in order already": { a: 1, b: { c: "x", d: [1, 2, { e: true }] } },
  "undefined properties, in order and not": { a: undefined, b: 1, c: { e: undefined, d: 2 } },
  "undefined and holes in arrays": [1, undefined, , { b: 2, a: 1 }],
  "integer-like keys": { "10": "a", "2": "b", x: { "1": 1, "0": 0 } },
  "a Date, a Map, a class instance and a boxed string": {
    when: new Date(0),
    map: new Map([["a", 1]]),
    point: new Point(2, 1),
    boxed: new String("ab"),
  },
  "an object with no prototype": Object.assign(Object.create(null), { b: 1, a: 2 }),
  "a toJSON method": { b: { toJSON: () => ({ z: 1, y: 2 }) }, a: 1 },
  "functions and symbols": { b: () => 1, a: Symbol("s"), c: [() => 1] },
  "an inventory": {
    version: 1,
    objects: {
      "udf.c/u2": { kind: "Udf", id: "2", kept: { createSharedToken: false } },
      "canvas.c": { appliedAt: "t", id: "1", kind: "Canvas" },
    },
  },
  scalars: "text",
};

describe("canonical JSON", () => {
  for (const [name, value] of Object.entries(CASES)) {
    it(`GIVEN ${name} WHEN written THEN the text is that of the sorted copy, and the value is unchanged`, () => {
      const before = JSON.stringify(value);
      expect(canonicalJson(value)).toBe(JSON.stringify(sortKeysDeep(value)));
      expect(sortedJsonText(value, 2)).toBe(JSON.stringify(sortKeysDeep(value), null, 2));
      expect(JSON.stringify(value)).toBe(before);
    });
  }

  it("GIVEN two objects with the same content in another key order WHEN written THEN the texts are equal", () => {
    expect(canonicalJson({ a: 1, b: [{ c: 1, d: 2 }] })).toBe(canonicalJson({ b: [{ d: 2, c: 1 }], a: 1 }));
  });
});
