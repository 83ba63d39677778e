/** (stub: filled by the session-tokens area work) */
import type { Transport } from "./transport";

export function sessionTokensApi(_t: Transport) {
  return {};
}
