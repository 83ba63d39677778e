/**
 * The Pulumi argument interfaces (`<Kind>Args`, and `<Type>Args` for a kind's named object types),
 * generated from the kinds' definitions into `src/provider/arguments.ts`: names, required ones,
 * types, and TSDoc with `@default` and `@example`, so a field is described once. Pure.
 */
import { KIND_DEFINITIONS } from "../definitions";
import type { FieldDefinition, FieldType, KindDefinition } from "../kind-definition";

/** The path of the generated file in the repository. */
export const PULUMI_ARGUMENTS_FILE = "src/provider/arguments.ts";

const WIDTH = 100;

/** A field's type as a Pulumi argument (inside `pulumi.Input<...>`). */
export function typeText(t: FieldType): string {
  if (t === "any") return "unknown";
  if (t === "integer" || t === "number") return "number";
  if (typeof t === "string") return t;
  if ("enum" in t) return t.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("array" in t) {
    const item = t.array;
    return typeof item === "object" && "object" in item ? `pulumi.Input<${typeText(item)}>[]` : `${typeText(item)}[]`;
  }
  if ("map" in t) return `Record<string, ${typeText(t.map)}>`;
  if ("object" in t) return `${t.object}Args`;
  return t.oneOf.map(typeText).join(" | ");
}

/** `text` as TSDoc lines under `indent`, wrapped at words. */
export function docLines(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + 3 + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${indent} * ${l}`);
}

function member(name: string, f: FieldDefinition): string[] {
  const indent = "  ";
  const defaultText = f.defaultDoc ?? (f.default === undefined ? undefined : JSON.stringify(f.default));
  const tags = [
    ...(defaultText === undefined ? [] : [`${indent} * @default ${defaultText}`]),
    ...(f.example === undefined ? [] : [`${indent} * @example ${f.example}`]),
  ];
  return [
    `${indent}/**`,
    ...docLines(f.description, indent),
    ...tags,
    `${indent} */`,
    `${indent}${name}${f.required ? "" : "?"}: pulumi.Input<${typeText(f.type)}>;`,
  ];
}

function argsInterface(name: string, fields: Record<string, FieldDefinition>, description?: string): string[] {
  return [
    ...(description === undefined ? [] : ["/**", ...docLines(description, ""), " */"]),
    `export interface ${name}Args {`,
    ...Object.entries(fields).flatMap(([n, f]) => member(n, f)),
    "}",
  ];
}

function kindInterfaces(d: KindDefinition): string[] {
  return [
    ...Object.entries(d.types ?? {}).flatMap(([name, t]) => [...argsInterface(name, t.properties, t.description), ""]),
    ...argsInterface(d.kind, d.inputs),
  ];
}

/** The text of `src/provider/arguments.ts`. */
export function pulumiArgumentsText(definitions: readonly KindDefinition[] = KIND_DEFINITIONS): string {
  const head = [
    "/**",
    " * The Pulumi argument interfaces of the svc resources. Generated from the kinds' definitions",
    " * (`src/kinds/<kind>/definition.ts`) by `npm run generate:schemas`: do not edit; edit the definition.",
    " */",
    'import type * as pulumi from "@pulumi/pulumi";',
    "",
  ];
  return `${[...head, ...definitions.flatMap((d) => [...kindInterfaces(d), ""])].join("\n").trimEnd()}\n`;
}
