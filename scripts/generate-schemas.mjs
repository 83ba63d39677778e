// Writes the files generated from the kinds' definitions (src/kinds/<kind>/definition.ts) and from
// the one list of kinds (src/model/kind-list.ts): schemas/pulumi/schema.json, the repository JSON
// Schemas, the Pulumi classes and argument interfaces, and src/kinds/registry.ts and
// definitions.ts. Run through `npm run generate:schemas`, which builds first;
// test/kinds/generated-schemas.test.ts fails when the committed files differ. When the list of
// kinds changed the registry, the build is run again and the schemas written from it (a new kind's
// schemas need its definition in the build).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { generatedSchemaFiles } = require(join(root, "dist/kinds/schema/generated-files.js"));
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const REGISTRY_FILES = ["src/kinds/registry.ts", "src/kinds/definitions.ts"];
let registryChanged = false;
for (const [path, text] of Object.entries(generatedSchemaFiles(version))) {
  const file = join(root, path);
  if (REGISTRY_FILES.includes(path) && (!existsSync(file) || readFileSync(file, "utf8") !== text))
    registryChanged = true;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${path}`);
}
if (registryChanged && process.env.SVC_GENERATE_AGAIN !== "0") {
  console.log("the list of kinds changed the registry: building again and writing the schemas from it");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, SVC_GENERATE_AGAIN: "0" },
  });
}
