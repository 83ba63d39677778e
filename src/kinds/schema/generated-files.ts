/**
 * The schema files generated from the kinds' definitions, by path in the package, with their
 * exact text: what `npm run generate:schemas` writes and what the freshness test compares with
 * the committed files. Pure.
 */
import { pulumiPackageSchema } from "./pulumi-package";
import { repositorySchemas } from "./repository-schemas";

/** `schemas/...` path → file text (2-space JSON, trailing newline). */
export function generatedSchemaFiles(version: string): Record<string, string> {
  return {
    ...Object.fromEntries(
      Object.entries(repositorySchemas()).map(([name, schema]) => [`schemas/${name}.schema.json`, jsonText(schema)]),
    ),
    "schemas/pulumi/schema.json": jsonText(pulumiPackageSchema(version)),
  };
}

const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
