/**
 * Spec 4.5 Files, second half: signed URLs (`/files/sign`, `/files/sign-upload`,
 * `/files/sign-upload-temp`), path resolution, the S3 IAM bucket policy, and the emulator-internal
 * routes under `/_emulator` that serve signed GETs and accept signed POST uploads.
 *
 * Decisions where the spec is silent:
 * - `/files/sign` always answers a presigned emulator URL (valid one hour), for existing objects or
 *   not, as S3 does; reading a missing object through it gives 404.
 * - `/files/resolve` takes `path` (and `job_id`) as query parameters, or in a JSON body. The managed
 *   alias is `svc://<key>`: it expands to `<the environment's first bucket>/<key>`, so it needs
 *   credentials (401 without). `job_id` is accepted and does not change the answer. Resolution
 *   checks read access (404 for another team's private bucket); the object need not exist.
 * - `/files/s3-iam-policy` takes a bucket name (an `s3://` prefix is tolerated) that need not be
 *   attached yet: it is the policy a team puts on its own bucket before attaching it. The roles are
 *   `arn:aws:iam::000000000000:role/svc-job-<env id>` and `...:role/svc-realtime-<env id>`.
 * - The signed POST upload answers 204 (S3's default), refuses a wrong size with 400 and any
 *   other policy breach (signature, expiry, key, bucket, content type, extra field) with 403.
 */
import { z } from "zod";
import { notFound, invalid, badRequest, unauthorized } from "../http-error";
import { parseMultipartSync, splitForm } from "../multipart";
import { objectUrl, parseStoragePath } from "../object-store";
import { bytes, caller, noContent, parseBody, parseQuery, q, type RequestContext, type RouteDef } from "../route";
import { signGetUrl, signPostPolicy, verifyGetUrl, verifyPostPolicy } from "../signed-urls";
import {
  PathQuery,
  bucketOf,
  checkClientId,
  firstBucket,
  objects,
  pathQuery,
  readableBucket,
  requireObjectKey,
  tempPath,
  writableBucket,
} from "./files-access";

/** The emulated AWS account of the platform's roles. */
export const PLATFORM_AWS_ACCOUNT = "000000000000";

function sign(ctx: RequestContext): string {
  const { p } = pathQuery(ctx, PathQuery);
  readableBucket(ctx, p);
  requireObjectKey(p);
  return signGetUrl(ctx.env.origin, ctx.env.keys, objectUrl(p), ctx.now());
}

const SignUploadQuery = PathQuery.extend({
  content_length: q.int().min(0),
  content_type: z.string().min(1).optional(),
});

function signUpload(ctx: RequestContext) {
  const { q: query, p } = pathQuery(ctx, SignUploadQuery);
  requireObjectKey(p);
  writableBucket(ctx, p);
  return signPostPolicy(
    ctx.env.origin,
    ctx.env.keys,
    p,
    { contentLength: query.content_length, contentType: query.content_type },
    ctx.now(),
  );
}

const SignTempQuery = z.object({
  content_length: q.int().min(0),
  extension: z.string().optional(),
  content_type: z.string().min(1).optional(),
  client_id: z.string().optional(),
});

function signUploadTemp(ctx: RequestContext) {
  const query = parseQuery(ctx, SignTempQuery);
  checkClientId(ctx, query.client_id);
  const p = tempPath(ctx, query.extension);
  const signed_post = signPostPolicy(
    ctx.env.origin,
    ctx.env.keys,
    p,
    { contentLength: query.content_length, contentType: query.content_type },
    ctx.now(),
  );
  return { signed_post, storage_url: objectUrl(p) };
}

const ResolveInput = z.object({ path: z.string(), job_id: z.string().optional(), client_id: z.string().optional() });

