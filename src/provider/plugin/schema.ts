/**
 * The package schema `GetSchema` answers with. It is generated from the kinds' own definitions in
 * `src/resources` (issue 27), never written here a second time.
 */

/** The Pulumi package schema of this version, as JSON text. */
export async function pulumiSchemaText(_version: string): Promise<string> {
  throw new Error("pulumi-resource-svc: this build carries no package schema yet (it is generated from src/resources by the schema generator, not yet merged).");
}
