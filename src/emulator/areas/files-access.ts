/**
 * Who may touch which bucket (spec 4.5), shared by the files routes:
 * - an environment reads and writes its own buckets;
 * - a bucket with `public_read = 1` is readable by anyone, credentials or not, but writable only
 *   by its own environment (403 for others: the bucket is visible, so hiding it would be a lie);
 * - the files of a public dataset (spec 4.11 rule 5: "publicly readable files") are readable by
 *   anyone, in whatever bucket they live;
 * - any other bucket, and an unknown one, is invisible: 404.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { badRequest, forbidden, invalid, notFound } from "../http-error";
import { insidePublicDataset } from "../datasets/dataset-catalog";
import { type StoragePath, ObjectStore, bucketUrl, isFolderKey, objectUrl, parseStoragePath } from "../object-store";
import { caller, parseQuery, type RequestContext } from "../route";

export interface BucketRow {
  url: string;
  env_id: string;
  public_read: number;
}

export const objects = (ctx: RequestContext) => new ObjectStore(ctx.env.objectsDir, ctx.store);

/** The bucket row for a parsed path, or undefined. */
export function bucketOf(ctx: RequestContext, p: Pick<StoragePath, "scheme" | "bucket">): BucketRow | undefined {
  return ctx.store.get<BucketRow>("SELECT url, env_id, public_read FROM buckets WHERE url = ?", bucketUrl(p));
}

function invisible(ctx: RequestContext, p: StoragePath): never {
  if (!ctx.principal) throw notFound(`Bucket ${bucketUrl(p)} not found, or not readable without credentials`);
  throw notFound(`Bucket ${bucketUrl(p)} not found`);
}

/** The bucket when the caller may read it (own or public, or the path lies in a public dataset), else 404. */
export function readableBucket(ctx: RequestContext, p: StoragePath): BucketRow {
  const b = bucketOf(ctx, p);
  if (!b) invisible(ctx, p);
  if (b.public_read === 1 || (ctx.principal && ctx.principal.envId === b.env_id)) return b;
  if (insidePublicDataset(ctx.store, objectUrl(p))) return b;
  invisible(ctx, p);
}

/** The bucket when it belongs to the caller's environment; 403 for a public bucket of another team, else 404. */
export function writableBucket(ctx: RequestContext, p: StoragePath): BucketRow {
  const b = readableBucket(ctx, p);
  if (!ctx.principal || ctx.principal.envId !== b.env_id) {
    throw forbidden(`Bucket ${bucketUrl(p)} is publicly readable but belongs to another team; it cannot be written to`);
  }
  return b;
}

/** The caller's first attached bucket (seed order), for temporary files and the `svc://` alias. */
export function firstBucket(ctx: RequestContext, envId: string): StoragePath {
  const b = ctx.store.get<{ url: string }>("SELECT url FROM buckets WHERE env_id = ? ORDER BY rowid LIMIT 1", envId);
  if (!b) throw badRequest("This execution environment has no attached bucket");
  return parseStoragePath(`${b.url}/`);
}

/**
 * Checks the optional `client_id` environment context: when a caller with credentials names a
 * real-time instance, it must belong to the caller's environment (404 otherwise).
 */
export function checkClientId(ctx: RequestContext, clientId: string | undefined): void {
  if (clientId === undefined || !ctx.principal) return;
  const row = ctx.store.get(
    "SELECT client_id FROM realtime_instances WHERE client_id = ? AND env_id = ?",
    clientId,
    ctx.principal.envId,
  );
  if (!row) throw notFound(`Real-time instance "${clientId}" not found in this execution environment`);
}

/** An object path (not a folder), or 422 at `loc`. */
export function requireObjectKey(p: StoragePath, where = "query", loc: (string | number)[] = ["path"]): StoragePath {
  if (isFolderKey(p.key))
    throw invalid(where, loc, "The path must name an object, not a folder (it ends with / or names only the bucket)");
  return p;
}

/** `path` (required) and `client_id` (optional) query parameters, checked and parsed. */
export const PathQuery = z.object({ path: z.string(), client_id: z.string().optional() });

export function pathQuery<S extends z.ZodObject>(ctx: RequestContext, schema: S): { q: z.infer<S>; p: StoragePath } {
  const q = parseQuery(ctx, schema) as z.infer<S> & { path?: string; client_id?: string };
  const p = parseStoragePath(q.path);
  checkClientId(ctx, q.client_id);
  return { q, p };
}

/** An optional file extension: letters and digits, a leading dot tolerated; 422 otherwise. */
export function extensionOf(ext: string | undefined): string {
  if (ext === undefined || ext === "") return "";
  const e = ext.replace(/^\./, "");
  if (!/^[A-Za-z0-9]{1,16}$/.test(e))
    throw invalid("query", "extension", "The extension must be 1 to 16 letters or digits, such as parquet or csv");
  return `.${e}`;
}

/** `<first bucket>/tmp/<uuid><.ext>`: the scratch path of upload-temp and sign-upload-temp. */
export function tempPath(ctx: RequestContext, extension: string | undefined): StoragePath {
  const ext = extensionOf(extension);
  const root = firstBucket(ctx, caller(ctx).envId);
  return { ...root, key: `tmp/${randomUUID()}${ext}` };
}
