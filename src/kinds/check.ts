/** Turns zod validation into Pulumi-style check failures: every failure, with path and a clear reason. */
import { z } from "zod";
import type { CheckFailure, CheckResult } from "./kind";

/**
 * Parses of one schema after which {@link checkWith} runs zod's compiled fast path
 * (`z.compile`): generated code for a parse that passes (a quarter of the runtime parser's time on
 * 10,000 UDFs), the runtime parser for one that fails (so every failure and message is the
 * runtime's). Generating it costs a few milliseconds a schema, which a command checking a handful
 * of objects would only lose, so it waits for the schema's many-th use.
 */
export const COMPILE_AFTER = 256;

/** Each schema's uses so far, or its compiled clone once it has one. */
const parsers = new WeakMap<z.ZodType, number | z.ZodType>();

/** The parser to run for `schema`: itself, until its {@link COMPILE_AFTER}th use. */
function parserOf<S extends z.ZodType>(schema: S): S {
  const seen = parsers.get(schema) ?? 0;
  if (typeof seen !== "number") return seen as S;
  if (seen < COMPILE_AFTER) {
    parsers.set(schema, seen + 1);
    return schema;
  }
  const compiled = z.compile(schema);
  parsers.set(schema, compiled);
  return compiled;
}

/** `headers[0].moduleName` from a zod path. */
export function propertyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || "(inputs)";
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/**
 * Validates `raw` with `schema`. Each failure names the property, the value found (secret fields
 * excepted) and the expected form, taken from the schema's messages.
 */
export function checkWith<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  secretFields: readonly string[] = [],
): CheckResult<z.infer<S>> {
  const r = parserOf(schema).safeParse(raw);
  if (r.success) return { inputs: r.data, failures: [] };
  const failures: CheckFailure[] = r.error.issues.flatMap((i): CheckFailure[] => {
    if (i.code === "unrecognized_keys") {
      const known = knownKeys(schema, i.path);
      return i.keys.map((k) => ({
        property: propertyPath([...i.path, k]),
        reason: `Unknown input "${k}".${known.length ? ` Expected one of ${known.join(", ")}.` : ""}`,
      }));
    }
    const property = propertyPath(i.path);
    const found = valueAt(raw, i.path);
    const secret = secretFields.includes(String(i.path[0]));
    if (found === undefined && i.code === "invalid_type")
      return [{ property, reason: `${property} is required: ${expectation(i.message)}` }];
    const foundText = secret ? "a secret value" : show(found);
    return [{ property, reason: `Invalid ${property} ${foundText}. ${i.message}` }];
  });
  return { inputs: (raw ?? {}) as z.infer<S>, failures };
}

/** The keys an object schema accepts at `path` (top level only; nested paths give none). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const shape = path.length === 0 ? (schema as unknown as { shape?: Record<string, unknown> }).shape : undefined;
  return shape ? Object.keys(shape).sort() : [];
}

function expectation(message: string): string {
  return message.startsWith("Invalid input") ? "a value is expected." : message;
}

/** Combines failures of several checks. */
export function mergeFailures(...lists: CheckFailure[][]): CheckFailure[] {
  return lists.flat();
}
