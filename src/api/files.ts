/**
 * Spec 4.5: cloud object storage. Paths are `s3://bucket/key` or `gs://bucket/key`; a path ending
 * with `/` (or naming only the bucket) is a folder. Every call may fail with an {@link ApiError}:
 * 422 for a path without `s3://`/`gs://` or other invalid input, 401 without credentials on
 * environment-scoped calls, 404 for an unknown bucket or another team's private bucket (also for a
 * client_id outside the caller's environment).
 */
import { z } from "zod";
import { ApiError, codeForStatus, parseErrorDetail } from "./errors";
import { FileEntry } from "./schemas";
import { parseBody, type Transport } from "./transport";

/** A POST policy: send `fields` then the file (field `file`) as multipart form data to `url`. */
export const SignedPost = z.looseObject({ url: z.string(), fields: z.record(z.string(), z.string()) });
export type SignedPost = z.infer<typeof SignedPost>;

export const SignedTempUpload = z.looseObject({ signed_post: SignedPost, storage_url: z.string() });
export type SignedTempUpload = z.infer<typeof SignedTempUpload>;

/** An IAM bucket policy document (spec: grants the environment's job and real-time roles all actions). */
export const BucketPolicy = z.looseObject({
  Version: z.string(),
  Statement: z.array(
    z.looseObject({
      Sid: z.string().optional(),
      Effect: z.string(),
      Principal: z.looseObject({ AWS: z.union([z.string(), z.array(z.string())]) }),
      Action: z.union([z.string(), z.array(z.string())]),
      Resource: z.union([z.string(), z.array(z.string())]),
    }),
  ),
});
export type BucketPolicy = z.infer<typeof BucketPolicy>;

export interface ContextOptions {
  /** Real-time instance giving the environment context; must belong to the caller's environment. */
  clientId?: string;
}

export type Bytes = Uint8Array | Buffer;

/** Fetches an absolute URL (a signed URL) without the client's credentials; errors become ApiErrors without the query (which holds the signature). */
/** A download stopped at its byte limit (`maxBytes`): code `unexpected_response`. */
export class AnswerTooLarge extends ApiError {}

