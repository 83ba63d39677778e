/** (stub: filled by the environment area work) */
import type { Transport } from "./transport";

export function environmentApi(_t: Transport) {
  return {};
}
