/** The Udf kind's fields: its Pulumi arguments and outputs (`src/provider/udf.ts`). */
import type { FieldCheck, KindDefinition } from "../kind-definition";
import { onDrift, orVarRef, protect } from "../repository-keys";
import { DEPLOY_MODES } from "./switch-over";

/** The function a UDF's code is called by when its settings name none. */
const DEFAULT_ENTRYPOINT = "udf";

/** A Python identifier: a module or function name. */
const PY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The check of a `codePath`: a `.py` file's path. */
const PY_FILE: FieldCheck = {
  message: "codePath is the path of a .py file, relative to the Pulumi program folder.",
  pattern: {
    value: /\.py$/,
    message:
      'codePath is the path of a Python file ending in .py, relative to the Pulumi program folder, e.g. "udfs/loader.py".',
  },
};

export const udfDefinition = {
  kind: "Udf",
  description:
    "A UDF on a canvas. Created, or adopted when the canvas already has a UDF with that slug (its body is then rewritten). After a body change on a shared canvas the UDF's real-time cache is dropped, so shared URLs serve the new code.",
  example:
    'const listings = new svc.Udf("listings", { canvasId: canvas.id, slug: "listings", codePath: "udfs/listings.py" });',
  inputs: {
    canvasId: {
      type: "string",
      description: "The canvas holding the UDF. Changing it moves the UDF to the other canvas, in place.",
      required: true,
      output: "always",
      example: "canvas.id",
      // null: a UDF without a canvas (`collection_id` null). Required, so that a forgotten id is an error.
      check: {
        message: "canvasId is the id of the canvas holding the UDF (e.g. canvas.id).",
        minLength: {
          value: 1,
          message: "canvasId must not be empty: give the id of the canvas holding the UDF (e.g. canvas.id).",
        },
        nullable: true,
      },
    },
    slug: {
      type: "string",
      description: "URL-safe name, unique on its canvas: letters, digits, `_` and `-`. Renaming updates in place.",
      required: true,
      output: "always",
      example: '"load-listings"',
      check: {
        message: "A slug is a string of letters, digits, '_' and '-'.",
        pattern: {
          value: /^[A-Za-z0-9_-]+$/,
          message: "A slug is URL-safe: letters, digits, '_' and '-' only ([A-Za-z0-9_-]+), e.g. \"load-listings\".",
        },
      },
    },
    code: {
      type: "string",
      description: "The UDF's Python source. Give `code` or `codePath`.",
      defaultDoc: "none (then `codePath` is required)",
      example: '"@fused.udf\\ndef udf(city: str = \\"nyc\\"):\\n    ...\\n"',
      check: { message: "code is the UDF's Python source." },
    },
    codePath: {
      type: "string",
      description:
        "Path of a `.py` file holding the UDF's source, relative to the Pulumi program folder. Its content (not the path) is compared, so editing the file updates the UDF in place.",
      defaultDoc: "none (then `code` is required)",
      example: '"udfs/listings.py"',
      check: PY_FILE,
    },
    entrypoint: {
      type: "string",
      description: "The name of the function to call.",
      default: DEFAULT_ENTRYPOINT,
      output: "always",
      check: {
        message: "entrypoint is the name of the function to call.",
        pattern: { value: PY_NAME, message: 'entrypoint is a Python function name, e.g. "udf".' },
      },
    },
    headers: {
      // `as const`: the checked inputs' type (`CheckedInputs`) finds the object type by this name.
      type: { array: { object: "UdfHeader" as const } },
      description: "Helper modules importable by the code.",
      defaultDoc: "[]",
      example: '[{ moduleName: "utils", codePath: "udfs/utils.py" }]',
      check: { message: "headers is a list of helper modules: [{moduleName, code | codePath}].", emptyDefault: true },
    },
    metadata: {
      type: { map: "any" },
      description: "Free-form metadata, namespaced keys.",
      defaultDoc: "{}",
      example: '{ "fused:description": "Loads listings", "fused:tags": ["demo"] }',
      check: { message: 'metadata is an object, e.g. {"fused:description": "Loads listings"}.', emptyDefault: true },
    },
    createSharedToken: {
      type: "boolean",
      description:
        "Mint a per-UDF shared token (`sharedToken`). The platform only mints it when the UDF is created, so changing this replaces the UDF (the old one is deleted first: slugs are unique). A UDF adopted by slug has no `sharedToken`.",
      default: false,
      replaceOnChanges: true,
      check: { message: "createSharedToken is true or false." },
    },
  },
  outputs: {
    udfBodyHash: { type: "string", description: "The platform's hash of the body last written.", required: true },
    sharedToken: {
      type: "string",
      description:
        "The per-UDF shared token (`fsh_...`), when `createSharedToken` is true. Secret. Without `createSharedToken` it resolves to undefined once the UDF is created.",
      secret: true,
    },
  },
  types: {
    UdfHeader: {
      description: "A helper module of a UDF, importable by its code (`import utils`). Give `code` or `codePath`.",
      properties: {
        moduleName: {
          type: "string",
          description: "The Python module name; its file in the UDF body is `<moduleName>.py`.",
          required: true,
          example: '"utils"',
          check: {
            message: 'moduleName is a Python module name, e.g. "utils".',
            pattern: {
              value: PY_NAME,
              message:
                'moduleName is a Python module name: a letter or "_", then letters, digits or "_", e.g. "utils".',
            },
          },
        },
        code: {
          type: "string",
          description: "The module's Python source.",
          defaultDoc: "none (then `codePath` is required)",
          check: { message: "code is the module's Python source." },
        },
        codePath: {
          type: "string",
          description:
            "Path of a `.py` file holding the module, relative to the Pulumi program folder; read at every preview and update, so editing the file updates the UDF.",
          defaultDoc: "none (then `code` is required)",
          example: '"udfs/utils.py"',
          check: PY_FILE,
        },
      },
    },
  },
  repository: {
    keepInSource: "code",
    file: {
      schema: "udf",
      title: "canvases/<name>/<slug>.yaml",
      description: "Optional settings of the UDF whose code is <slug>.py beside this file.",
    },
    keys: {
      entrypoint: {
        schema: {
          type: "string",
          pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
          description: "The function to call. Default udf.",
          default: DEFAULT_ENTRYPOINT,
        },
        input: "entrypoint",
        keep: true,
      },
      metadata: {
        schema: {
          type: "object",
          description: "Free-form metadata, keys namespaced, e.g. fused:description, fused:tags.",
          additionalProperties: true,
        },
        input: "metadata",
      },
      headers: {
        schema: {
          type: "array",
          description: "Helper modules importable by the UDF's code.",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["module", "file"],
            properties: {
              module: {
                type: "string",
                pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
                description: "The Python module name, e.g. utils (import utils).",
              },
              file: {
                type: "string",
                pattern: "\\.py$",
                description:
                  "The module's .py file, relative to the canvas folder; it may be outside the folder (../../shared/geo.py) but not outside the repository.",
              },
            },
          },
        },
        input: "headers",
      },
      visible: {
        schema: orVarRef("Whether the UDF is visible on the canvas. Not managed when absent.", { type: "boolean" }),
        field: "isVisible",
        keep: true,
      },
      position: {
        schema: orVarRef("The UDF's position on the canvas (0 first). Not managed when absent.", {
          type: "integer",
          minimum: 0,
        }),
        field: "position",
        keep: true,
      },
      shared_token: {
        schema: orVarRef(
          "Create a per-UDF shared token (only possible when the UDF is created). Default false.",
          { type: "boolean" },
          false,
        ),
        input: "createSharedToken",
      },
      protect: { schema: protect("UDF") },
      check: {
        schema: {
          type: "boolean",
          description:
            "false: deploy the record without its check (Python for a UDF, JSON for a widget), for code the platform runs though the local check refuses it. Plans list the records left unchecked. Default true.",
          default: true,
        },
      },
      on_drift: { schema: onDrift("UDF") },
      deploy: {
        schema: {
          enum: [...DEPLOY_MODES],
          description:
            "tested: a change of the UDF's code, entrypoint, helper modules or metadata goes first to a hidden candidate record (a UDF without a canvas), the UDF's tests run against it, and only when they pass is the live UDF updated in place (same id, same shared token); the candidate is then removed. Needs tests. direct: the live UDF is updated at once. Default direct.",
          default: "direct",
        },
      },
      tests: {
        schema: {
          type: "array",
          description:
            "Post-deploy tests that `svc-iac test` (and `apply --test`) run on the target's real-time instance against the deployed UDF. Each calls the UDF with args and expects a result matching expect, or a failed run (expect_error: true).",
          items: {
            type: "object",
            additionalProperties: false,
            properties: {
              name: {
                type: "string",
                minLength: 1,
                description: "Shown in the results; unique within this UDF. Default #<position from 1>.",
              },
              args: {
                type: "object",
                additionalProperties: true,
                description: "The UDF's parameters, e.g. {city: nyc}. Default {} (the entrypoint's defaults).",
              },
              expect: {
                description:
                  "A subset of the JSON result: a mapping matches when each of its keys is in the result with a matching value (recursively); lists, strings, numbers, booleans and null must be equal (numbers by value: 1 equals 1.0).",
              },
              expect_error: {
                type: "boolean",
                description: "true: the run must fail (the UDF raises). Give either expect or expect_error: true.",
              },
            },
            oneOf: [
              { required: ["expect"] },
              { required: ["expect_error"], properties: { expect_error: { enum: [true] } } },
            ],
          },
        },
      },
    },
  },
  pulumiHooks: true,
  importId: {
    id: "UDF_ID",
    where: "the UDF's id",
    inputs: ["canvasId", "slug", "code", "entrypoint", "headers", "metadata"],
    declareAfter:
      "`createSharedToken` is not known for a UDF made elsewhere; leave it out (a per-UDF token can only be minted at creation)",
  },
} satisfies KindDefinition;
