/** (stub: filled by the datasets area work) */
import type { Transport } from "./transport";

export function datasetsApi(_t: Transport) {
  return {};
}