/** The body of `res`, read as it streams; more than `maxBytes` stops the read (the rest is never downloaded). */
async function boundedBody(res: Response, method: string, path: string, maxBytes: number | undefined): Promise<Buffer> {
  if (maxBytes === undefined || !res.body) return Buffer.from(await res.arrayBuffer());
  const tooLarge = () =>
    new AnswerTooLarge({
      code: "unexpected_response",
      status: res.status,
      method,
      path,
      message: `the answer is larger than the limit of ${maxBytes} bytes for it`,
    });
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await res.body.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function fetchSigned(
  t: Transport,
  method: string,
  url: string,
  body?: FormData,
  maxBytes?: number,
): Promise<Buffer> {
  const u = new URL(url);
  const timeoutMs = t.options.timeoutMs ?? 30_000;
  let res: Response;
  try {
    res = await fetch(url, { method, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const timedOut = (err as { name?: string })?.name === "TimeoutError";
    throw new ApiError({
      code: timedOut ? "timeout" : "network",
      method,
      path: u.pathname,
      message: timedOut ? `no answer within ${timeoutMs} ms` : `connection failed (${(err as Error)?.message})`,
      cause: err,
    });
  }
  if (res.status >= 200 && res.status < 300) return boundedBody(res, method, u.pathname, maxBytes);
  const buf = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  throw new ApiError({
    code: codeForStatus(res.status),
    status: res.status,
    method,
    path: u.pathname,
    detail: parseErrorDetail(parseBody({ status: res.status, headers, body: buf })),
    secrets: u.searchParams.getAll("sig"),
  });
}

export function filesApi(t: Transport) {
  const api = {
    /**
     * `GET /files/list`: full URLs (`s3://bucket/a/b.txt`) of every object under the folder `path`,
     * recursively and sorted; `[path]` when `path` names an object; `[]` when nothing is there.
     * Public buckets need no credentials. 404 for another team's private bucket or an unknown one.
     */
    list: (path: string, opts: ContextOptions = {}) =>
      t.json("GET /files/list", { query: { path, client_id: opts.clientId } }, z.array(z.string())),

    /**
     * `GET /files/list-details`: one level of the folder `path` as file entries (spec 2.12);
     * sub-folders come as `is_directory: true` entries whose url ends with `/`. Errors as {@link list}.
     */
    listDetails: (path: string, opts: ContextOptions = {}) =>
      t.json("GET /files/list-details", { query: { path, client_id: opts.clientId } }, z.array(FileEntry)),

    /**
     * `GET /files/get`: the presigned URL (valid one hour) the platform redirects to (307); the
     * redirect is not followed. 404 when there is no object at `path` or the bucket is not readable.
     */
    getLocation: async (path: string, opts: ContextOptions = {}): Promise<string> => {
      const res = await t.send("GET /files/get", { query: { path, client_id: opts.clientId }, okStatuses: [307] });
      const location = res.headers.location;
      if (res.status !== 307 || !location) {
        throw new ApiError({
          code: "unexpected_response",
          status: res.status,
          method: "GET",
          path: "/files/get",
          message: "expected a 307 redirect with a location header",
        });
      }
      return location;
    },

    /**
     * Reads an object's bytes: {@link getLocation}, then a plain GET of the presigned URL without
     * credentials. Errors as {@link getLocation}; 403 from the storage URL when it expired.
     */
    download: async (path: string, opts: ContextOptions & { maxBytes?: number } = {}): Promise<Buffer> =>
      fetchSigned(t, "GET", await api.getLocation(path, opts), undefined, opts.maxBytes),

    /** Reads the bytes behind a signed URL (from {@link getLocation} or {@link sign}); 403 when expired or altered, 404 when the object is gone. */
    fetchSigned: (url: string): Promise<Buffer> => fetchSigned(t, "GET", url),

    /**
     * `PUT /files/upload`: writes `bytes` at the object path; returns its URL. 403 for a public
     * bucket of another team, 404 for a bucket that is not visible, 422 for a folder path.
     */
    upload: (path: string, bytes: Bytes, opts: ContextOptions & { contentType?: string } = {}) =>
      t.json(
        "PUT /files/upload",
        {
          query: { path, content_type: opts.contentType, client_id: opts.clientId },
          body: { bytes, contentType: opts.contentType },
        },
        z.string(),
      ),

    /**
     * `POST /files/upload-temp`: writes `bytes` at a server-chosen scratch path
     * (`<first bucket>/tmp/<uuid>.<extension>`) and returns it. 422 for a bad extension.
     */
    uploadTemp: (bytes: Bytes, opts: ContextOptions & { extension?: string; contentType?: string } = {}) =>
      t.json(
        "POST /files/upload-temp",
        {
          query: { extension: opts.extension, content_type: opts.contentType, client_id: opts.clientId },
          body: { bytes, contentType: opts.contentType },
        },
        z.string(),
      ),

    /**
     * `PUT /files/upload-gcs`: multipart upload (field `file_name`) to a gs:// path; a path ending
     * with `/` gets `filename` appended. Returns the written URL. 422 for an s3:// path, 404 for a
     * client_id outside the caller's environment.
     */
    uploadGcs: async (
      path: string,
      clientId: string,
      bytes: Bytes,
      filename: string,
      opts: { contentType?: string } = {},
    ): Promise<string> => {
      const form = new FormData();
      form.append(
        "file_name",
        new Blob([new Uint8Array(bytes)], { type: opts.contentType ?? "application/octet-stream" }),
        filename,
      );
      const r = await t.json(
        "PUT /files/upload-gcs",
        { query: { path, client_id: clientId }, body: { form } },
        z.looseObject({ url: z.string() }),
      );
      return r.url;
    },

    /**
     * `DELETE /files/delete`: deletes the object at `path`, or the objects at most
     * `maxDeletionDepth` levels below the folder `path` (default 3; `"unlimited"` removes the guard;
     * deeper objects stay). Deleting nothing succeeds. 422 for a depth below 1.
     */
    delete: (path: string, opts: ContextOptions & { maxDeletionDepth?: number | "unlimited" } = {}) =>
      t.json(
        "DELETE /files/delete",
        { query: { path, max_deletion_depth: opts.maxDeletionDepth, client_id: opts.clientId } },
        z.boolean(),
      ),

    /** `GET /files/sign`: a URL that reads the object for one hour; treat it as opaque. 404 for a bucket that is not readable. */
    sign: (path: string, opts: ContextOptions = {}) =>
      t.json("GET /files/sign", { query: { path, client_id: opts.clientId } }, z.string()),

    /**
     * `GET /files/sign-upload`: a POST policy for exactly `contentLength` bytes (and `contentType`
     * when given), valid one hour; send it with {@link postSignedUpload}.
     */
    signUpload: (path: string, contentLength: number, opts: ContextOptions & { contentType?: string } = {}) =>
      t.json(
        "GET /files/sign-upload",
        { query: { path, content_length: contentLength, content_type: opts.contentType, client_id: opts.clientId } },
        SignedPost,
      ),

    /** `GET /files/sign-upload-temp`: a POST policy for a server-chosen scratch path, and that path (`storage_url`). */
    signUploadTemp: (contentLength: number, opts: { extension?: string; contentType?: string } = {}) =>
      t.json(
        "GET /files/sign-upload-temp",
        { query: { content_length: contentLength, extension: opts.extension, content_type: opts.contentType } },
        SignedTempUpload,
      ),

    /**
     * Uploads `bytes` under a POST policy: the policy's fields, then the file as field `file`, to
     * the policy's URL, without credentials. 400 when the size differs from the pinned length, 403
     * when the policy expired, was altered, or a pinned field differs.
     */
    postSignedUpload: async (policy: SignedPost, bytes: Bytes, opts: { filename?: string } = {}): Promise<void> => {
      const form = new FormData();
      for (const [k, v] of Object.entries(policy.fields)) form.append(k, v);
      const type = policy.fields["Content-Type"] ?? "application/octet-stream";
      form.append(
        "file",
        new Blob([new Uint8Array(bytes)], { type }),
        opts.filename ?? policy.fields.key?.split("/").pop() ?? "file",
      );
      await fetchSigned(t, "POST", policy.url, form);
    },

    /**
     * `POST /files/resolve`: the storage URL `path` stands for, after checking read access; expands
     * the managed alias `svc://<key>` to the environment's first bucket (401 without credentials).
     * 404 for another team's private bucket.
     */
    resolve: (path: string, opts: { jobId?: string } = {}) =>
      t.json("POST /files/resolve", { query: { path, job_id: opts.jobId }, idempotent: true }, z.string()),

    /** `GET /files/s3-iam-policy`: the bucket policy granting the environment's job and real-time roles `s3:*` on the bucket. 422 for an invalid bucket name. */
    s3IamPolicy: (bucketName: string) =>
      t.json("GET /files/s3-iam-policy", { query: { bucket_name: bucketName } }, BucketPolicy),
  };
  return api;
}
