/** The Udf kind's fields: its Pulumi arguments and outputs (`src/provider/udf.ts`). */
import type { KindDefinition } from "./kind-definition";

export const udfDefinition: KindDefinition = {
  kind: "Udf",
  description: "A UDF on a canvas. Created, or adopted when the canvas already has a UDF with that slug (its body is then rewritten). After a body change on a shared canvas the UDF's real-time cache is dropped, so shared URLs serve the new code.",
  inputs: {
    canvasId: { type: "string", description: "The canvas holding the UDF. Changing it moves the UDF to the other canvas, in place.", required: true, output: "always" },
    slug: { type: "string", description: "URL-safe name, unique on its canvas: letters, digits, `_` and `-`. Renaming updates in place.", required: true, output: "always" },
    code: { type: "string", description: "The UDF's Python source. Give `code` or `codePath`." },
    codePath: { type: "string", description: "Path of a `.py` file holding the UDF's source, relative to the Pulumi program folder. Its content (not the path) is compared, so editing the file updates the UDF in place." },
    entrypoint: { type: "string", description: "The name of the function to call.", default: "udf", output: "always" },
    headers: { type: { array: { object: "UdfHeader" } }, description: "Helper modules importable by the code." },
    metadata: { type: { map: "any" }, description: "Free-form metadata, namespaced keys." },
    createSharedToken: { type: "boolean", description: "Mint a per-UDF shared token (`sharedToken`). The platform only mints it when the UDF is created, so changing this replaces the UDF (the old one is deleted first: slugs are unique). A UDF adopted by slug has no `sharedToken`.", default: false, replaceOnChanges: true },
  },
  outputs: {
    udfBodyHash: { type: "string", description: "The platform's hash of the body last written.", required: true },
    sharedToken: { type: "string", description: "The per-UDF shared token (`fsh_...`), when `createSharedToken` is true. Secret. Without `createSharedToken` it resolves to undefined once the UDF is created.", secret: true },
  },
  types: {
    UdfHeader: {
      description: "A helper module of a UDF, importable by its code (`import utils`). Give `code` or `codePath`.",
      properties: {
        moduleName: { type: "string", description: "The Python module name; its file in the UDF body is `<moduleName>.py`.", required: true },
        code: { type: "string", description: "The module's Python source." },
        codePath: { type: "string", description: "Path of a `.py` file holding the module, relative to the Pulumi program folder; read at every preview and update, so editing the file updates the UDF." },
      },
    },
  },
};
