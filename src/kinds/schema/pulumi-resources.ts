/**
 * The Pulumi resource classes (`src/provider/<file>.ts`), generated from the kinds' definitions:
 * each a typed shell that registers the kind's dynamic type with the provider stub. From the
 * definition: the TSDoc, the declared outputs and their types, the outputs registered unset, the
 * secret inputs (made secret before they reach state) and the secret outputs. What a definition
 * cannot say comes from the kind's hand-written hooks (`pulumiHooks`, `src/provider/resource-hooks.ts`). Pure.
 */
import { KIND_DEFINITIONS } from "../definitions";
import type { FieldDefinition, FieldType, KindDefinition } from "../kind-definition";
import { docLines, typeText } from "./pulumi-arguments";

/** `Udf` → `udf`, `CanvasShare` → `canvas-share`: the file name of a kind's class and hooks. */
export const kindFileName = (kind: string): string =>
  kind.replace(/[A-Z]/g, (c, i: number) => (i ? "-" : "") + c.toLowerCase());

/** The path of a kind's generated class in the repository. */
export const pulumiResourceFile = (kind: string): string => `src/provider/${kindFileName(kind)}.ts`;

/** Biome's `lineWidth` (biome.json): the generated text is as the formatter writes it. */
const LINE_WIDTH = 120;

/** A module beside the generated file, quoted (built here so that no import of this file names it). */
const sibling = (file: string): string => `"./${file}"`;

const hooksName = (kind: string): string => `${kind[0].toLowerCase()}${kind.slice(1)}Hooks`;

/** A declared output's type: `| null` when the platform may give none, `| undefined` for a secret never set. */
function outputType(f: FieldDefinition, type: FieldType): string {
  const t = typeText(type);
  if (f.required || f.output === "always") return t;
  return `${t} | ${f.secret ? "undefined" : "null"}`;
}

/** The class's declared outputs: the inputs marked `output`, then the outputs it declares. */
function declaredOutputs(d: KindDefinition): string[] {
  const inputs = Object.entries(d.inputs)
    .filter(([, f]) => f.output)
    .map(([n, f]) => [n, f.outputDescription ?? f.description, outputType(f, f.outputType ?? f.type)] as const);
  const outputs = Object.entries(d.outputs)
    .filter(([, f]) => f.classMember !== false)
    .map(([n, f]) => [n, f.description, outputType(f, f.type)] as const);
  return [...inputs, ...outputs].flatMap(([name, doc, type]) => [
    "  /**",
    ...docLines(doc, "  "),
    "   */",
    `  declare readonly ${name}: pulumi.Output<${type}>;`,
  ]);
}

