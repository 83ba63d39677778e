/**
 * The Pulumi YAML and Python example programs use the provider plugin's package schema: every
 * resource type and property they write exists there, with the type they give it. Each declares a
 * canvas, two UDFs read from files, a share and a cronjob.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = join(__dirname, "../..");
const SCHEMA = join(ROOT, "schemas/pulumi/schema.json");
const example = (dir: string, file: string) => readFileSync(join(ROOT, "examples", dir, file), "utf8");

type Spec = {
  type?: string;
  $ref?: string;
  items?: Spec;
  additionalProperties?: Spec;
  oneOf?: Spec[];
  properties?: Record<string, Spec>;
  enum?: unknown[];
};
/** What a value in a program is: a primitive, a list of values, an object of named values, or anything (an output of unknown shape). */
type Value =
  | { kind: "string" | "number" | "boolean" | "any" }
  | { kind: "array"; items: Value[] }
  | { kind: "object"; fields: Record<string, Value> };

interface Schema {
  resources: Record<string, { inputProperties?: Record<string, Spec>; properties?: Record<string, Spec> }>;
  types?: Record<string, Spec>;
}

/** A `$ref` to one of the package's types, followed. */
function resolve(schema: Schema, spec: Spec): Spec {
  if (!spec.$ref) return spec;
  const name = decodeURIComponent(spec.$ref.replace(/^#\/types\//, ""));
  const t = schema.types?.[name];
  if (!t) throw new Error(`unresolved type reference ${spec.$ref}`);
  return t;
}

/** Problems of `value` at `path` against `spec` (empty when it fits). */
function fits(schema: Schema, spec: Spec, value: Value, path: string): string[] {
  if (value.kind === "any") return [];
  if (spec.$ref === "pulumi.json#/Any") return [];
  const s = resolve(schema, spec);
  if (s.oneOf)
    return s.oneOf.some((o) => fits(schema, o, value, path).length === 0)
      ? []
      : [`${path}: ${value.kind} fits none of its types`];
  const type = s.type ?? (s.properties ? "object" : undefined);
  switch (value.kind) {
    case "string":
    case "boolean":
      return type === value.kind ? [] : [`${path}: a ${value.kind}, but the schema says ${type}`];
    case "number":
      return type === "number" || type === "integer" ? [] : [`${path}: a number, but the schema says ${type}`];
    case "array":
      if (type !== "array" || !s.items) return [`${path}: a list, but the schema says ${type}`];
      return value.items.flatMap((v, i) => fits(schema, s.items!, v, `${path}[${i}]`));
    case "object":
      if (type !== "object") return [`${path}: an object, but the schema says ${type}`];
      if (s.properties) {
        return Object.entries(value.fields).flatMap(([k, v]) =>
          s.properties![k] ? fits(schema, s.properties![k]!, v, `${path}.${k}`) : [`${path}.${k}: no such property`],
        );
      }
      return s.additionalProperties
        ? Object.entries(value.fields).flatMap(([k, v]) => fits(schema, s.additionalProperties!, v, `${path}.${k}`))
        : [];
  }
}

/** Every resource of a program: its type, and each input it sets with its value. */
interface Declared {
  type: string;
  inputs: Record<string, Value>;
}

function check(schema: Schema, declared: Declared[]): string[] {
  return declared.flatMap((d) => {
    const r = schema.resources[d.type];
    if (!r) return [`${d.type}: no such resource type`];
    return Object.entries(d.inputs).flatMap(([k, v]) => {
      const spec = r.inputProperties?.[k];
      return spec ? fits(schema, spec, v, `${d.type}.${k}`) : [`${d.type}.${k}: no such input`];
    });
  });
}

// Pulumi YAML: literals, `${resource.property}` and `${variable}` interpolations.
function yamlProgram(schema: Schema): Declared[] {
  const doc = parse(example("pulumi-yaml", "Pulumi.yaml"));
  const variables: Record<string, Value> = {};
  for (const [name, v] of Object.entries(doc.variables ?? {}))
    variables[name] =
      (v as Record<string, unknown>)["fn::readFile"] !== undefined ? { kind: "string" } : { kind: "any" };
  for (const [name, c] of Object.entries(doc.config ?? {})) variables[name] = { kind: (c as { type: "string" }).type };
  const typeOf = (name: string) => doc.resources[name]?.type as string;
  const value = (v: unknown): Value => {
    if (typeof v === "string") {
      const ref = /^\$\{([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?\}$/.exec(v);
      if (!ref) return { kind: "string" };
      const [, name, prop] = ref;
      if (!prop) return variables[name!] ?? { kind: "any" };
      if (prop === "id") return { kind: "string" };
      const out = schema.resources[typeOf(name!)]?.properties?.[prop];
      if (!out) throw new Error(`Pulumi.yaml: ${v} names no output of ${typeOf(name!)}`);
      const t = resolve(schema, out).type;
      return t === "string" || t === "boolean" || t === "number"
        ? { kind: t }
        : t === "integer"
          ? { kind: "number" }
          : { kind: "any" };
    }
    if (typeof v === "number" || typeof v === "boolean") return { kind: typeof v as "number" | "boolean" };
    if (Array.isArray(v)) return { kind: "array", items: v.map(value) };
    if (v && typeof v === "object")
      return { kind: "object", fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)])) };
    return { kind: "any" };
  };
  return Object.values(doc.resources as Record<string, { type: string; properties: Record<string, unknown> }>).map(
    (r) => ({
      type: r.type,
      inputs: Object.fromEntries(Object.entries(r.properties ?? {}).map(([k, v]) => [k, value(v)])),
    }),
  );
}

