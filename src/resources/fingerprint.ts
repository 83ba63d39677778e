/**
 * Fingerprints of secret values: enough to tell that a value changed, never enough to show it.
 * Salted with the field's identity so equal secrets in different places do not look alike.
 */
import { createHash } from "node:crypto";

export function fingerprint(value: string, salt: string): string {
  return "sha256:" + createHash("sha256").update(`svc-iac\0${salt}\0${value}`).digest("hex").slice(0, 12);
}