/** The constructor: inputs (unset outputs, arguments, secret inputs), then the SDK's constructor with quiet stacks. */
function constructorLines(d: KindDefinition): string[] {
  const hooked = d.pulumiHooks === true;
  const outputs = Object.entries(d.outputs).filter(([, f]) => f.classMember !== false);
  // Outputs that may never be set are the hooks' to register (`mayBeSet`), when the kind has hooks.
  const maybe = hooked ? outputs.filter(([, f]) => f.secret && !f.required).map(([n]) => n) : [];
  const unset = outputs.filter(([n]) => !maybe.includes(n)).map(([n]) => n);
  const secrets = Object.entries(d.outputs)
    .filter(([n, f]) => f.secret && !maybe.includes(n))
    .map(([n]) => JSON.stringify(n));
  const secretInputs = Object.entries(d.inputs).filter(([, f]) => f.secret);
  const inputLines = [
    ...unset.map((n) => `      ${n}: undefined,`),
    ...(maybe.length ? [`      ...(mayBeSet ? { ${maybe.map((n) => `${n}: undefined`).join(", ")} } : {}),`] : []),
    ...(hooked ? ["      ...Object.fromEntries((hooks.registers ?? []).map((output) => [output, undefined])),"] : []),
    "      ...args,",
    ...secretInputs.map(([n, f]) =>
      f.required
        ? `      ${n}: pulumi.secret(args.${n}),`
        : `      ${n}: args.${n} === undefined ? undefined : pulumi.secret(args.${n}),`,
    ),
  ];
  const secretOutputs = [
    ...secrets,
    ...(maybe.length ? [`...(mayBeSet ? [${maybe.map((n) => JSON.stringify(n)).join(", ")}] : [])`] : []),
    ...(hooked ? ["...(hooks.secretOutputs ?? [])"] : []),
  ];
  const options =
    secretOutputs.length === 0
      ? ["opts"]
      : [
          "{",
          ...(hooked ? ["        ...hooks.defaults,"] : []),
          "        ...opts,",
          ...secretOutputsLines(["...(opts?.additionalSecretOutputs ?? [])", ...secretOutputs]),
          "      }",
        ];
  return [
    `  constructor(name: string, args: ${d.kind}Args, opts?: pulumi.CustomResourceOptions) {`,
    ...(maybe.length
      ? [
          "    // Registered only when they may be set: each registered output costs the SDK four pending promises.",
          "    const mayBeSet = hooks.mayBeSet?.(args) ?? true;",
        ]
      : []),
    "    const inputs = {",
    ...inputLines,
    "    };",
    "    const stacks = quietStacks();",
    "    try {",
    `      super(dynamicType("${d.kind}"), name, withStub("${d.kind}", inputs), ${options.join("\n")});`,
    "    } catch (e) {",
    "      throw stacks.atCaller(e, new.target);",
    "    } finally {",
    "      stacks.restore();",
    "    }",
    "  }",
  ];
}

/** `additionalSecretOutputs`, on one line when it fits in the formatter's width, else one item a line (as Biome writes it). */
function secretOutputsLines(items: readonly string[]): string[] {
  const line = `        additionalSecretOutputs: [${items.join(", ")}],`;
  if (line.length <= LINE_WIDTH) return [line];
  return ["        additionalSecretOutputs: [", ...items.map((i) => `          ${i},`), "        ],"];
}

/** The text of a kind's `src/provider/<file>.ts`. */
export function pulumiResourceText(d: KindDefinition): string {
  const file = kindFileName(d.kind);
  const argTypes = [d.kind, ...Object.keys(d.types ?? {})].map((n) => `${n}Args`).join(", ");
  const example = d.example === undefined ? [] : [" *", " * @example", ...d.example.split("\n").map((l) => ` * ${l}`)];
  const lines = [
    "/**",
    ` * The \`${d.kind}\` Pulumi resource. Generated from \`src/kinds/${file}/definition.ts\` by \`npm run generate:schemas\`:`,
    ` * do not edit; edit the definition${d.pulumiHooks ? `, or \`./${file}-hooks.ts\` for what it cannot say` : ""}.`,
    " */",
    'import * as pulumi from "@pulumi/pulumi";',
    `import type { ${d.kind}Args } from ${sibling("arguments")};`,
    ...(d.pulumiHooks ? [`import { ${hooksName(d.kind)} as hooks } from ${sibling(`${file}-hooks`)};`] : []),
    `import { dynamicType, quietStacks, withStub } from ${sibling("registration")};`,
    "",
    `export type { ${argTypes} } from ${sibling("arguments")};`,
    "",
    "/**",
    ...docLines(d.description, ""),
    ...example,
    " */",
    `export class ${d.kind} extends pulumi.CustomResource {`,
    ...declaredOutputs(d),
    "",
    ...constructorLines(d),
    "}",
    ...(d.pulumiHooks ? ["", `hooks.decorate?.(${d.kind}.prototype);`] : []),
  ];
  return `${lines.join("\n")}\n`;
}

/** Path in the repository → text, for every kind's class. */
export function pulumiResourceFiles(definitions: readonly KindDefinition[] = KIND_DEFINITIONS): Record<string, string> {
  return Object.fromEntries(definitions.map((d) => [pulumiResourceFile(d.kind), pulumiResourceText(d)]));
}
