/**
 * Spec 4.5 Files, on the local object store (`object-store.ts`): listing, reading through presigned
 * URLs, uploads and deletes. Signing, resolution, the IAM policy and the internal routes that serve
 * signed URLs live in `files-signing.ts`.
 *
 * Decisions where the spec is silent:
 * - `path` names an object or a folder; a folder may be written with or without its trailing slash.
 * - `/files/list` returns full URLs (`s3://bucket/a/b.txt`) of every object under the folder,
 *   recursively, sorted; a path naming an object lists just that object; nothing there gives `[]`.
 * - `/files/list-details` lists one level: objects, and sub-folders as `is_directory: true` entries
 *   whose url ends with `/`, size 0 and last_modified the newest object inside.
 * - `/files/upload-gcs` answers `{url}`; a path ending with `/` gets the uploaded file's name appended.
 * - `/files/delete` of a folder deletes the objects at most `max_deletion_depth` levels below it
 *   (`folder/a` is depth 1, `folder/x/a` depth 2) and leaves deeper ones; deleting nothing is not
 *   an error (`true`), so a retried delete answers the same.
 */
import { z } from "zod";
import type { Area } from "../area";
import { invalid, notFound } from "../http-error";
import { parseMultipartSync, splitForm } from "../multipart";
import { OBJECTS_DDL, type StoragePath, isFolderKey, objectUrl, parseStoragePath } from "../object-store";
import { parseQuery, redirect, type RequestContext } from "../route";
import { signGetUrl } from "../signed-urls";
import {
  PathQuery,
  checkClientId,
  objects,
  pathQuery,
  readableBucket,
  requireObjectKey,
  tempPath,
  writableBucket,
} from "./files-access";
import { signingRoutes } from "./files-signing";

function folderOf(p: StoragePath): StoragePath {
  return isFolderKey(p.key) ? p : { ...p, key: `${p.key}/` };
}

function list(ctx: RequestContext): string[] {
  const { p } = pathQuery(ctx, PathQuery);
  readableBucket(ctx, p);
  const store = objects(ctx);
  if (store.stat(p)) return [objectUrl(p)];
  return store.listAll(p).map((o) => objectUrl({ ...p, key: o.key }));
}

function listDetails(ctx: RequestContext) {
  const { p } = pathQuery(ctx, PathQuery);
  readableBucket(ctx, p);
  const store = objects(ctx);
  const single = store.stat(p);
  if (single) {
    return [
      {
        url: objectUrl(p),
        file_name: p.key.split("/").pop()!,
        is_directory: false,
        size: single.size,
        last_modified: single.lastModified.toISOString(),
      },
    ];
  }
  const folder = folderOf(p);
  const files: Record<string, unknown>[] = [];
  const dirs = new Map<string, Date>();
  for (const o of store.listAll(folder)) {
    const rest = o.key.slice(folder.key.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      files.push({
        url: objectUrl({ ...p, key: o.key }),
        file_name: rest,
        is_directory: false,
        size: o.size,
        last_modified: o.lastModified.toISOString(),
      });
    } else {
      const name = rest.slice(0, slash);
      const seen = dirs.get(name);
      if (!seen || seen < o.lastModified) dirs.set(name, o.lastModified);
    }
  }
  const dirEntries = [...dirs].map(([name, last]) => ({
    url: objectUrl({ ...p, key: `${folder.key}${name}/` }),
    file_name: name,
    is_directory: true,
    size: 0,
    last_modified: last.toISOString(),
  }));
  return [...dirEntries, ...files].sort((a, b) =>
    String(a.file_name) < String(b.file_name) ? -1 : String(a.file_name) > String(b.file_name) ? 1 : 0,
  );
}

function get(ctx: RequestContext) {
  const { p } = pathQuery(ctx, PathQuery);
  readableBucket(ctx, p);
  requireObjectKey(p);
  if (!objects(ctx).stat(p)) throw notFound(`No object at ${objectUrl(p)}`);
  return redirect(signGetUrl(ctx.env.origin, ctx.env.keys, objectUrl(p), ctx.now()));
}

