/**
 * The package schema `GetSchema` answers with: the one generated from the kinds' definitions
 * (`src/kinds/schema/pulumi-package.ts`), the same document as `schemas/pulumi/schema.json`.
 */
import { pulumiPackageSchema } from "../../kinds/schema/pulumi-package";

/** The Pulumi package schema of this version, as JSON text. */
export async function pulumiSchemaText(version: string): Promise<string> {
  return JSON.stringify(pulumiPackageSchema(version));
}
