/** (stub: filled by the realtime area work) */
import type { Transport } from "./transport";

export function realtimeApi(_t: Transport) {
  return {};
}
