/**
 * The emulator's object store: one folder per bucket at `<objectsDir>/<scheme>/<bucket>/<key>`, so a
 * stored object is an ordinary file (other areas and humans may look at it). Content types live in
 * the `file_objects` table; last-modified times are the files' mtimes, set from the emulator clock.
 *
 * A file system cannot hold an object `a/b` beside an object `a/b/c` (S3 can); such a write gets
 * 409 with a clear detail. Empty folders never show up: deleting prunes them.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { conflict, invalid } from "./http-error";
import type { Store } from "./store";

export const OBJECTS_DDL = `
CREATE TABLE IF NOT EXISTS file_objects (
  url TEXT PRIMARY KEY, content_type TEXT NOT NULL
);
`;

/** A storage path split into its parts. `key` is "" for a bucket root; a folder key ends with "/". */
export interface StoragePath {
  scheme: "s3" | "gs";
  bucket: string;
  key: string;
}

/** `s3://bucket` (the `buckets.url` form). */
export const bucketUrl = (p: Pick<StoragePath, "scheme" | "bucket">) => `${p.scheme}://${p.bucket}`;
/** `s3://bucket/key`. */
export const objectUrl = (p: StoragePath) => `${bucketUrl(p)}/${p.key}`;

/**
 * Parses `s3://bucket/key` or `gs://bucket/key`. Anything else, an empty bucket, `.`/`..` segments,
 * an absolute key (`s3://b//x`), empty inner segments or NUL bytes give 422 at `loc` (default
 * `["query", "path"]`).
 */
export function parseStoragePath(
  path: string | null | undefined,
  loc: (string | number)[] = ["path"],
  where = "query",
): StoragePath {
  if (path === null || path === undefined || path === "") throw invalid(where, loc, "Field required", "missing");
  const m = /^(s3|gs):\/\/([^/]*)(?:\/(.*))?$/s.exec(path);
  if (!m) throw invalid(where, loc, `The path must start with s3:// or gs:// (got "${path.slice(0, 200)}")`);
  const [, scheme, bucket, key = ""] = m;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,222}$/.test(bucket))
    throw invalid(where, loc, `"${bucket}" is not a valid bucket name`);
  if (key.startsWith("/"))
    throw invalid(where, loc, "The object key must not be absolute (no slash right after the bucket name)");
  if (key.includes("\0")) throw invalid(where, loc, "The object key must not contain NUL bytes");
  const segments = key.split("/");
  segments.forEach((s, i) => {
    if (s === "." || s === "..") throw invalid(where, loc, `The object key must not contain "${s}" segments`);
    if (s === "" && i < segments.length - 1)
      throw invalid(where, loc, "The object key must not contain empty segments (//)");
  });
  return { scheme: scheme as "s3" | "gs", bucket, key };
}

/** True when the key names a folder (bucket root or trailing slash). */
export const isFolderKey = (key: string) => key === "" || key.endsWith("/");

export interface ObjectInfo {
  key: string;
  size: number;
  lastModified: Date;
}

export class ObjectStore {
  constructor(
    private readonly root: string,
    private readonly store: Store,
  ) {}

  private fsPath(p: Pick<StoragePath, "scheme" | "bucket">, key = ""): string {
    return join(this.root, p.scheme, p.bucket, ...key.split("/").filter(Boolean));
  }

  /** The object at `p`, or undefined (folders are not objects). */
  stat(p: StoragePath): ObjectInfo | undefined {
    if (isFolderKey(p.key)) return undefined;
    const f = this.fsPath(p, p.key);
    if (!existsSync(f)) return undefined;
    const s = statSync(f);
    return s.isFile() ? { key: p.key, size: s.size, lastModified: s.mtime } : undefined;
  }

  /** True when `p` (with or without a trailing slash) is a folder holding at least one object. */
  isFolder(p: StoragePath): boolean {
    const f = this.fsPath(p, p.key);
    return existsSync(f) && statSync(f).isDirectory() && this.walk(f, "").length > 0;
  }

  read(p: StoragePath): { bytes: Buffer; contentType: string } | undefined {
    if (!this.stat(p)) return undefined;
    const row = this.store.get<{ content_type: string }>(
      "SELECT content_type FROM file_objects WHERE url = ?",
      objectUrl(p),
    );
    return { bytes: readFileSync(this.fsPath(p, p.key)), contentType: row?.content_type ?? "application/octet-stream" };
  }

  /** `length` bytes of the object at `p` from `offset` (fewer at its end), or undefined when there is no object. */
  readRange(p: StoragePath, offset: number, length: number): Buffer | undefined {
    if (!this.stat(p)) return undefined;
    const fd = openSync(this.fsPath(p, p.key), "r");
    try {
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, offset);
      return n === length ? buf : buf.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  }

  /** Writes an object (replacing one at the same key); 409 when a folder or object is in the way. */
  write(p: StoragePath, bytes: Buffer, contentType: string, now: Date): void {
    const f = this.fsPath(p, p.key);
    const segments = p.key.split("/");
    let dir = this.fsPath(p);
    for (let i = 0; i < segments.length - 1; i++) {
      dir = join(dir, segments[i]);
      if (existsSync(dir) && !statSync(dir).isDirectory()) {
        const blocking = objectUrl({ ...p, key: segments.slice(0, i + 1).join("/") });
        throw conflict(
          `Cannot write ${objectUrl(p)}: the emulator's store already holds an object at ${blocking}, and an object cannot also be a folder`,
        );
      }
    }
    if (existsSync(f) && statSync(f).isDirectory()) {
      throw conflict(
        `Cannot write ${objectUrl(p)}: the emulator's store already holds objects under ${objectUrl(p)}/, and a folder cannot also be an object`,
      );
    }
    this.store.run(
      "INSERT INTO file_objects (url, content_type) VALUES (?, ?) ON CONFLICT (url) DO UPDATE SET content_type = excluded.content_type",
      objectUrl(p),
      contentType,
    );
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, bytes);
    utimesSync(f, now, now);
  }

  /** Every object under the folder `p` (recursive), keys relative to the bucket, sorted. */
  listAll(p: StoragePath): ObjectInfo[] {
    const base = p.key === "" ? "" : p.key.endsWith("/") ? p.key : `${p.key}/`;
    const f = this.fsPath(p, base);
    if (!existsSync(f) || !statSync(f).isDirectory()) return [];
    return this.walk(f, base).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Deletes one object and prunes folders it leaves empty. */
  delete(p: StoragePath): void {
    const f = this.fsPath(p, p.key);
    if (existsSync(f) && statSync(f).isFile()) unlinkSync(f);
    this.store.run("DELETE FROM file_objects WHERE url = ?", objectUrl(p));
    let dir = dirname(f);
    const stop = this.fsPath(p);
    while (dir.startsWith(stop) && dir !== stop && existsSync(dir) && readdirSync(dir).length === 0) {
      rmdirSync(dir);
      dir = dirname(dir);
    }
  }

  private walk(dir: string, prefix: string): ObjectInfo[] {
    const out: ObjectInfo[] = [];
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) out.push(...this.walk(full, `${prefix}${e.name}/`));
      else if (e.isFile()) {
        const s = statSync(full);
        out.push({ key: prefix + e.name, size: s.size, lastModified: s.mtime });
      }
    }
    return out;
  }
}
