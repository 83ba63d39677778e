/**
 * The Pulumi package schema of the `svc` provider, generated from the kinds' definitions
 * (`../definitions`): resource tokens `svc:index:<Kind>`, camelCase properties as the dynamic
 * resources take and give them, descriptions, types, required inputs, secrets and
 * `replaceOnChanges`. The provider plugin answers `GetSchema` with it; `npm run generate:schemas`
 * writes it to `schemas/pulumi/schema.json`. Pure.
 */
import { KIND_DEFINITIONS } from "../definitions";
import type { FieldDefinition, FieldType, KindDefinition } from "../kind-definition";
import { SvcError } from "../../errors";

/** The package name: resource tokens are `svc:index:<Kind>`. */
export const PULUMI_PACKAGE = "svc";

/** A Pulumi type reference (the metaschema's `typeSpec`). */
export type PulumiTypeSpec =
  | { type: "string" | "boolean" | "integer" | "number" }
  | { type: "array"; items: PulumiTypeSpec }
  | { type: "object"; additionalProperties: PulumiTypeSpec }
  | { $ref: string }
  | { oneOf: PulumiTypeSpec[] };

/** A Pulumi property (the metaschema's `propertySpec`). */
export type PulumiPropertySpec = PulumiTypeSpec & {
  description?: string;
  default?: string | number | boolean;
  defaultInfo?: { environment: string[] };
  secret?: true;
  replaceOnChanges?: true;
};

/** A Pulumi resource (the metaschema's `resourceSpec`). */
export interface PulumiResourceSpec {
  description: string;
  properties: Record<string, PulumiPropertySpec>;
  required: string[];
  inputProperties: Record<string, PulumiPropertySpec>;
  requiredInputs: string[];
}

/** The package schema document. */
export interface PulumiPackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  meta: { moduleFormat: string };
  config: { variables: Record<string, PulumiPropertySpec>; defaults: string[] };
  provider: PulumiResourceSpec;
  types: Record<string, Record<string, unknown>>;
  resources: Record<string, PulumiResourceSpec>;
  language: Record<string, Record<string, unknown>>;
}

const token = (name: string): string => `${PULUMI_PACKAGE}:index:${name}`;

/** The provider's configuration (`svc:baseUrl` …), each with its `SVC_*` environment fallback (`src/provider/runtime.ts`). */
const CONFIG: Record<string, PulumiPropertySpec> = {
  baseUrl: {
    type: "string",
    description: "The platform API's base URL, `https://<host>/server/v1`.",
    defaultInfo: { environment: ["SVC_BASE_URL"] },
  },
  udfBaseUrl: {
    type: "string",
    description: "The shared-UDF host's base URL, when it is not the API's.",
    defaultInfo: { environment: ["SVC_UDF_BASE_URL"] },
  },
  token: {
    type: "string",
    description: "A user's Bearer token.",
    secret: true,
    defaultInfo: { environment: ["SVC_TOKEN"] },
  },
  serviceToken: {
    type: "string",
    description: "A service account's token (`Svc-Service-Token`), instead of `token`.",
    secret: true,
    defaultInfo: { environment: ["SVC_SERVICE_TOKEN"] },
  },
};

/**
 * The Pulumi package schema for `version` (semver, e.g. the package's own `0.1.0`), from every
 * kind's definition.
 */
export function pulumiPackageSchema(version: string): PulumiPackageSchema {
  return packageSchemaOf(KIND_DEFINITIONS, version);
}

