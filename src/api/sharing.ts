/** (stub: filled by the sharing area work) */
import type { Transport } from "./transport";

export function sharingApi(_t: Transport) {
  return {};
}
