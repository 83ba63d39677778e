/**
 * One definition per kind: the fields a kind takes and gives, declared once (names, types,
 * descriptions, defaults, secret, replace-on-change, and the repository keys that fill them). The
 * Pulumi package schema (`../schema/pulumi-package.ts`), the repository JSON Schemas and the
 * loader's key lists are generated from these, and so are the Pulumi argument interfaces
 * (`src/provider/arguments.ts`, `../schema/pulumi-arguments.ts`), and so is the base zod check of a
 * kind's inputs (`../definition-check.ts`, from each field's `type`, `required`, `default` and
 * `check`). Pure data.
 */
import type { RepositoryDefinition } from "./repository-keys";

/** A field's type, in the terms both Pulumi and JSON Schema understand. */
export type FieldType =
  | "string"
  | "boolean"
  | "integer"
  | "number"
  /** Any JSON value (Pulumi's `pulumi.json#/Any`). */
  | "any"
  /** One of a few strings; `name` is the Pulumi enum type's name (`svc:index:<name>`). */
  | { enum: readonly string[]; name: string; description?: string }
  | { array: FieldType }
  /** An object with free keys (a map). */
  | { map: FieldType }
  /** A named object type of the kind (`KindDefinition.types`). */
  | { object: string }
  /** Any of several types. */
  | { oneOf: readonly FieldType[] };

/** One field of a kind: an input (argument) or an output. */
export interface FieldDefinition {
  type: FieldType;
  /** What the field means, as the Pulumi argument's TSDoc says it (the test compares them). */
  description: string;
  /** Inputs: the argument must be given. Outputs: always set. */
  required?: boolean;
  /** The value taken when the input is not given, when it is a plain value. */
  default?: string | number | boolean;
  /** Never shown: kept by Pulumi as a secret (inputs), or registered as a secret output. */
  secret?: boolean;
  /** A change replaces the object instead of updating it in place. */
  replaceOnChanges?: boolean;
  /**
   * Inputs: also an output of the resource (declared on its Pulumi class): `always` set once the
   * resource exists, or `maybe` absent.
   */
  output?: "always" | "maybe";
  /** Inputs that are outputs: the output's type when it differs (a normalized form). */
  outputType?: FieldType;
  /** Inputs that are outputs: the output's description when it says more than the input's. */
  outputDescription?: string;
  /** The Pulumi argument's `@default` text when it is not `default` written as a value (`none`, `[] (every day)`). */
  defaultDoc?: string;
  /** The Pulumi argument's `@example`: TypeScript text (`canvas.id`, `"nightly_refresh"`). */
  example?: string;
  /**
   * Outputs: `false` when the Pulumi class neither declares nor registers it (it is kept in state
   * only, as a secret output).
   * @default true
   */
  classMember?: false;
  /**
   * Inputs (and the properties of their object types): how the check of the inputs (`check` of the
   * kind, `../definition-check.ts`) reads a value beyond its `type`: its message and its bounds.
   * Not written into the generated schemas (the repository schemas declare their own bounds).
   */
  check?: FieldCheck;
}

/** A bound of a field's check, with its own message when it fails (else the check's `message`). */
export type CheckBound<T> = T | { value: T; message: string };

/** How the check of a kind's inputs reads one field (`../definition-check.ts`). */
export interface FieldCheck {
  /**
   * What the value is, shown when it is absent (required fields: `<field> is required: <message>`)
   * or not of the field's type, and when a bound without a message of its own fails.
   */
  message: string;
  /** Strings: the fewest characters (1: not empty). */
  minLength?: CheckBound<number>;
  /** Strings: the most characters. */
  maxLength?: CheckBound<number>;
  /** Strings: a regular expression the value matches (anchor it to match the whole value). */
  pattern?: CheckBound<RegExp>;
  /** Strings: a URL (`z.url()`). */
  url?: true;
  /** Integers and numbers, and the integers and numbers of an array: the smallest value. */
  minimum?: CheckBound<number>;
  /** Integers and numbers, and the integers and numbers of an array: the largest value. */
  maximum?: CheckBound<number>;
  /**
   * `null` is accepted too: for an optional field it means absent; for a required one it is a
   * value of its own (a UDF's `canvasId: null`, a UDF without a canvas).
   */
  nullable?: true;
  /** Absent means empty: the check takes `[]` for an array, `{}` for a map (the `defaultDoc` says so). */
  emptyDefault?: true;
}

/** A named object type used by a kind's fields (e.g. a UDF's helper module). */
export interface ObjectTypeDefinition {
  description: string;
  properties: Record<string, FieldDefinition>;
}

/** Everything a kind declares about its fields. */
export interface KindDefinition {
  /** The kind's name: the resource token is `svc:index:<kind>` and the Pulumi class is `<kind>`. */
  kind: string;
  /** What the resource is, as the Pulumi class's TSDoc says it. */
  description: string;
  /** The Pulumi class's `@example`: TypeScript lines. */
  example?: string;
  /** The Pulumi arguments (`<kind>Args`), by their camelCase names. */
  inputs: Record<string, FieldDefinition>;
  /** Outputs beyond the inputs marked `output`. */
  outputs: Record<string, FieldDefinition>;
  /** Named object types the fields use, by name (`svc:index:<name>`; the TypeScript interface is `<name>Args`). */
  types?: Record<string, ObjectTypeDefinition>;
  /** How the kind is declared in a GitOps repository; absent for kinds a repository cannot declare. */
  repository?: RepositoryDefinition;
  /** How `pulumi import` names an object of the kind; a string says why the kind cannot be imported. */
  importId: ImportIdDefinition | string;
  /**
   * The generated Pulumi class (`src/provider/<file>.ts`) also takes `<kind>Hooks` from
   * `src/provider/<file>-hooks.ts`: the behaviour a definition cannot say (`ResourceHooks`).
   */
  pulumiHooks?: true;
}

/** The id `pulumi import` takes for a kind, and what the import makes of it (the README's table is these). */
export interface ImportIdDefinition {
  /** The import id, with upper-case placeholders. */
  id: string;
  /** What the placeholder is, and where to find it. */
  where: string;
  /** The inputs `Read` returns with the object's state, taken from that state. */
  inputs: readonly string[];
  /** What the user declares after the import, when the platform cannot return it. */
  declareAfter?: string;
}

/** Who may use a canvas's shared links (a canvas's `accessScope`, a share's `mintedScope`). */
export const ACCESS_SCOPE = {
  enum: ["team", "public"],
  name: "AccessScope",
  description: "Who may use a canvas's shared links: the team, or anyone.",
} as const satisfies FieldType;
