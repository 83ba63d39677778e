import { describe, expect, it } from "vitest";
import { toJson } from "../../../src/reconcile/render/json";
import { planDocumentErrors } from "../../helpers/saved-plan";
import { bigPlan, emptyPlan, expectNoSecrets, sampleDrift, samplePlan, sampleReport } from "./fixtures";

describe("the JSON form of plans and reports", () => {
  it("sorts keys at every depth, indents by two spaces and ends with a line break", () => {
    const out = toJson(sampleReport(true));
    expect(out.endsWith("}\n")).toBe(true);
    expect(out.split("\n")[1]).toBe('  "counts": {');
    const keys = Object.keys(JSON.parse(out));
    expect(keys).toEqual([...keys].sort());
    const firstResult = JSON.parse(out).results[0];
    expect(Object.keys(firstResult)).toEqual(["action", "address", "id", "kind", "status"]);
  });

  it("gives equal bytes for equal documents built in a different key order", () => {
    const a = samplePlan();
    const b = Object.fromEntries(Object.entries(samplePlan()).reverse()) as typeof a;
    b.actions[3].fields[2].to = { tiles: [1, 2, 3], layout: "grid" };
    expect(toJson(b)).toBe(toJson(a));
  });

  it("keeps the data: parsing it gives the plan back, except secret values", () => {
    const plan = samplePlan();
    const parsed = JSON.parse(toJson(plan));
    expect(parsed.summary).toEqual(plan.summary);
    expect(parsed.actions[3].fields[0]).toEqual(plan.actions[3].fields[0]);
    expect(parsed.actions[0].fields[0]).toEqual({
      action: "update",
      field: "value",
      fromFingerprint: "hmac-sha256:0a1b2c3d4e5f",
      secret: true,
      toFingerprint: "hmac-sha256:9f8e7d6c5b4a",
    });
  });

  it("drops the from/to of secret fields so no secret value leaves the process", () => {
    expectNoSecrets(toJson(samplePlan()));
    expectNoSecrets(toJson(sampleDrift()));
  });

  it("gives plans that validate against the published schema (schemas/plan.schema.json), partial ones included", () => {
    for (const plan of [
      samplePlan(),
      emptyPlan(),
      bigPlan(3),
      { ...samplePlan(), partial: { only: ["udf.sales/*"], replace: ["share.sales"] } },
    ]) {
      expect(planDocumentErrors(JSON.parse(toJson(plan)))).toEqual([]);
    }
    expect(planDocumentErrors({ ...emptyPlan(), partial: { only: [], replace: [] } })).toEqual([
      "/partial/only must NOT have fewer than 1 items",
    ]);
  });
});
