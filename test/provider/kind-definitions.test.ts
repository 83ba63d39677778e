/**
 * Each kind's Pulumi argument interface (`src/provider/<kind>.ts`) and its definition
 * (`src/kinds/<kind>/definition.ts`, from which the package schema is generated) say the
 * same: the same argument names, the same required ones, the same types, the same descriptions
 * (the TSDoc's text), and the class's outputs and secret outputs are the definition's outputs.
 * Read from the source with the TypeScript compiler, so a field added to one and not the other
 * fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { KIND_DEFINITIONS } from "../../src/kinds/definitions";
import type { FieldDefinition, FieldType } from "../../src/kinds/kind-definition";

const PROVIDER = join(__dirname, "../../src/provider");
const fileOf = (kind: string): string => kind.replace(/[A-Z]/g, (c, i: number) => (i ? "-" : "") + c.toLowerCase());

interface Member {
  name: string;
  optional: boolean;
  type: string[];
  doc: string;
}

/** A TypeScript type as a sorted list of union members, `pulumi.Input`/`Output` unwrapped, null and undefined dropped. */
function typeText(node: ts.TypeNode): string[] {
  if (
    ts.isTypeReferenceNode(node) &&
    /^pulumi\.(Input|Output)$/.test(node.typeName.getText()) &&
    node.typeArguments?.length === 1
  )
    return typeText(node.typeArguments[0]);
  if (ts.isUnionTypeNode(node)) return [...new Set(node.types.flatMap(typeText))].sort();
  if (ts.isArrayTypeNode(node)) return [`${typeText(node.elementType).join(" | ")}[]`];
  if (ts.isParenthesizedTypeNode(node)) return typeText(node.type);
  const text = node.getText();
  return text === "null" || text === "undefined" ? [] : [text];
}

/** A definition's type as the argument interface writes it. */
function definitionText(t: FieldType): string[] {
  if (t === "any") return ["unknown"];
  if (t === "integer" || t === "number") return ["number"];
  if (typeof t === "string") return [t];
  if ("enum" in t) return t.enum.map((v) => JSON.stringify(v)).sort();
  if ("array" in t) return [`${definitionText(t.array).join(" | ")}[]`];
  if ("map" in t) return [`Record<string, ${definitionText(t.map).join(" | ")}>`];
  if ("object" in t) return [`${t.object}Args`];
  return [...new Set(t.oneOf.flatMap(definitionText))].sort();
}

const docOf = (node: ts.Node): string =>
  ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((d) => ts.getTextOfJSDocComment(d.comment) ?? "")
    .join(" ")
    .split(/\s+/)
    .join(" ")
    .trim();

function membersOf(members: ts.NodeArray<ts.TypeElement | ts.ClassElement>): Member[] {
  return members.flatMap((m) =>
    (ts.isPropertySignature(m) || ts.isPropertyDeclaration(m)) && m.type
      ? [{ name: m.name.getText(), optional: m.questionToken !== undefined, type: typeText(m.type), doc: docOf(m) }]
      : [],
  );
}

/** The argument interfaces, the class's declared outputs and its additional secret outputs, as written in the provider file. */
function providerFile(kind: string) {
  const path = join(PROVIDER, `${fileOf(kind)}.ts`);
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  // The argument interfaces are generated into arguments.ts (and re-exported by the kind's file).
  const argumentsPath = join(PROVIDER, "arguments.ts");
  const generated = ts.createSourceFile(
    argumentsPath,
    readFileSync(argumentsPath, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const interfaces = new Map<string, Member[]>();
  generated.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, membersOf(node.members));
  });
  let classOutputs: Member[] = [];
  let classDoc = "";
  source.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name?.text === kind) {
      classOutputs = membersOf(node.members);
      classDoc = docOf(node);
    }
  });
  const secretOutputs = [...text.matchAll(/additionalSecretOutputs \?\? \[\]\),\s*([^\]]*)\]/g)].flatMap((m) =>
    [...m[1].matchAll(/"([^"]+)"/g)].map((s) => s[1]),
  );
  return { interfaces, classOutputs, classDoc, secretOutputs };
}

/** What the definition says of each argument, in the terms of the interface. */
const asMembers = (fields: Record<string, FieldDefinition>): Member[] =>
  Object.entries(fields).map(([name, f]) => ({
    name,
    optional: f.required !== true,
    type: definitionText(f.type),
    doc: f.description,
  }));

describe.each(KIND_DEFINITIONS.map((d) => [d.kind, d] as const))(
  "GIVEN the %s definition and its Pulumi resource",
  (kind, definition) => {
    const file = providerFile(kind);

    it(`THEN ${kind}Args has the same arguments, required ones, types and descriptions`, () => {
      expect(file.interfaces.get(`${kind}Args`)).toEqual(asMembers(definition.inputs));
    });

    it("THEN each named object type matches its Args interface", () => {
      for (const [name, object] of Object.entries(definition.types ?? {}))
        expect(file.interfaces.get(`${name}Args`), name).toEqual(asMembers(object.properties));
    });

    it("THEN the class's description is the definition's", () => {
      expect(file.classDoc).toBe(definition.description);
    });

    it("THEN the class declares the definition's outputs, with their types, and registers its secret outputs", () => {
      const outputs = {
        ...Object.fromEntries(
          Object.entries(definition.inputs)
            .filter(([, f]) => f.output)
            .map(([n, f]) => [n, { ...f, type: f.outputType ?? f.type }]),
        ),
        ...definition.outputs,
      };
      const declared = Object.fromEntries(file.classOutputs.map((m) => [m.name, m.type]));
      // Every declared output is in the definition, with the same type.
      for (const [name, type] of Object.entries(declared))
        expect(outputs[name] && definitionText(outputs[name].type), `${kind}.${name}`).toEqual(type);
      // An output the class does not declare is one it registers as a secret output.
      for (const name of Object.keys(outputs).filter((n) => !(n in declared)))
        expect(file.secretOutputs, `${kind}.${name}`).toContain(name);
      // Every secret output of the definition is registered as one, and everything registered is a secret of the definition.
      for (const [name] of Object.entries(definition.outputs).filter(([, f]) => f.secret))
        expect(file.secretOutputs, `${kind}.${name}`).toContain(name);
      const secrets = [...Object.entries(definition.outputs), ...Object.entries(definition.inputs)]
        .filter(([, f]) => f.secret)
        .map(([n]) => n);
      for (const name of file.secretOutputs) expect(secrets, `${kind}.${name}`).toContain(name);
      // Declared outputs' descriptions, where the class writes one, are the definition's.
      for (const m of file.classOutputs.filter((m) => m.doc)) {
        const f = outputs[m.name] as FieldDefinition;
        expect((f as FieldDefinition).outputDescription ?? f.description, `${kind}.${m.name}`).toBe(m.doc);
      }
    });
  },
);

describe("GIVEN the provider folder", () => {
  it("THEN every exported Pulumi resource class has a definition", () => {
    const index = readFileSync(join(PROVIDER, "index.ts"), "utf8");
    const exported = [...index.matchAll(/export \{ (\w+), type \1Args/g)].map((m) => m[1]).sort();
    expect(exported).toEqual(KIND_DEFINITIONS.map((d) => d.kind).sort());
  });
});
