/** (stub: filled by the files area work) */
import type { Transport } from "./transport";

export function filesApi(_t: Transport) {
  return {};
}
