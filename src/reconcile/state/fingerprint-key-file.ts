/**
 * The project's fingerprint key, kept in the state backend beside the inventory
 * (`fingerprint-key.json`): 32 random bytes, made on first use, under which every secret
 * fingerprint svc-iac shows or keeps is an HMAC-SHA-256 (see `src/kinds/fingerprint.ts`). It
 * is never printed: the {@link FingerprintKey} holding it prints as `[fingerprint key]`.
 */
import { FingerprintKey } from "../../kinds/fingerprint";
import { SvcError } from "../../errors";

export const FINGERPRINT_KEY_FILE = "fingerprint-key.json";
const VERSION = 1;
const ALGORITHM = "HMAC-SHA-256";

/** The file's text for `key` (deterministic but for the key and the time). */
export function serializeFingerprintKey(key: FingerprintKey, now: Date): string {
  return (
    JSON.stringify(
      {
        version: VERSION,
        algorithm: ALGORITHM,
        createdAt: now.toISOString(),
        key: key.exportSecret().toString("base64"),
      },
      null,
      2,
    ) + "\n"
  );
}

/** Reads a key file; the error names the file and what was expected, never the content. */
export function parseFingerprintKey(text: string, file: string): FingerprintKey {
  let doc: { version?: unknown; algorithm?: unknown; key?: unknown };
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SvcError(
      "fingerprint_key_invalid",
      `${file} is not a svc-iac fingerprint key: it is not JSON. Delete it to make a new key (secret fingerprints then change once).`,
    );
  }
  const bytes = typeof doc?.key === "string" ? Buffer.from(doc.key, "base64") : Buffer.alloc(0);
  if (doc?.version !== VERSION || doc.algorithm !== ALGORITHM || bytes.length < 32) {
    throw new SvcError(
      "fingerprint_key_invalid",
      `${file} is not a svc-iac fingerprint key: expected version ${VERSION}, algorithm "${ALGORITHM}" and a base64 key of at least 32 bytes. Delete it to make a new key (secret fingerprints then change once).`,
    );
  }
  return new FingerprintKey(bytes);
}

/** Where a backend keeps the key file. */
export interface KeyStore {
  /** For messages: `.svc-iac/state/listings/default/fingerprint-key.json`. */
  file: string;
  /** The file's text, or undefined when there is none. */
  read(): Promise<string | undefined>;
  /** Writes `text` unless a file exists (best effort where the store cannot tell). */
  create(text: string): Promise<void>;
}

/**
 * The key in `store`; made and written when there is none and `create` is set (undefined when
 * there is none and `create` is not). The key is read back after writing, so two runs making one
 * at once end up with the same key: the one that landed.
 */
export async function loadFingerprintKey(
  store: KeyStore,
  opts: { create: boolean; now?: () => Date },
): Promise<FingerprintKey | undefined> {
  const text = await store.read();
  if (text !== undefined) return parseFingerprintKey(text, store.file);
  if (!opts.create) return undefined;
  await store.create(serializeFingerprintKey(FingerprintKey.generate(), (opts.now ?? (() => new Date()))()));
  const written = await store.read();
  if (written === undefined)
    throw new SvcError(
      "fingerprint_key_invalid",
      `The fingerprint key ${store.file} disappeared right after it was written. Run again.`,
    );
  return parseFingerprintKey(written, store.file);
}
