/** (stub: filled by the udfs area work) */
import type { Transport } from "./transport";

export function udfsApi(_t: Transport) {
  return {};
}
