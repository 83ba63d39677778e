/** (stub: filled by the jobs area work) */
import type { Transport } from "./transport";

export function jobsApi(_t: Transport) {
  return {};
}
