/** The CanvasShare kind's fields: its Pulumi arguments and outputs (`src/provider/canvas-share.ts`). */
import { ACCESS_SCOPE, type KindDefinition } from "../kind-definition";
import { protect, ROTATE_EVERY, type RepositoryDefinition } from "../repository-keys";

/** A share is declared in its canvas's canvas.yaml, under `share:`. */
export const canvasShareRepository: RepositoryDefinition = {
  keys: {
    client_id: {
      schema: {
        type: "string",
        description:
          "The client_id of one of your team's real-time instances. Default: the instance with the highest preference_rank.",
      },
      input: "clientId",
    },
    rotation: {
      schema: {
        type: ["string", "number"],
        description:
          "A trigger value: changing it rotates the share token (old links and session tokens stop working).",
      },
      input: "rotation",
    },
    rotate_every: { schema: ROTATE_EVERY },
    protect: { schema: protect("share (its token): unsharing it") },
  },
};

export const canvasShareDefinition = {
  kind: "CanvasShare",
  description:
    "A canvas's share: its canvas token (`shareToken`) and real-time instance. Adopts an existing share; delete unshares (every old link and session token stops working).",
  example: 'const share = new svc.CanvasShare("share", { canvasId: canvas.id, accessScope: canvas.accessScope });',
  inputs: {
    canvasId: {
      type: "string",
      description: "The canvas to share. Changing it shares the other canvas (a replacement) and unshares this one.",
      required: true,
      replaceOnChanges: true,
      output: "always",
      example: "canvas.id",
      check: {
        message: "canvasId is the id of the canvas to share (e.g. canvas.id).",
        minLength: {
          value: 1,
          message: "canvasId must not be empty: give the id of the canvas to share (e.g. canvas.id).",
        },
      },
    },
    clientId: {
      type: "string",
      description:
        "The real-time instance the shared UDFs run on. Changing it re-shares on the new instance and keeps the token.",
      defaultDoc: "the available instance with the highest `preference_rank`",
      example: '"rt-demo-primary"',
      check: {
        message: "clientId is the client_id of one of your team's real-time instances.",
        minLength: {
          value: 1,
          message: "clientId must not be empty; omit it to use the preferred real-time instance.",
        },
      },
    },
    rotation: {
      type: { oneOf: ["string", "number"] },
      description:
        "Any value; changing it rotates the share token: the old token, its links and its session tokens stop working at once.",
      defaultDoc: "none",
      example: '"2026-06"',
      check: { message: "rotation is any string or number; changing it rotates the share token." },
    },
    accessScope: {
      type: ACCESS_SCOPE,
      description:
        "The canvas's access scope, normally `canvas.accessScope`. A token keeps the scope it was minted under, so when this differs from it the diff says a rotation is required and the update rotates the token (old links and session tokens stop working).",
      defaultDoc: "none (scope changes are not followed)",
      example: "canvas.accessScope",
      check: { message: 'accessScope is "team" or "public" (the canvas\'s access scope).' },
    },
  },
  outputs: {
    shareToken: { type: "string", description: "The canvas token (`fc_...`). Secret.", required: true, secret: true },
    shareClientId: { type: "string", description: "The real-time instance the shared UDFs run on." },
    mintedScope: {
      type: ACCESS_SCOPE,
      description: "The canvas's access scope when the current token was minted.",
      required: true,
    },
  },
  repository: canvasShareRepository,
  importId: {
    id: "CANVAS_ID",
    where: "the id of the shared canvas (a canvas has at most one share)",
    inputs: ["canvasId"],
    declareAfter:
      "`rotation` is a trigger the platform does not store: leave it out at import; setting it later rotates the token",
  },
} satisfies KindDefinition;
