/**
 * The base check of a kind's inputs, derived from its definition (`<kind>/definition.ts`): a strict
 * zod object with one entry per input, of the input's `type`, required or optional (nullish, or
 * nullable when required, with `check.nullable`), its `default`, and the message and bounds of its
 * `check`. A kind's `resource.ts` adds only what a definition cannot say, as hooks: a field's
 * special form (a cronjob's single minute number, an S3 URL stripped to a bucket name), and the
 * rules across fields that it checks after this one. Built once per kind, when its module loads.
 */
import { z } from "zod";
import { SvcError } from "../errors";
import type { CheckBound, FieldCheck, FieldDefinition, FieldType, KindDefinition } from "./kind-definition";

/**
 * A field's hook: takes the schema derived for the field's type and bounds, returns the one to use.
 * `ofType` derives the schema of another type with the field's message and bounds (a cronjob's
 * `minute` takes one number and checks it as the array it stands for).
 */
export type FieldHook = (derived: z.ZodType, ofType: (type: FieldType) => z.ZodType) => z.ZodType;

/** What a kind adds to its derived check, by input name. */
export interface CheckHooks {
  /** Called with the schema derived for the field, before it is made optional or given its default. */
  fields?: Readonly<Record<string, FieldHook>>;
}

/** The check of a kind's inputs; `T` is the checked (parsed) inputs (`CheckedInputs`, or as a hook changes them). */
export type DerivedCheck<T> = z.ZodType<T> & { readonly shape: Readonly<Record<string, z.ZodType>> };

/** `schema` with bound `b` applied by `apply`, with the bound's own message or else the field's; as it is without `b`. */
function bounded<S, T>(
  schema: S,
  b: CheckBound<T> | undefined,
  message: string,
  apply: (schema: S, value: T, error: { error: string }) => S,
): S {
  if (b === undefined) return schema;
  return typeof b === "object" && b !== null && "value" in b
    ? apply(schema, b.value, { error: b.message })
    : apply(schema, b, { error: message });
}

function numberSchema(type: "integer" | "number", c: FieldCheck | undefined, message: string): z.ZodType {
  let n = z.number({ error: message });
  if (type === "integer") n = n.int({ error: message });
  n = bounded(n, c?.minimum, message, (s, v, e) => s.min(v, e));
  return bounded(n, c?.maximum, message, (s, v, e) => s.max(v, e));
}

function stringSchema(c: FieldCheck | undefined, message: string): z.ZodType {
  if (c?.url) return z.url({ error: message });
  let s = z.string({ error: message });
  s = bounded(s, c?.minLength, message, (x, v, e) => x.min(v, e));
  s = bounded(s, c?.maxLength, message, (x, v, e) => x.max(v, e));
  return bounded(s, c?.pattern, message, (x, v, e) => x.regex(v, e));
}

/** The schema of a value of `type`; bounds apply to the strings and numbers within it (an array's items). */
function typeSchema(d: KindDefinition, type: FieldType, c: FieldCheck | undefined, message: string): z.ZodType {
  if (type === "string") return stringSchema(c, message);
  if (type === "integer" || type === "number") return numberSchema(type, c, message);
  if (type === "boolean") return z.boolean({ error: message });
  if (type === "any") return z.unknown();
  if ("enum" in type) return z.enum(type.enum as [string, ...string[]], { error: message });
  if ("array" in type) return z.array(typeSchema(d, type.array, c, message), { error: message });
  if ("map" in type) return z.record(z.string(), typeSchema(d, type.map, c, message), { error: message });
  if ("oneOf" in type) {
    const options = type.oneOf.map((t) => typeSchema(d, t, c, message));
    return z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]], { error: message });
  }
  const object = d.types?.[type.object];
  if (!object) throw new SvcError("kind_definition_invalid", `${d.kind} uses the undeclared type ${type.object}`);
  return z.strictObject(fieldsShape(d, object.properties));
}

/** One field's schema: its type with its bounds, the hook, then required, nullable, optional or defaulted. */
function fieldSchema(d: KindDefinition, name: string, f: FieldDefinition, hook?: FieldHook): z.ZodType {
  const c = f.check;
  const message = c?.message ?? `${name} is ${typeof f.type === "string" ? `a ${f.type}` : "a value of its type"}.`;
  let s = typeSchema(d, f.type, c, message);
  if (hook) s = hook(s, (type) => typeSchema(d, type, c, message));
  if (f.default !== undefined) return s.default(f.default as never);
  if (c?.emptyDefault) return s.default((typeof f.type === "object" && "array" in f.type ? [] : {}) as never);
  if (f.required) return c?.nullable ? s.nullable() : s;
  return c?.nullable ? s.nullish() : s.optional();
}

function fieldsShape(
  d: KindDefinition,
  fields: Readonly<Record<string, FieldDefinition>>,
  hooks: Readonly<Record<string, FieldHook>> = {},
): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, fieldSchema(d, name, f, hooks[name])]));
}

/**
 * The strict zod object checking a kind's inputs, derived from its definition. Throws when a hook
 * names no input of the definition (a renamed or removed field whose hook did not follow).
 */
export function definitionCheck<D extends KindDefinition, T = CheckedInputs<D>>(
  d: D,
  hooks: CheckHooks = {},
): DerivedCheck<T> {
  const unknown = Object.keys(hooks.fields ?? {}).filter((name) => !(name in d.inputs));
  if (unknown.length)
    throw new SvcError(
      "kind_definition_invalid",
      `${d.kind}: check hooks for inputs it does not declare: ${unknown.join(", ")}`,
    );
  return z.strictObject(fieldsShape(d, d.inputs, hooks.fields)) as unknown as DerivedCheck<T>;
}

/** The TypeScript type of a value of a definition's field type; `Types` are the kind's named object types. */
export type ValueOf<T, Types> = T extends "string"
  ? string
  : T extends "integer" | "number"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "any"
        ? unknown
        : T extends { enum: readonly (infer E)[] }
          ? E
          : T extends { array: infer I }
            ? ValueOf<I, Types>[]
            : T extends { map: infer V }
              ? Record<string, ValueOf<V, Types>>
              : T extends { oneOf: readonly (infer O)[] }
                ? ValueOf<O, Types>
                : T extends { object: infer N }
                  ? string extends N
                    ? Record<string, unknown>
                    : N extends keyof Types
                      ? Types[N] extends { properties: infer P }
                        ? CheckedFields<P, Types>
                        : never
                      : never
                  : never;

/** A field the check always gives a value: required, or given its default when absent. */
type Given<F> = F extends
  | { required: true }
  | { default: string | number | boolean }
  | { check: { emptyDefault: true } }
  ? true
  : false;

type FieldValue<F, Types> = F extends { type: infer T }
  ? ValueOf<T, Types> | (F extends { check: { nullable: true } } ? null : never)
  : never;

/** The checked object of fields `P`: optional where the check gives no value. */
export type CheckedFields<P, Types> = {
  -readonly [K in keyof P as Given<P[K]> extends true ? K : never]: FieldValue<P[K], Types>;
} & {
  -readonly [K in keyof P as Given<P[K]> extends true ? never : K]?: FieldValue<P[K], Types>;
};

/**
 * The inputs as the derived check of definition `D` gives them (before the kind's hooks change a
 * field's form): `D` is the definition's own type (`typeof cronjobDefinition`), declared with
 * `satisfies KindDefinition` so that its literal types are kept.
 */
export type CheckedInputs<D extends KindDefinition> = string extends keyof D["inputs"]
  ? Record<string, unknown>
  : CheckedFields<D["inputs"], D["types"]>;
