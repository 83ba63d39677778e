/**
 * The reconciler's engine knows kinds only through their traits (`src/kinds/<kind>/resource.ts`): its
 * files name no kind, no address prefix and no reference field, so adding a kind touches none of
 * them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KINDS, RECONCILE_TRAITS } from "../../../src/kinds/registry";

const ENGINE = [
  "plan/index.ts",
  "apply/index.ts",
  "observe/index.ts",
  "plan/unmanaged.ts",
  "plan/kind-inputs.ts",
  "apply/inventory-writer.ts",
  "plan/cascade.ts",
  "commands/destroy.ts",
  "plan/targeting.ts",
  "plan/cross-target.ts",
];
const dir = join(__dirname, "../../../src/reconcile");

const kindNames = Object.keys(KINDS);
const traits = Object.values(RECONCILE_TRAITS);
const prefixes = traits.map((t) => t.addressPrefix);
const referenceFields = traits.flatMap((t) => (t.references ?? []).map((r) => r.field));

/** Every line of `text` holding one of `words` as a whole word (or, for prefixes, an address `prefix.`). */
function hits(text: string, pattern: RegExp): string[] {
  return text.split("\n").flatMap((line, i) => (pattern.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

describe("GIVEN the reconciler's engine files", () => {
  it.each(ENGINE)("THEN %s names no kind, address prefix or reference field", (file) => {
    const text = readFileSync(join(dir, file), "utf8");
    expect(hits(text, new RegExp(`\\b(${kindNames.join("|")})\\b`))).toEqual([]);
    expect(hits(text, new RegExp(`["'\`](${prefixes.join("|")})\\.`))).toEqual([]);
    expect(hits(text, new RegExp(`\\b(${[...new Set(referenceFields)].join("|")})\\b`))).toEqual([]);
  });

  it("THEN every declarable kind has traits with a distinct phase and address prefix", () => {
    expect(new Set(traits.map((t) => t.phase)).size).toBe(traits.length);
    expect(new Set(prefixes).size).toBe(traits.length);
    for (const kind of Object.keys(RECONCILE_TRAITS)) expect(kindNames).toContain(kind);
  });
});
