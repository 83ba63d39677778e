/**
 * The check of every kind's inputs is derived from its definition (`src/kinds/definition-check.ts`):
 * what each kind's `check` accepts and refuses follows the definition's fields, their types,
 * required or default, bounds and messages, so a field added to a definition is checked with no
 * other change (and a hand-written check that forgot it would fail here).
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { checkWith } from "../../src/kinds/check";
import { definitionCheck } from "../../src/kinds/definition-check";
import { KIND_DEFINITIONS } from "../../src/kinds/definitions";
import type { CheckBound, FieldDefinition, FieldType, KindDefinition } from "../../src/kinds/kind-definition";
import { KINDS } from "../../src/kinds/registry";
import { notebookDefinition } from "../fixtures/toy-kind/definition";

const kindOf = (d: KindDefinition) => {
  const kind = KINDS[d.kind];
  if (!kind) throw new Error(`no kind ${d.kind}`);
  return kind;
};

/** A value that is not of `type` (undefined for "any": every value is one). */
function wrongValue(type: FieldType): unknown {
  if (type === "any") return undefined;
  if (type === "string") return 42;
  if (type === "integer" || type === "number" || type === "boolean") return "not-a-value";
  if ("enum" in type) return "none-of-these";
  if ("oneOf" in type) return type.oneOf.includes("boolean") ? 42 : true;
  return "not-a-list-or-object";
}

const boundValue = <T>(b: CheckBound<T>): T => (typeof b === "object" && b !== null && "value" in b ? b.value : b);
const messageOf = <T>(b: CheckBound<T>, f: FieldDefinition) =>
  typeof b === "object" && b !== null && "message" in b ? b.message : (f.check?.message ?? "");

/** Each declared bound of a field, with a value just outside it and the message expected. */
function boundsBroken(f: FieldDefinition): { value: unknown; message: string; bound: string }[] {
  const c = f.check;
  if (!c) return [];
  const inList = (v: number) => (typeof f.type === "object" && "array" in f.type ? [v] : v);
  const out: { value: unknown; message: string; bound: string }[] = [];
  if (c.minLength !== undefined && boundValue(c.minLength) > 0)
    out.push({
      value: "x".repeat(boundValue(c.minLength) - 1),
      message: messageOf(c.minLength, f),
      bound: "minLength",
    });
  if (c.maxLength !== undefined)
    out.push({
      value: "x".repeat(boundValue(c.maxLength) + 1),
      message: messageOf(c.maxLength, f),
      bound: "maxLength",
    });
  if (c.minimum !== undefined)
    out.push({ value: inList(boundValue(c.minimum) - 1), message: messageOf(c.minimum, f), bound: "minimum" });
  if (c.maximum !== undefined)
    out.push({ value: inList(boundValue(c.maximum) + 1), message: messageOf(c.maximum, f), bound: "maximum" });
  if (c.pattern !== undefined) out.push({ value: "?", message: messageOf(c.pattern, f), bound: "pattern" });
  return out;
}

const reasonsFor = (raw: unknown, d: KindDefinition, field: string) =>
  kindOf(d)
    .check(raw)
    .failures.filter((f) => f.property === field || f.property.startsWith(`${field}[`))
    .map((f) => f.reason);

