/**
 * Fingerprints of secret values: enough to tell that a value changed, never enough to show it.
 * Salted with the field's identity so equal secrets in different places do not look alike.
 *
 * A fingerprint anyone may see is keyed: HMAC-SHA-256 under the project's fingerprint key (kept in
 * the state backend, see `src/reconcile/state/fingerprint-key-file.ts`), so it cannot be computed
 * from a guessed value (`hmac-sha256:<hex>`). Without a key (the Pulumi provider, which keeps its
 * fingerprints in secret outputs) the fingerprint is a plain salted hash (`sha256:<hex>`), the form
 * inventories written before keys existed also hold; it is compared, never shown.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { SvcError } from "../errors";

/** Prefix of a fingerprint under a project key: the only form renderers show. */
export const KEYED_PREFIX = "hmac-sha256:";
/** Prefix of a fingerprint under a key that lives for one run only: compared, never shown. */
export const RUN_KEY_PREFIX = "hmac-sha256-run:";
/** Prefix of a key-less fingerprint (Pulumi state, inventories of older versions). */
export const UNKEYED_PREFIX = "sha256:";

/**
 * The key of a project's fingerprints. Holds the secret in a private field and prints as
 * `[fingerprint key]`, so no log, error or JSON document can carry it by accident.
 */
export class FingerprintKey {
  readonly #secret: Buffer;
  /** False for a key made for one run (the state could not hold one): its fingerprints are not shown. */
  readonly persistent: boolean;

  constructor(secret: Buffer, persistent = true) {
    if (secret.length < 32)
      throw new SvcError("fingerprint_key_invalid", `A fingerprint key has at least 32 bytes; found ${secret.length}.`);
    this.#secret = Buffer.from(secret);
    this.persistent = persistent;
  }

  /** A new random key (32 bytes). */
  static generate(persistent = true): FingerprintKey {
    return new FingerprintKey(randomBytes(32), persistent);
  }

  /** HMAC-SHA-256 of `data` under the key, hex. */
  hmac(data: string): string {
    return createHmac("sha256", this.#secret).update(data).digest("hex");
  }

  /** The key's bytes, for the state backend that stores it; nothing else reads them. */
  exportSecret(): Buffer {
    return Buffer.from(this.#secret);
  }

  toJSON(): string {
    return "[fingerprint key]";
  }

  toString(): string {
    return "[fingerprint key]";
  }

  [inspect.custom](): string {
    return "[fingerprint key]";
  }
}

const material = (value: string, salt: string) => `svc-iac\0${salt}\0${value}`;

/** The fingerprint of `value` in the place named by `salt`: keyed when `key` is given. */
export function fingerprint(value: string, salt: string, key?: FingerprintKey): string {
  if (!key) return UNKEYED_PREFIX + createHash("sha256").update(material(value, salt)).digest("hex").slice(0, 12);
  return (key.persistent ? KEYED_PREFIX : RUN_KEY_PREFIX) + key.hmac(material(value, salt)).slice(0, 12);
}

/** True for a key-less fingerprint (what inventories of older versions hold). */
export function isUnkeyedFingerprint(recorded: unknown): recorded is string {
  return typeof recorded === "string" && recorded.startsWith(UNKEYED_PREFIX);
}

/**
 * Whether `recorded` (a fingerprint kept in the inventory) is the fingerprint of `value`: keyed
 * under `key`, or, for an inventory written before keys, in the key-less form (checked against the
 * value itself, so migrating never reads as a change).
 */
export function matchesFingerprint(recorded: unknown, value: string, salt: string, key?: FingerprintKey): boolean {
  if (typeof recorded !== "string") return false;
  if (isUnkeyedFingerprint(recorded)) return recorded === fingerprint(value, salt);
  return !!key && recorded === fingerprint(value, salt, key);
}
