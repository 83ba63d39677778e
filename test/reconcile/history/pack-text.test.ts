import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/canonical-json";
import { hashedSnapshot, packText } from "../../../src/reconcile/history/history-store";
import type { Snapshot } from "../../../src/reconcile/history/history-model";

const snapshot = (i: number): Snapshot => ({
  kind: "Udf",
  inputs: { slug: `u${i}`, code: `def udf():\n    return "${i}\\u00e9"\n`, metadata: { z: 1, a: [i, { y: 2, b: 1 }] } },
  refs: { canvas: "sales" },
  options: {},
});

describe("a history pack's text", () => {
  it("is the canonical JSON of its snapshots by hash, whether put together from their texts or serialized again", () => {
    const hashed = Array.from({ length: 20 }, (_, i) => hashedSnapshot(snapshot(i)));
    const fresh = new Map(hashed.map((h) => [h.hash, h.snapshot]));
    const texts = new Map(hashed.map((h) => [h.hash, h.text]));
    const expected = canonicalJson(Object.fromEntries(fresh));
    expect(packText(fresh, texts)).toBe(expected);
    expect(packText(fresh)).toBe(expected);
    // One text missing: serialized again, the same text.
    texts.delete(hashed[3]!.hash);
    expect(packText(fresh, texts)).toBe(expected);
  });
});
