/** (stub: filled by the canvases area work) */
import type { Transport } from "./transport";

export function canvasesApi(_t: Transport) {
  return {};
}
