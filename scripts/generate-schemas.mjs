// Writes the schema files generated from the kinds' definitions (src/kinds/<kind>/definition.ts):
// schemas/pulumi/schema.json and the repository JSON Schemas. Run through `npm run generate:schemas`,
// which builds first; test/kinds/generated-schemas.test.ts fails when the committed files differ.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { generatedSchemaFiles } = require(join(root, "dist/kinds/schema/generated-files.js"));
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
for (const [path, text] of Object.entries(generatedSchemaFiles(version))) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
