/**
 * The schema files generated from the kinds' definitions are committed: a definition changed
 * without `npm run generate:schemas` leaves them stale, and this test says which file and how to
 * fix it (as the action bundle's test does for dist-action/).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedSchemaFiles } from "../../src/kinds/schema/generated-files";

const ROOT = join(__dirname, "../..");
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
const files = Object.entries(generatedSchemaFiles(version));

describe("GIVEN the kinds' definitions and the committed schema files", () => {
  it("THEN the Pulumi package schema is among the generated files", () => {
    expect(files.map(([path]) => path)).toContain("schemas/pulumi/schema.json");
  });

  it.each(files)("THEN %s is what `npm run generate:schemas` writes", (path, text) => {
    const committed = readFileSync(join(ROOT, path), "utf8");
    expect(committed, `${path} is stale: run npm run generate:schemas and commit it`).toBe(text);
  });
});