// Python: `svc.Kind("name", key=value, ...)` calls; keyword arguments in snake_case, as the generated SDK names them.
const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Splits `text` at top-level commas (outside brackets and strings). */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let cur = "";
  for (const ch of text) {
    if (quote) {
      cur += ch;
      if (ch === quote) quote = "";
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    if ("([{".includes(ch)) depth++;
    if (")]}".includes(ch)) depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur.trim());
  return parts;
}

function pythonProgram(schema: Schema): Declared[] {
  const text = example("pulumi-python", "__main__.py");
  const vars: Record<string, string> = {};
  const out: Declared[] = [];
  for (const m of text.matchAll(/^(\w+) = svc\.(\w+)\(/gm)) {
    let depth = 1;
    let i = m.index! + m[0].length;
    const start = i;
    for (; depth > 0; i++) depth += text[i] === "(" ? 1 : text[i] === ")" ? -1 : 0;
    const type = `svc:index:${m[2]}`;
    vars[m[1]!] = type;
    const value = (v: string): Value => {
      if (/^["']/.test(v) || /^source\(/.test(v) || /^config\.get\(/.test(v)) return { kind: "string" };
      if (v === "True" || v === "False") return { kind: "boolean" };
      if (/^-?\d/.test(v)) return { kind: "number" };
      if (v.startsWith("[")) return { kind: "array", items: topLevel(v.slice(1, -1)).map(value) };
      if (v.startsWith("{")) {
        const fields = topLevel(v.slice(1, -1)).map((f) => /^["']([^"']+)["']\s*:\s*([\s\S]+)$/.exec(f)!);
        // Dicts for the SDK's input types use its snake_case names; free-form maps keep their keys.
        return {
          kind: "object",
          fields: Object.fromEntries(fields.map(([, k, x]) => [k!.includes(":") ? k! : camel(k!), value(x!)])),
        };
      }
      const ref = /^(\w+)\.(\w+)$/.exec(v);
      if (ref && vars[ref[1]!]) {
        if (ref[2] === "id") return { kind: "string" };
        const spec = schema.resources[vars[ref[1]!]!]?.properties?.[camel(ref[2]!)];
        if (!spec) throw new Error(`__main__.py: ${v} names no output of ${vars[ref[1]!]}`);
        const t = resolve(schema, spec).type;
        return t === "string" || t === "boolean" || t === "number" ? { kind: t } : { kind: "any" };
      }
      return { kind: "any" };
    };
    const args = topLevel(text.slice(start, i - 1))
      .slice(1)
      .filter((a) => !a.startsWith("opts="));
    out.push({
      type,
      inputs: Object.fromEntries(
        args.map((a) => /^(\w+)=([\s\S]+)$/.exec(a)!).map(([, k, v]) => [camel(k!), value(v!)]),
      ),
    });
  }
  return out;
}

describe("the Pulumi YAML and Python examples", () => {
  it("each declare a canvas, two UDFs read from files, a share and a cronjob", () => {
    const yaml = parse(example("pulumi-yaml", "Pulumi.yaml"));
    const yamlTypes = Object.values(yaml.resources as Record<string, { type: string }>)
      .map((r) => r.type)
      .sort();
    const pyTypes = [...example("pulumi-python", "__main__.py").matchAll(/= svc\.(\w+)\(/g)]
      .map((m) => `svc:index:${m[1]}`)
      .sort();
    const wanted = ["svc:index:Canvas", "svc:index:CanvasShare", "svc:index:Cronjob", "svc:index:Udf", "svc:index:Udf"];
    expect(yamlTypes).toEqual(wanted);
    expect(pyTypes).toEqual(wanted);
    // The UDFs' code is read from the .py files beside each program.
    expect(Object.values(yaml.variables).map((v: any) => v["fn::readFile"])).toEqual([
      "./udfs/loader.py",
      "./udfs/utils.py",
      "./udfs/stats.py",
    ]);
    for (const f of ["loader.py", "utils.py", "stats.py"]) {
      expect(existsSync(join(ROOT, "examples/pulumi-yaml/udfs", f))).toBe(true);
      expect(existsSync(join(ROOT, "examples/pulumi-python/udfs", f))).toBe(true);
    }
  });

  it("use only types and properties of the package schema, with the schema's types", () => {
    const schema = JSON.parse(readFileSync(SCHEMA, "utf8")) as Schema;
    expect(check(schema, yamlProgram(schema))).toEqual([]);
    expect(check(schema, pythonProgram(schema))).toEqual([]);
    // AND the check can fail: a misspelt property and a wrong type are found
    expect(
      check(schema, [
        { type: "svc:index:Canvas", inputs: { nam: { kind: "string" }, allowPublicRead: { kind: "string" } } },
      ]),
    ).toEqual([
      "svc:index:Canvas.nam: no such input",
      "svc:index:Canvas.allowPublicRead: a string, but the schema says boolean",
    ]);
  });
});
