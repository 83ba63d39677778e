/** (stub: filled by the canvases area work) */
import type { Area } from "../area";

export const canvasesArea: Area = { name: "canvases", routes: [] };
