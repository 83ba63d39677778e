import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/canonical-json";
import { hashedSnapshot, packText } from "../../../src/reconcile/history/history-store";
import type { Snapshot } from "../../../src/reconcile/history/history-model";
import { PlanDigest, planDigest } from "../../../src/reconcile/history/record";
import type { Plan } from "../../../src/reconcile/plan/plan-model";

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

describe("the plan's digest made a slice at a time", () => {
  const action = (i: number) => ({
    address: `udf.c/u${i}`,
    kind: "Udf",
    action: "create",
    fields: [{ field: "code", action: "update", secret: false, to: `def udf(): return ${i}\n` }],
    notes: [],
    references: ["canvas.c"],
  });
  it("is planDigest's, whether finished at once or by its slices, with or without actions", async () => {
    for (const n of [0, 1, 130]) {
      const plan = {
        project: "p",
        target: "t",
        actions: Array.from({ length: n }, (_, i) => action(i)),
      } as unknown as Plan;
      expect(new PlanDigest(plan).value()).toBe(planDigest(plan));
      const sliced = new PlanDigest(plan, 0);
      await new Promise((r) => setTimeout(r, 50));
      expect(sliced.value()).toBe(planDigest(plan));
    }
    const bare = { actions: [action(1)] } as unknown as Plan;
    expect(new PlanDigest(bare).value()).toBe(planDigest(bare));
  });
});
