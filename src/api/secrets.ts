/** (stub: filled by the secrets area work) */
import type { Transport } from "./transport";

export function secretsApi(_t: Transport) {
  return {};
}