function resolve(ctx: RequestContext): string {
  const fromBody = ctx.jsonBody !== null && typeof ctx.jsonBody === "object" && !ctx.query.has("path");
  const input = fromBody ? parseBody(ctx, ResolveInput) : parseQuery(ctx, ResolveInput);
  checkClientId(ctx, input.client_id);
  let path = input.path;
  const alias = /^svc:\/\/(.*)$/s.exec(path);
  if (alias) {
    if (!ctx.principal)
      throw unauthorized("svc:// paths name the caller's own bucket; credentials are required to resolve them");
    path = `${objectUrl(firstBucket(ctx, ctx.principal.envId))}${alias[1]}`;
  }
  const p = parseStoragePath(path, ["path"], fromBody ? "body" : "query");
  readableBucket(ctx, p);
  return objectUrl(p);
}

const IamQuery = z.object({ bucket_name: z.string() });

function iamPolicy(ctx: RequestContext) {
  const name = parseQuery(ctx, IamQuery)
    .bucket_name.replace(/^s3:\/\//, "")
    .replace(/\/+$/, "");
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) {
    throw invalid(
      "query",
      "bucket_name",
      "Not a valid S3 bucket name: 3 to 63 lowercase letters, digits, dots or hyphens",
    );
  }
  const envId = caller(ctx).envId;
  const role = (kind: string) => `arn:aws:iam::${PLATFORM_AWS_ACCOUNT}:role/svc-${kind}-${envId}`;
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "SvcExecutionEnvironmentAccess",
        Effect: "Allow",
        Principal: { AWS: [role("job"), role("realtime")] },
        Action: "s3:*",
        Resource: [`arn:aws:s3:::${name}`, `arn:aws:s3:::${name}/*`],
      },
    ],
  };
}

/** `GET /_emulator/objects?path&expires&sig`: the bytes behind a presigned GET URL. */
function serveObject(ctx: RequestContext) {
  const path = verifyGetUrl(ctx.env.keys, ctx.query, ctx.now());
  const p = parseStoragePath(path);
  if (!bucketOf(ctx, p)) throw notFound(`No object at ${path}`);
  const o = objects(ctx).read(p);
  if (!o) throw notFound(`No object at ${path}`);
  return bytes(200, o.bytes, o.contentType);
}

/** `POST /_emulator/upload/:scheme/:bucket`: a browser-style upload under a signed POST policy. */
function acceptUpload(ctx: RequestContext) {
  const { scheme, bucket } = ctx.params;
  if (scheme !== "s3" && scheme !== "gs") throw notFound(`Unknown storage scheme "${scheme}"`);
  const { fields, files } = splitForm(parseMultipartSync(ctx.rawBody, ctx.headers["content-type"]));
  const file = files.get("file");
  if (!file) throw badRequest('The upload form has no file part named "file"; it must come after the policy fields');
  const target = { scheme, bucket } as const;
  const { key, contentType } = verifyPostPolicy(
    ctx.env.keys,
    target,
    fields,
    { size: file.data.length, contentType: file.contentType },
    ctx.now(),
  );
  const p = requireObjectKey(parseStoragePath(`${scheme}://${bucket}/${key}`, ["key"], "body"), "body", ["key"]);
  if (!bucketOf(ctx, p)) throw notFound(`Bucket ${scheme}://${bucket} not found`);
  objects(ctx).write(p, Buffer.from(file.data), contentType, ctx.now());
  return noContent();
}

export const signingRoutes: RouteDef[] = [
  { method: "GET", path: "/files/sign", scope: "public_or_authorized", handler: sign },
  { method: "GET", path: "/files/sign-upload", scope: "environment", handler: signUpload },
  { method: "GET", path: "/files/sign-upload-temp", scope: "environment", handler: signUploadTemp },
  { method: "POST", path: "/files/resolve", scope: "public_or_authorized", handler: resolve },
  { method: "GET", path: "/files/s3-iam-policy", scope: "environment", handler: iamPolicy },
  { method: "GET", path: "/objects", scope: "public", host: "internal", handler: serveObject },
  {
    method: "POST",
    path: "/upload/:scheme/:bucket",
    scope: "public",
    host: "internal",
    body: "raw",
    handler: acceptUpload,
  },
];
