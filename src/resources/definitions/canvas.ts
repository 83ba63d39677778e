/** The Canvas kind's fields: its Pulumi arguments and outputs (`src/provider/canvas.ts`). */
import { ACCESS_SCOPE, type KindDefinition } from "./kind-definition";

export const canvasDefinition: KindDefinition = {
  kind: "Canvas",
  description: "A canvas: a group of UDFs with a sharing level. Created by name, or adopted when a canvas of that name exists. Updates never touch its UDFs (manage them with `Udf`).",
  inputs: {
    name: { type: "string", description: "The canvas name, unique in the team: letters, digits and underscores. Renaming updates in place.", required: true, output: "always" },
    accessScope: { type: ACCESS_SCOPE, description: "Who may use the canvas's shared links: the team, or anyone. On a shared canvas a change needs a new share token (see `CanvasShare`).", default: "team", output: "always" },
    allowPublicRead: { type: "boolean", description: "Whether anyone may read the canvas.", default: false, output: "always" },
    passcode: { type: "string", description: "An extra gate for shared links (`Authorization: Svc-Canvas-Passcode`). Secret: kept in state as a fingerprint only.", secret: true },
    dashboardBody: { type: "string", description: "The dashboard layout." },
    previewImageUrl: { type: "string", description: "Thumbnail URL." },
  },
  outputs: {
    username: { type: "string", description: "The owner's handle." },
    lastUpdated: { type: "string", description: "When the canvas last changed (ISO 8601).", required: true },
    passcodeFingerprint: { type: "string", description: "A hash of the passcode (never the passcode); a secret output.", secret: true },
  },
};