function contentTypeOf(ctx: RequestContext, given: string | undefined): string {
  if (given) return given;
  const header = ctx.headers["content-type"];
  const h = Array.isArray(header) ? header[0] : header;
  return h || "application/octet-stream";
}

const UploadQuery = PathQuery.extend({ content_type: z.string().optional() });

function upload(ctx: RequestContext): string {
  const { q: query, p } = pathQuery(ctx, UploadQuery);
  requireObjectKey(p);
  writableBucket(ctx, p);
  objects(ctx).write(p, ctx.rawBody, contentTypeOf(ctx, query.content_type), ctx.now());
  return objectUrl(p);
}

const TempQuery = z.object({
  extension: z.string().optional(),
  content_type: z.string().optional(),
  client_id: z.string().optional(),
});

function uploadTemp(ctx: RequestContext): string {
  const query = parseQuery(ctx, TempQuery);
  checkClientId(ctx, query.client_id);
  const p = tempPath(ctx, query.extension);
  objects(ctx).write(p, ctx.rawBody, contentTypeOf(ctx, query.content_type), ctx.now());
  return objectUrl(p);
}

const GcsQuery = z.object({ path: z.string(), client_id: z.string() });

function uploadGcs(ctx: RequestContext) {
  const { p: given } = pathQuery(ctx, GcsQuery);
  if (given.scheme !== "gs")
    throw invalid("query", "path", "upload-gcs writes gs:// paths only; use /files/upload for s3://");
  const { fields, files } = splitForm(parseMultipartSync(ctx.rawBody, ctx.headers["content-type"]));
  const part = files.get("file_name");
  if (!part && fields.file_name === undefined) throw invalid("body", "file_name", "Field required", "missing");
  const bytes = part ? part.data : Buffer.from(fields.file_name);
  const p = isFolderKey(given.key) && part?.filename ? parseStoragePath(`${objectUrl(given)}${part.filename}`) : given;
  requireObjectKey(p);
  writableBucket(ctx, p);
  objects(ctx).write(p, Buffer.from(bytes), part?.contentType || "application/octet-stream", ctx.now());
  return { url: objectUrl(p) };
}

const DeleteQuery = PathQuery.extend({ max_deletion_depth: z.string().optional() });

function depthOf(text: string | undefined): number {
  if (text === undefined || text === "") return 3;
  if (text === "unlimited") return Infinity;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw invalid("query", "max_deletion_depth", "Input should be a positive integer or 'unlimited'", "value_error");
  }
  return Number(text);
}

function del(ctx: RequestContext): true {
  const { q: query, p } = pathQuery(ctx, DeleteQuery);
  const depth = depthOf(query.max_deletion_depth);
  writableBucket(ctx, p);
  const store = objects(ctx);
  if (store.stat(p)) {
    store.delete(p);
    return true;
  }
  const folder = folderOf(p);
  for (const o of store.listAll(folder)) {
    const level = o.key.slice(folder.key.length).split("/").length;
    if (level <= depth) store.delete({ ...p, key: o.key });
  }
  return true;
}

export const filesArea: Area = {
  name: "files",
  ddl: OBJECTS_DDL,
  routes: [
    { method: "GET", path: "/files/list", scope: "public_or_authorized", handler: list },
    { method: "GET", path: "/files/list-details", scope: "public_or_authorized", handler: listDetails },
    { method: "GET", path: "/files/get", scope: "public_or_authorized", handler: get },
    { method: "PUT", path: "/files/upload", scope: "environment", body: "raw", handler: upload },
    { method: "POST", path: "/files/upload-temp", scope: "environment", body: "raw", handler: uploadTemp },
    { method: "PUT", path: "/files/upload-gcs", scope: "environment", body: "raw", handler: uploadGcs },
    { method: "DELETE", path: "/files/delete", scope: "environment", handler: del },
    ...signingRoutes,
  ],
};
