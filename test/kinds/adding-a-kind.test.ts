/**
 * The "Adding a kind" recipe (README), step 1, followed with a toy kind (test/fixtures/toy-kind):
 * its definition alone puts it in the Pulumi package schema (within the rules of Pulumi's package schema format)
 * and gives it a repository JSON Schema, with no change to the generators.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { KIND_DEFINITIONS } from "../../src/kinds/definitions";
import { packageSchemaOf } from "../../src/kinds/schema/pulumi-package";
import { repositorySchemas } from "../../src/kinds/schema/repository-schemas";
import { notebookDefinition } from "../fixtures/toy-kind/definition";
import { PACKAGE_RULES } from "./pulumi-package-rules";

const definitions = [...KIND_DEFINITIONS, notebookDefinition];

describe("GIVEN a new kind's definition added beside the others", () => {
  it("THEN the Pulumi package schema has its resource, within the rules of Pulumi's package schema format", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(PACKAGE_RULES);
    const schema = packageSchemaOf(definitions, "0.1.0");
    expect(validate(schema) ? [] : validate.errors).toEqual([]);
    expect(schema.resources["svc:index:Notebook"]).toEqual({
      description: "A notebook of the team.",
      properties: {
        title: { type: "string", description: "The notebook's title.", replaceOnChanges: true },
        pinned: { type: "boolean", description: "Whether it is pinned." },
        url: { type: "string", description: "Where it opens." },
      },
      required: ["title", "pinned", "url"],
      inputProperties: {
        title: { type: "string", description: "The notebook's title.", replaceOnChanges: true },
        pinned: { type: "boolean", description: "Whether it is pinned.", default: false },
        apiKey: { type: "string", description: "A key the notebook reads.", secret: true },
      },
      requiredInputs: ["title"],
    });
  });

  it("THEN its file gets a repository JSON Schema, and the others are unchanged", () => {
    const schemas = repositorySchemas(definitions);
    expect(schemas.notebooks).toMatchObject({
      $id: "https://svc-iac.dev/schemas/notebooks.schema.json",
      title: "notebooks.yaml",
      additionalProperties: false,
      properties: {
        notebooks: {
          additionalProperties: { properties: { pinned: { default: false }, protect: { type: "boolean" } } },
        },
      },
    });
    expect(Object.keys(schemas.notebooks.properties as object)).toEqual(["notebooks"]);
    const { notebooks: _toy, ...others } = schemas;
    expect(others).toEqual(repositorySchemas(KIND_DEFINITIONS));
  });

  it("THEN a second kind claiming the same file is refused", () => {
    expect(() => repositorySchemas([...definitions, { ...notebookDefinition, kind: "Notebook2" }])).toThrow(
      /notebooks\.schema\.json is declared by two kinds/,
    );
  });
});