/** The package schema of the given kinds' definitions (what {@link pulumiPackageSchema} does for the package's own kinds). */
export function packageSchemaOf(definitions: readonly KindDefinition[], version: string): PulumiPackageSchema {
  const types: Record<string, Record<string, unknown>> = {};
  const resources: Record<string, PulumiResourceSpec> = {};
  for (const def of definitions) {
    const typeOf = (t: FieldType): PulumiTypeSpec => typeSpec(t, def, types);
    for (const [name, object] of Object.entries(def.types ?? {})) {
      types[token(name)] = {
        type: "object",
        description: object.description,
        properties: mapValues(object.properties, (f) => property(f, typeOf(f.type), f.description)),
        required: requiredOf(object.properties, (f) => f.required === true),
      };
    }
    const outputs = {
      ...Object.fromEntries(
        Object.entries(def.inputs)
          .filter(([, f]) => f.output !== undefined)
          .map(([n, f]) => [n, outputOf(f)]),
      ),
      ...def.outputs,
    };
    resources[token(def.kind)] = {
      description: def.description,
      properties: mapValues(outputs, (f) => property({ ...f, default: undefined }, typeOf(f.type), f.description)),
      required: requiredOf(outputs, (f) => f.required === true),
      inputProperties: mapValues(def.inputs, (f) => property(f, typeOf(f.type), f.description)),
      requiredInputs: requiredOf(def.inputs, (f) => f.required === true),
    };
  }
  return {
    name: PULUMI_PACKAGE,
    displayName: "svc (UDF platform)",
    version,
    description:
      "Canvases, UDFs, shares, cronjobs, secrets, service accounts, bucket policies and session tokens of the UDF platform.",
    keywords: ["pulumi", "svc", "udf", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    meta: { moduleFormat: "(.*)" },
    config: { variables: CONFIG, defaults: Object.keys(CONFIG) },
    provider: {
      description:
        "The svc provider: where it sends requests and with which credentials. Each setting falls back to its `SVC_*` environment variable.",
      properties: mapValues(CONFIG, ({ defaultInfo: _environment, ...p }) => p),
      required: [],
      inputProperties: CONFIG,
      requiredInputs: [],
    },
    types: sortKeys(types),
    resources,
    language: {
      nodejs: {
        packageName: "svc-iac",
        packageDescription: "Pulumi resources of the UDF platform (the `svc` provider).",
        dependencies: { "@pulumi/pulumi": "^3.270.0" },
        respectSchemaVersion: true,
      },
      python: { packageName: "pulumi_svc", requires: { pulumi: ">=3.0.0,<4.0.0" }, respectSchemaVersion: true },
    },
  };
}

/** An input that is also an output, as the output it is. */
function outputOf(f: FieldDefinition): FieldDefinition {
  return {
    type: f.outputType ?? f.type,
    description: f.outputDescription ?? f.description,
    ...(f.output === "always" ? { required: true } : {}),
    ...(f.secret ? { secret: true } : {}),
    // Pulumi's SDK generators read replaceOnChanges from the output properties.
    ...(f.replaceOnChanges ? { replaceOnChanges: true } : {}),
  };
}

function property(f: FieldDefinition, type: PulumiTypeSpec, description: string): PulumiPropertySpec {
  return {
    ...type,
    description,
    ...(f.default !== undefined ? { default: f.default } : {}),
    ...(f.secret ? { secret: true as const } : {}),
    ...(f.replaceOnChanges ? { replaceOnChanges: true as const } : {}),
  };
}

function typeSpec(t: FieldType, def: KindDefinition, types: Record<string, Record<string, unknown>>): PulumiTypeSpec {
  if (t === "any") return { $ref: "pulumi.json#/Any" };
  if (typeof t === "string") return { type: t };
  if ("enum" in t) {
    const enumType = {
      type: "string",
      ...(t.description ? { description: t.description } : {}),
      enum: t.enum.map((value) => ({ value })),
    };
    const known = types[token(t.name)];
    if (known && JSON.stringify(known) !== JSON.stringify(enumType))
      throw new SvcError("kind_definition_invalid", `${def.kind}: the enum ${t.name} is defined twice, differently`);
    types[token(t.name)] = enumType;
    return { $ref: `#/types/${token(t.name)}` };
  }
  if ("array" in t) return { type: "array", items: typeSpec(t.array, def, types) };
  if ("map" in t) return { type: "object", additionalProperties: typeSpec(t.map, def, types) };
  if ("object" in t) {
    if (!def.types?.[t.object])
      throw new SvcError("kind_definition_invalid", `${def.kind}: the object type ${t.object} is not among its types`);
    return { $ref: `#/types/${token(t.object)}` };
  }
  return { oneOf: t.oneOf.map((o) => typeSpec(o, def, types)) };
}

const requiredOf = (fields: Record<string, FieldDefinition>, is: (f: FieldDefinition) => boolean): string[] =>
  Object.entries(fields)
    .filter(([, f]) => is(f))
    .map(([n]) => n);

function mapValues<T, U>(o: Record<string, T>, f: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
