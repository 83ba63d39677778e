/**
 * `checkWith` runs zod's compiled fast path for a schema after its COMPILE_AFTER-th use (a repository
 * of thousands of UDFs checks each against the same schema): what it accepts, gives back and
 * refuses, with every message, is the same before and after.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { COMPILE_AFTER, checkWith } from "../../src/kinds/check";
import { UdfArgs } from "../../src/kinds/udf/resource";

const udf = (i: number) => ({
  slug: `u${i}`,
  code: `@fused.udf\ndef udf(n: int = ${i}):\n    return n * 2\n`,
  entrypoint: "udf",
  headers: [{ moduleName: "utils", code: "X = 1\n" }],
  metadata: { color: "#ffd966", nested: { list: [1, "two", null] } },
  createSharedToken: false,
  canvasId: "(known after apply)",
});

/** Inputs the check accepts and refuses: wrong types, an unknown key, a missing field, a bad header. */
const CASES: unknown[] = [
  udf(1),
  { ...udf(2), entrypoint: undefined },
  { ...udf(3), slug: 5 },
  { ...udf(4), extra: true },
  { ...udf(5), slug: undefined },
  { ...udf(6), headers: [{ moduleName: 7 }] },
  { ...udf(7), metadata: "not an object" },
  null,
  "text",
];

describe("GIVEN the check of a kind's inputs used more than COMPILE_AFTER times", () => {
  it("THEN each input gives the same inputs or the same failures before and after zod's compiled fast path takes over", () => {
    // A schema of its own, so that no other test's uses count.
    const schema = z.strictObject({ ...UdfArgs.shape });
    const before = CASES.map((c) => checkWith(schema, c));
    for (let i = 0; i < COMPILE_AFTER; i++) expect(checkWith(schema, udf(100 + i)).failures).toEqual([]);
    const after = CASES.map((c) => checkWith(schema, c));
    expect(after).toEqual(before);
    expect(before[0]!.failures).toEqual([]);
    expect(before.slice(2).every((r) => r.failures.length > 0)).toBe(true);
    expect(after[2]!.failures.map((f) => f.property)).toEqual(["slug"]);
  });
});