describe.each(KIND_DEFINITIONS.map((d) => [d.kind, d] as const))("GIVEN the %s kind's definition", (_, d) => {
  const inputs = Object.entries(d.inputs);

  it("THEN its check accepts exactly the definition's inputs, and names them for an unknown one", () => {
    const failures = kindOf(d).check({ notAnInput: 1 }).failures;
    expect(failures.find((f) => f.property === "notAnInput")?.reason).toBe(
      `Unknown input "notAnInput". Expected one of ${Object.keys(d.inputs).sort().join(", ")}.`,
    );
  });

  it("THEN a required input left out is reported with its declared message", () => {
    const required = inputs.filter(([, f]) => f.required && f.default === undefined);
    expect(required.length).toBeGreaterThan(0);
    for (const [name, f] of required) {
      expect(reasonsFor({}, d, name)).toContain(`${name} is required: ${f.check?.message}`);
    }
  });

  it("THEN an input of the wrong type is refused with its declared message", () => {
    for (const [name, f] of inputs) {
      const wrong = wrongValue(f.type);
      if (wrong === undefined) continue;
      const reasons = reasonsFor({ [name]: wrong }, d, name);
      expect(reasons.length, `${d.kind}.${name} = ${JSON.stringify(wrong)}`).toBeGreaterThan(0);
      if (f.check) expect(reasons.join("\n"), `${d.kind}.${name}`).toContain(f.check.message);
    }
  });

  it("THEN each declared bound refuses a value just outside it, with its message", () => {
    for (const [name, f] of inputs) {
      for (const broken of boundsBroken(f)) {
        const reasons = reasonsFor({ [name]: broken.value }, d, name);
        expect(reasons.join("\n"), `${d.kind}.${name} ${broken.bound}`).toContain(broken.message);
      }
    }
  });

  it("THEN the derived check takes each declared default for an absent input", () => {
    const shape = definitionCheck(d).shape;
    for (const [name, f] of inputs) {
      const absent = shape[name]!.safeParse(undefined);
      if (f.default !== undefined) expect(absent.data, `${d.kind}.${name}`).toEqual(f.default);
      else if (f.check?.emptyDefault)
        expect(absent.data).toEqual(typeof f.type === "object" && "array" in f.type ? [] : {});
      else if (f.required) expect(absent.success, `${d.kind}.${name}`).toBe(false);
      else expect(absent).toEqual({ success: true, data: undefined });
    }
  });

  it("THEN every input a value can be wrong for declares the message its check shows", () => {
    const silent = inputs.filter(([, f]) => f.type !== "any" && !f.check?.message).map(([name]) => name);
    expect(silent).toEqual([]);
  });
});

describe("GIVEN a field added to a definition", () => {
  const withColour: KindDefinition = {
    ...notebookDefinition,
    inputs: {
      ...notebookDefinition.inputs,
      colour: {
        type: { enum: ["red", "blue"], name: "Colour" },
        description: "The notebook's colour.",
        default: "blue",
        check: { message: 'colour is "red" or "blue".' },
      },
      pages: {
        type: "integer",
        description: "How many pages.",
        required: true,
        check: { message: "pages is a whole number.", minimum: { value: 1, message: "pages is at least 1." } },
      },
    },
  };
  const check = (d: KindDefinition, raw: unknown) => checkWith(definitionCheck(d), raw);

  it("THEN the check accepts it, with its default, and refuses it by its declared type, bounds and message", () => {
    expect(check(withColour, { title: "t", pages: 3 })).toEqual({
      inputs: { title: "t", pinned: false, colour: "blue", pages: 3 },
      failures: [],
    });
    expect(check(withColour, { title: "t", pages: 3, colour: "green" }).failures).toEqual([
      { property: "colour", reason: 'Invalid colour "green". colour is "red" or "blue".' },
    ]);
    expect(check(withColour, { title: "t" }).failures).toEqual([
      { property: "pages", reason: "pages is required: pages is a whole number." },
    ]);
    expect(check(withColour, { title: "t", pages: 0 }).failures).toEqual([
      { property: "pages", reason: "Invalid pages 0. pages is at least 1." },
    ]);
  });

  it("THEN the same input is unknown to the check of the definition without it", () => {
    expect(check(notebookDefinition, { title: "t", colour: "red" }).failures).toEqual([
      { property: "colour", reason: 'Unknown input "colour". Expected one of apiKey, pinned, title.' },
    ]);
  });

  it("THEN a hook for an input the definition does not declare fails when the check is built", () => {
    expect(() => definitionCheck(notebookDefinition, { fields: { colour: (s: z.ZodType) => s } })).toThrow(
      /check hooks for inputs it does not declare: colour/,
    );
  });
});
