/** The Canvas kind's fields: its Pulumi arguments and outputs (`src/provider/canvas.ts`). */
import { ACCESS_SCOPE, type KindDefinition } from "../kind-definition";
import { canvasShareRepository } from "../canvas-share/definition";
import { onDrift, orVarRef, protect, repositoryProperties } from "../repository-keys";

export const canvasDefinition = {
  kind: "Canvas",
  description:
    "A canvas: a group of UDFs with a sharing level. Created by name, or adopted when a canvas of that name exists. Updates never touch its UDFs (manage them with `Udf`).",
  example: 'const canvas = new svc.Canvas("sales", { name: "sales_dashboard" });',
  inputs: {
    name: {
      type: "string",
      description: "The canvas name, unique in the team: letters, digits and underscores. Renaming updates in place.",
      required: true,
      output: "always",
      example: '"sales_dashboard"',
      check: {
        message: "A canvas name is a string of letters, digits and underscores.",
        pattern: {
          value: /^[A-Za-z0-9_]+$/,
          message: 'A canvas name uses only letters, digits and underscores ([A-Za-z0-9_]), e.g. "sales_dashboard".',
        },
      },
    },
    accessScope: {
      type: ACCESS_SCOPE,
      description:
        "Who may use the canvas's shared links: the team, or anyone. On a shared canvas a change needs a new share token (see `CanvasShare`).",
      default: "team",
      output: "always",
      check: { message: 'accessScope is "team" or "public".' },
    },
    allowPublicRead: {
      type: "boolean",
      description: "Whether anyone may read the canvas.",
      default: false,
      output: "always",
      check: { message: "allowPublicRead is true or false." },
    },
    passcode: {
      type: "string",
      description:
        "An extra gate for shared links (`Authorization: Svc-Canvas-Passcode`). Secret: kept in state as a fingerprint only.",
      secret: true,
      defaultDoc: "none",
      example: 'pulumi.secret("correct-horse")',
      check: {
        message: "passcode is a string.",
        minLength: { value: 1, message: "A passcode must not be empty; omit it for none." },
      },
    },
    dashboardBody: {
      type: "string",
      description: "The dashboard layout.",
      defaultDoc: "none",
      check: { message: "dashboardBody is a string." },
    },
    previewImageUrl: {
      type: "string",
      description: "Thumbnail URL.",
      defaultDoc: "none",
      example: '"https://example.com/preview.png"',
      check: { message: "previewImageUrl is an http(s) URL.", url: true },
    },
  },
  outputs: {
    username: { type: "string", description: "The owner's handle." },
    lastUpdated: { type: "string", description: "When the canvas last changed (ISO 8601).", required: true },
    passcodeFingerprint: {
      type: "string",
      description: "A hash of the passcode (never the passcode); a secret output.",
      secret: true,
      classMember: false,
    },
  },
  repository: {
    file: {
      schema: "canvas",
      title: "canvases/<name>/canvas.yaml",
      description:
        "A canvas's settings and sharing. The canvas name is its folder name ([A-Za-z0-9_]+). An empty file takes the defaults.",
    },
    keys: {
      access_scope: {
        schema: orVarRef("Who can see the canvas. Default team.", { enum: ["team", "public"] }, "team"),
        input: "accessScope",
        keep: true,
      },
      allow_public_read: {
        schema: orVarRef("Let anyone read the canvas. Default false.", { type: "boolean" }, false),
        input: "allowPublicRead",
        keep: true,
      },
      passcode: {
        schema: {
          type: "string",
          pattern: "^\\$\\{env\\.[A-Za-z_][A-Za-z0-9_]*\\}$",
          description:
            "An extra gate for publicly shared canvases. A secret: exactly one ${env.NAME} reference. Secret values come only from the environment; a literal is an error.",
        },
        input: "passcode",
      },
      dashboard_body: {
        schema: { type: "string", description: "The canvas's dashboard content." },
        input: "dashboardBody",
        keep: true,
      },
      preview_image_url: {
        schema: { type: "string", description: "An http(s) URL of the canvas's preview image." },
        input: "previewImageUrl",
        keep: true,
      },
      share: {
        schema: {
          type: ["object", "null"],
          additionalProperties: false,
          description:
            "Share the canvas on a real-time instance. Removing the block unshares the canvas on the next apply with prune (--prune or prune: true); without prune the share is kept and listed.",
          properties: repositoryProperties(canvasShareRepository),
        },
      },
      protect: { schema: protect("canvas") },
      on_drift: { schema: onDrift("canvas", " Also the default of the canvas's share and UDFs.") },
    },
  },
  importId: {
    id: "CANVAS_ID",
    where: "the canvas's id (`svc-iac show`, or `GET /collection/exec-env`)",
    inputs: ["name", "accessScope", "allowPublicRead", "dashboardBody", "previewImageUrl"],
    declareAfter:
      "`passcode`, when the canvas has one: it is compared by fingerprint, so the same passcode is no change",
  },
} satisfies KindDefinition;
