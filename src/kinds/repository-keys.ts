/**
 * How a kind's objects are written in a GitOps repository: the file that declares them and, per
 * YAML key, its JSON Schema and the input it fills. From these the repository JSON Schemas under
 * `schemas/` (`../schema/repository-schemas.ts`), the loader's key lists and maps and the places
 * `import --keep` writes to are made (`definition-views.ts`). Pure data, with the schema pieces several keys share.
 */

/** A JSON Schema (2020-12) fragment, as written into `schemas/*.schema.json`. */
export type JsonSchema = { [keyword: string]: unknown };

/** One YAML key of a kind's objects. */
export interface RepositoryKey {
  /** Its JSON Schema, description included. */
  schema: JsonSchema;
  /** The kind's input (camelCase, as in `inputs`) the key fills, when it fills one as it is. */
  input?: string;
  /**
   * The field of the desired object the key fills, as plans name it, when it is no Pulumi input
   * filled as it is (a UDF's `visible` fills `isVisible`; a cronjob's `udf` fills `udfId` by reference).
   */
  field?: string;
  /**
   * `svc-iac import --keep` writes a drifted value of the field back under this key, in place
   * (a top-level scalar key). The schema's `default` is what the loader takes when the key is absent.
   */
  keep?: true;
}

/** Where and how a kind's objects are declared in a repository. */
export interface RepositoryDefinition {
  /**
   * The file kind that declares the objects, with its JSON Schema `schemas/<schema>.schema.json`.
   * Absent for a kind declared inside another kind's file (a share, in its canvas's canvas.yaml).
   */
  file?: {
    schema: string;
    title: string;
    description: string;
    /** Kinds listed by name in one file (secrets.yaml): the top-level key, and its schema around one entry's `properties`. */
    listedUnder?: { key: string; schema: (entryProperties: Record<string, JsonSchema>) => JsonSchema };
    /** Keywords after `properties` (`required`, `oneOf`). */
    rules?: JsonSchema;
  };
  /** The keys of one object, in the order the schema lists them. */
  keys: Record<string, RepositoryKey>;
  /** The input kept in the object's own source file by `import --keep` (a UDF's `code`, in its `.py`). */
  keepInSource?: string;
}

/** A `${var.NAME}` or `${env.NAME}` reference in place of a value. */
export const VAR_REF: JsonSchema = {
  type: "string",
  pattern: "^\\$\\{(var|env)\\.[A-Za-z_][A-Za-z0-9_]*\\}$",
  description: "A ${var.NAME} or ${env.NAME} reference, resolved when the repository is loaded.",
};

/** A secret: exactly one `${env.NAME}` reference, never a literal. */
export const SECRET_ENV_REF: JsonSchema = {
  type: "string",
  pattern: "^\\$\\{env\\.[A-Za-z_][A-Za-z0-9_]*\\}$",
  description:
    "A secret: exactly one ${env.NAME} reference. Secret values come only from the environment; a literal is an error.",
};

/** A value of `schema`, or a variable reference to one. */
export function orVarRef(description: string, schema: JsonSchema, defaultValue?: unknown): JsonSchema {
  return { description, ...(defaultValue === undefined ? {} : { default: defaultValue }), anyOf: [schema, VAR_REF] };
}

/** The `protect` key of an object (`what`: "canvas", "UDF" …). */
export const protect = (what: string): JsonSchema => ({
  type: "boolean",
  description: `Protect this ${what}: a plan that would delete it (prune) or replace it fails, naming it, whatever --prune says, and destroy refuses too. Remove protect (and apply) before deleting it on purpose. Default false.`,
});

/** The `on_drift` key of an object (`what`: "canvas", "UDF" …), overriding canvas.yaml's and svc.yaml's. */
export const onDrift = (what: string, note = ""): JsonSchema => ({
  description: `What \`svc-iac drift --remediate\` does when this ${what} is changed by hand: report it, restore the repository's version, or keep the platform's version (written into this file).${note} Default: canvas.yaml's, else the target's or project's in svc.yaml, else report.`,
  anyOf: [{ enum: ["report", "restore", "keep"] }, VAR_REF],
});

/** The `rotate_every` key of the kinds whose tokens rotate. */
export const ROTATE_EVERY: JsonSchema = {
  type: "string",
  pattern: "^[1-9][0-9]*[mhdw]$",
  description:
    'Rotate the token when its last rotation is older than this: a whole number followed by m (minutes), h (hours), d (days) or w (weeks), e.g. "30d".',
};

/** A kind's keys as the `properties` of its object's JSON Schema. */
export function repositoryProperties(repository: RepositoryDefinition): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(repository.keys).map(([key, k]) => [key, k.schema]));
}
