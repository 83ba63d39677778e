/**
 * The repository JSON Schemas (`schemas/<file>.schema.json`: canvas, udf, cronjob, secrets,
 * service-accounts, bucket-policies), generated from the kinds' `repository` definitions. Editors
 * complete and check repository files with them; `svc.schema.json` (the project file, no kind's)
 * and `plan.schema.json` (saved plans) are written by hand. Pure.
 */
import { KIND_DEFINITIONS } from "../definitions";
import type { KindDefinition } from "../kind-definition";
import { repositoryProperties, type JsonSchema } from "../repository-keys";
import { SvcError } from "../../errors";

/** File name (`canvas`, `secrets` …) → its JSON Schema, for every kind declared in a file of its own. */
export function repositorySchemas(
  definitions: readonly KindDefinition[] = KIND_DEFINITIONS,
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const { kind, repository } of definitions) {
    const file = repository?.file;
    if (!file) continue;
    if (out[file.schema])
      throw new SvcError(
        "kind_definition_invalid",
        `${kind}: schemas/${file.schema}.schema.json is declared by two kinds`,
      );
    const properties = repositoryProperties(repository);
    out[file.schema] = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: `https://svc-iac.dev/schemas/${file.schema}.schema.json`,
      title: file.title,
      description: file.description,
      type: "object",
      additionalProperties: false,
      properties: file.listedUnder ? { [file.listedUnder.key]: file.listedUnder.schema(properties) } : properties,
      ...file.rules,
    };
  }
  return out;
}
