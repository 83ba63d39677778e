/**
 * The emulator's key material: one master key (kept in the data dir, or random in memory) from
 * which the at-rest encryption key, the URL-signing key and the seed tokens are derived.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SvcError } from "../errors";

export class Keys {
  private readonly encKey: Buffer;
  private readonly signKey: Buffer;
  constructor(private readonly master: Buffer) {
    this.encKey = Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), "svc-emulator:encrypt", 32));
    this.signKey = Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), "svc-emulator:sign", 32));
  }

  /** Loads `master.key` from the data dir, creating it (mode 0600) on first start. */
  static forDataDir(dataDir: string | undefined): Keys {
    if (!dataDir) return new Keys(randomBytes(32));
    const file = join(dataDir, "master.key");
    if (existsSync(file)) return new Keys(Buffer.from(readFileSync(file, "utf8").trim(), "base64"));
    const key = randomBytes(32);
    writeFileSync(file, key.toString("base64") + "\n", { mode: 0o600 });
    return new Keys(key);
  }

  /** AES-256-GCM: `v1:<iv>:<tag>:<ciphertext>`, base64 parts. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.encKey, iv);
    const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
    return ["v1", iv.toString("base64"), c.getAuthTag().toString("base64"), ct.toString("base64")].join(":");
  }

  decrypt(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(":");
    if (v !== "v1") throw new SvcError("ciphertext_invalid", "unknown ciphertext version");
    const d = createDecipheriv("aes-256-gcm", this.encKey, Buffer.from(iv, "base64"));
    d.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([d.update(Buffer.from(ct, "base64")), d.final()]).toString("utf8");
  }

  /** HMAC-SHA256 signature (base64url) of a canonical string. */
  sign(data: string): string {
    return createHmac("sha256", this.signKey).update(data).digest("base64url");
  }

  verify(data: string, signature: string): boolean {
    const want = Buffer.from(this.sign(data));
    const got = Buffer.from(signature);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /** A stable token for a seed label, so restarts with the same data dir print the same tokens. */
  seedToken(prefix: string, label: string): string {
    return prefix + createHmac("sha256", this.master).update(`seed-token:${label}`).digest("base64url").slice(0, 32);
  }
}

/** Tokens are stored only as SHA-256 hashes. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function randomToken(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString("base64url");
}
