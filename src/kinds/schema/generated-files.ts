/**
 * The files generated from the kinds' definitions (schemas, Pulumi argument interfaces and resource classes)
 * and from the list of kinds (the registry and the definitions list), by path in the repository, with their
 * exact text: what `npm run generate:schemas` writes and what the freshness test compares with
 * the committed files. Pure.
 */
import { PULUMI_ARGUMENTS_FILE, pulumiArgumentsText } from "./pulumi-arguments";
import { pulumiPackageSchema } from "./pulumi-package";
import { pulumiResourceFiles } from "./pulumi-resources";
import { repositorySchemas } from "./repository-schemas";
import { kindRegistryFiles } from "./kind-registry-files";

/** Path in the repository → file text: `schemas/...` (2-space JSON, trailing newline) and the Pulumi argument interfaces. */
export function generatedSchemaFiles(version: string): Record<string, string> {
  return {
    ...Object.fromEntries(
      Object.entries(repositorySchemas()).map(([name, schema]) => [`schemas/${name}.schema.json`, jsonText(schema)]),
    ),
    "schemas/pulumi/schema.json": jsonText(pulumiPackageSchema(version)),
    [PULUMI_ARGUMENTS_FILE]: pulumiArgumentsText(),
    ...pulumiResourceFiles(),
    ...kindRegistryFiles(),
  };
}

const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
