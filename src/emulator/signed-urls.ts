/**
 * The emulator's own signed storage URLs (spec 4.5: "all signatures are valid for one hour"):
 *
 * - presigned GET: `${origin}/_emulator/objects?path=<storage url>&expires=<epoch seconds>&sig=<hmac>`,
 *   served by the internal `GET /objects` route;
 * - POST policy (like S3's browser uploads): `{url: ${origin}/_emulator/upload/<scheme>/<bucket>,
 *   fields: {key, Content-Type?, policy, signature}}`, where `policy` is base64 JSON
 *   `{expiration, conditions}` and the internal `POST /upload/:scheme/:bucket` route enforces it.
 *
 * Signatures are HMAC-SHA256 with the emulator's signing key (`Keys.sign`), so only this emulator
 * (or one restarted on the same data dir) accepts them.
 */
import { badRequest, forbidden } from "./http-error";
import type { Keys } from "./keys";
import { type StoragePath, objectUrl } from "./object-store";

/** One hour, in seconds. */
export const SIGNATURE_TTL_S = 3600;

const getCanonical = (path: string, expires: number) => `GET\n${path}\n${expires}`;
const policyCanonical = (policy: string) => `POST-POLICY\n${policy}`;

/** A presigned GET URL for a storage path, valid one hour from `now`. */
export function signGetUrl(origin: string, keys: Keys, path: string, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + SIGNATURE_TTL_S;
  const q = new URLSearchParams({ path, expires: String(expires), sig: keys.sign(getCanonical(path, expires)) });
  return `${origin}/_emulator/objects?${q.toString()}`;
}

/** Checks a presigned GET URL's query; returns the storage path it grants, or throws 403. */
export function verifyGetUrl(keys: Keys, query: URLSearchParams, now: Date): string {
  const path = query.get("path");
  const expiresText = query.get("expires");
  const sig = query.get("sig");
  if (!path || !expiresText || !sig)
    throw forbidden("The URL is not signed: it needs path, expires and sig query parameters");
  const expires = Number(expiresText);
  if (!/^\d+$/.test(expiresText) || !keys.verify(getCanonical(path, expires), sig)) {
    throw forbidden("The URL's signature does not match: the URL was altered or not issued by this emulator");
  }
  if (now.getTime() > expires * 1000)
    throw forbidden(`The signed URL expired at ${new Date(expires * 1000).toISOString()}`);
  return path;
}

export interface SignedPost {
  url: string;
  fields: Record<string, string>;
}

type Condition = Record<string, string> | [string, string | number, string | number];

interface Policy {
  expiration: string;
  conditions: Condition[];
}

/**
 * A POST policy for one object: the exact `contentLength` is pinned (`content-length-range` with
 * equal bounds), and so is `contentType` when given. Valid one hour from `now`.
 */
export function signPostPolicy(
  origin: string,
  keys: Keys,
  target: StoragePath,
  opts: { contentLength: number; contentType?: string },
  now: Date,
): SignedPost {
  const conditions: Condition[] = [
    { bucket: target.bucket },
    { key: target.key },
    ["content-length-range", opts.contentLength, opts.contentLength],
  ];
  if (opts.contentType !== undefined) conditions.push({ "Content-Type": opts.contentType });
  const policy: Policy = { expiration: new Date(now.getTime() + SIGNATURE_TTL_S * 1000).toISOString(), conditions };
  const encoded = Buffer.from(JSON.stringify(policy)).toString("base64");
  const fields: Record<string, string> = { key: target.key };
  if (opts.contentType !== undefined) fields["Content-Type"] = opts.contentType;
  fields.policy = encoded;
  fields.signature = keys.sign(policyCanonical(encoded));
  return { url: `${origin}/_emulator/upload/${target.scheme}/${encodeURIComponent(target.bucket)}`, fields };
}

/**
 * Checks a POST upload against its policy: signature and expiry (403), every condition on the
 * bucket, key and fields (403), and the exact file size (400). Returns the object key and the
 * content type to store.
 */
export function verifyPostPolicy(
  keys: Keys,
  bucket: Pick<StoragePath, "scheme" | "bucket">,
  fields: Record<string, string>,
  file: { size: number; contentType: string },
  now: Date,
): { key: string; contentType: string } {
  const { policy: encoded, signature } = fields;
  if (!encoded || !signature) throw forbidden("The upload form lacks the policy or signature field");
  if (!keys.verify(policyCanonical(encoded), signature)) {
    throw forbidden("The policy signature does not match: the policy was altered or not issued by this emulator");
  }
  let policy: Policy;
  try {
    policy = JSON.parse(Buffer.from(encoded, "base64").toString("utf8")) as Policy;
  } catch {
    throw forbidden("The policy is not valid base64-encoded JSON");
  }
  const expiration = Date.parse(policy.expiration);
  if (!(now.getTime() <= expiration)) throw forbidden(`The upload policy expired at ${policy.expiration}`);

  const covered = new Set(["policy", "signature", "file"]);
  for (const c of policy.conditions) {
    if (Array.isArray(c)) {
      const [op, a, b] = c;
      if (op === "content-length-range") {
        if (file.size < Number(a) || file.size > Number(b)) {
          const allowed = a === b ? `exactly ${a}` : `${a} to ${b}`;
          throw badRequest(`The file is ${file.size} bytes; the signed policy allows ${allowed} bytes`);
        }
      } else throw forbidden(`The policy holds an unknown condition "${op}"`);
      continue;
    }
    for (const [name, want] of Object.entries(c)) {
      covered.add(name);
      const got = name === "bucket" ? bucket.bucket : fields[name];
      if (got !== want) {
        throw forbidden(
          `Invalid according to policy: the ${name} must be "${want}" but is ${got === undefined ? "missing" : `"${got}"`}`,
        );
      }
    }
  }
  for (const name of Object.keys(fields)) {
    if (!covered.has(name))
      throw forbidden(`Invalid according to policy: the field "${name}" is not allowed by the policy`);
  }
  return { key: fields.key, contentType: fields["Content-Type"] ?? (file.contentType || "application/octet-stream") };
}

/** The storage URL a POST upload writes. */
export const postTarget = (bucket: Pick<StoragePath, "scheme" | "bucket">, key: string) =>
  objectUrl({ ...bucket, key });
