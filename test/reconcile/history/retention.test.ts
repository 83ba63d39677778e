/** Retention of the deployment history (pure): max_age drops old deployments but never the newest, folding them into the baseline. */
import { describe, expect, it } from "vitest";
import type { Deployment, HistoryIndex } from "../../../src/reconcile/history/history-model";
import { emptyHistory, retain, stateAfter } from "../../../src/reconcile/history/history-store";

const DAY = 86_400_000;

function deployment(id: string, daysAgo: number, now: Date, after: string): Deployment {
  return {
    id,
    time: new Date(now.getTime() - daysAgo * DAY).toISOString(),
    target: "default",
    actor: "t@h",
    operation: "apply",
    planDigest: id,
    ok: true,
    objects: [{ address: "udf.c/a", kind: "Udf", action: "update", after }],
  };
}

describe("GIVEN three deployments 40, 20 and 1 days old", () => {
  const now = new Date("2026-11-27T12:00:00Z");
  const index = (): HistoryIndex => ({
    ...emptyHistory("p", "default"),
    next: 4,
    deployments: [deployment("1", 40, now, "h1"), deployment("2", 20, now, "h2"), deployment("3", 1, now, "h3")],
    blobs: { h1: "1", h2: "2", h3: "3" },
  });

  it("WHEN max_age is 30d THEN the 40-day one is folded into the baseline, whose snapshot keeps its pack", () => {
    const i = index();
    expect(retain(i, { keep: 100, maxAgeMs: 30 * DAY }, now)).toEqual([]);
    expect(i.deployments.map((d) => d.id)).toEqual(["2", "3"]);
    expect(i.baseline).toEqual({ "udf.c/a": "h1" });
    expect(stateAfter(i, "2").get("udf.c/a")).toBe("h2");
  });

  it("WHEN max_age is 1m THEN every deployment but the newest goes", () => {
    const i = index();
    expect(retain(i, { keep: 100, maxAgeMs: 60_000 }, now)).toEqual(["1"]);
    expect(i.deployments.map((d) => d.id)).toEqual(["3"]);
    expect(Object.keys(i.blobs).sort()).toEqual(["h2", "h3"]);
  });
});
