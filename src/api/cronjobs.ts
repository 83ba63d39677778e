/** (stub: filled by the cronjobs area work) */
import type { Transport } from "./transport";

export function cronjobsApi(_t: Transport) {
  return {};
}
