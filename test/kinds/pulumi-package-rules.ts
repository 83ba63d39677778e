/**
 * What Pulumi's package schema format requires of the parts svc-iac's schema uses, written here as
 * a JSON Schema of our own after reading Pulumi's metaschema (`pkg/codegen/schema/pulumi.json` in
 * the pulumi repository, read with the project's search tool; not copied). Unknown keys are refused
 * where Pulumi's format has a closed set, so a typo (`replaceOnChange`) or a wrong type name fails.
 */
/** A type or resource token: `package:module:Name`. */
const TOKEN = "^[a-zA-Z][-a-zA-Z0-9_]*:([^0-9][a-zA-Z0-9._/-]*)?:[^0-9][a-zA-Z0-9._/]*$";
const PRIMITIVES = ["boolean", "integer", "number", "string", "array", "object"];

const typeKeys = {
  type: { enum: PRIMITIVES },
  $ref: { type: "string", pattern: "^(#/types/|#/resources/|pulumi\\.json#/)" },
  items: { $ref: "#/$defs/typeSpec" },
  additionalProperties: { $ref: "#/$defs/typeSpec" },
  oneOf: { type: "array", items: { $ref: "#/$defs/typeSpec" } },
  plain: { type: "boolean" },
};
const propertyKeys = {
  ...typeKeys,
  description: { type: "string" },
  const: {},
  default: {},
  defaultInfo: {
    type: "object",
    properties: { environment: { type: "array", items: { type: "string" } }, language: { type: "object" } },
    required: ["environment"],
    additionalProperties: false,
  },
  deprecationMessage: { type: "string" },
  language: { type: "object" },
  secret: { type: "boolean" },
  replaceOnChanges: { type: "boolean" },
  willReplaceOnChanges: { type: "boolean" },
};
const eitherTypeOrRef = { oneOf: [{ required: ["type"] }, { required: ["$ref"] }, { required: ["oneOf"] }] };
const properties = { type: "object", additionalProperties: { $ref: "#/$defs/propertySpec" } };
const names = { type: "array", items: { type: "string" }, uniqueItems: true };
const objectKeys = {
  description: { type: "string" },
  properties,
  required: names,
  language: { type: "object" },
  isOverlay: { type: "boolean" },
};
const resourceKeys = {
  ...objectKeys,
  inputProperties: properties,
  requiredInputs: names,
  stateInputs: { $ref: "#/$defs/objectType" },
  aliases: { type: "array" },
  deprecationMessage: { type: "string" },
  isComponent: { type: "boolean" },
  methods: { type: "object" },
};

export const PACKAGE_RULES = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: {
    name: { type: "string", pattern: "^[a-zA-Z][-a-zA-Z0-9_]*$" },
    displayName: { type: "string" },
    version: { type: "string", pattern: "^v?\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$" },
    description: { type: "string" },
    keywords: names,
    homepage: { type: "string" },
    license: { type: "string" },
    attribution: { type: "string" },
    repository: { type: "string" },
    logoUrl: { type: "string" },
    pluginDownloadURL: { type: "string" },
    publisher: { type: "string" },
    meta: {
      type: "object",
      properties: { moduleFormat: { type: "string", format: "regex" } },
      required: ["moduleFormat"],
      additionalProperties: false,
    },
    config: { type: "object", properties: { variables: properties, defaults: names }, additionalProperties: false },
    provider: { $ref: "#/$defs/resourceSpec" },
    types: { type: "object", propertyNames: { pattern: TOKEN }, additionalProperties: { $ref: "#/$defs/complexType" } },
    resources: {
      type: "object",
      propertyNames: { pattern: TOKEN },
      additionalProperties: { $ref: "#/$defs/resourceSpec" },
    },
    functions: { type: "object", propertyNames: { pattern: TOKEN } },
    language: { type: "object" },
  },
  $defs: {
    typeSpec: { type: "object", properties: typeKeys, additionalProperties: false, ...eitherTypeOrRef },
    propertySpec: { type: "object", properties: propertyKeys, additionalProperties: false, ...eitherTypeOrRef },
    objectType: {
      type: "object",
      properties: { ...objectKeys, type: { const: "object" } },
      additionalProperties: false,
    },
    complexType: {
      oneOf: [
        { $ref: "#/$defs/objectType", required: ["type"] },
        {
          type: "object",
          required: ["type", "enum"],
          additionalProperties: false,
          properties: {
            type: { enum: ["boolean", "integer", "number", "string"] },
            description: { type: "string" },
            language: { type: "object" },
            enum: {
              type: "array",
              minItems: 1,
              items: {
                type: "object",
                required: ["value"],
                additionalProperties: false,
                properties: {
                  name: { type: "string" },
                  description: { type: "string" },
                  value: {},
                  deprecationMessage: { type: "string" },
                },
              },
            },
          },
        },
      ],
    },
    resourceSpec: { type: "object", properties: resourceKeys, additionalProperties: false },
  },
} as const;
