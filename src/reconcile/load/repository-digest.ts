/**
 * A digest of a loaded repository: every file's content and the target, so a saved plan can tell
 * whether the repository it was made from is the one being applied. Hidden entries (`.git`,
 * `.svc-iac`, `.github`) and `node_modules` are not the repository's declarations and are left
 * out, as are files the commands themselves write (the saved plan, `--outputs`, output files).
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { SvcError } from "../../errors";

export interface RepositoryDigest {
  /** `sha256:<hex>` over the target and every file's path and content hash. */
  digest: string;
  /** Repository-relative path (`/` separators) → `sha256:<hex>` of its content. */
  files: Record<string, string>;
}

const sha256 = (data: string | Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** How much of a file is held at once while it is hashed: a repository may hold files of any size. */
const CHUNK_BYTES = 1024 * 1024;
/** Never through a link, never blocking (a FIFO swapped in after the listing). */
const HASH_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * `sha256:<hex>` of the file at `full`, read a chunk at a time (a 3 GiB file takes 1 MiB of memory,
 * not 3 GiB or a "File size is greater than 2 GiB" error naming no file); undefined when it is no
 * longer a regular file. A read that fails names the file.
 */
async function hashFile(full: string, shown: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(full, HASH_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code === "ENOENT" || code === "ELOOP" || code === "ENXIO") return undefined; // gone, or no longer a file
    throw new SvcError(
      "repository_unreadable",
      `Cannot digest the repository for the saved plan: ${shown} cannot be read (${code ?? (e as Error).message}).`,
    );
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const hash = createHash("sha256");
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
    return `sha256:${hash.digest("hex")}`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    throw new SvcError(
      "repository_unreadable",
      `Cannot digest the repository for the saved plan: ${shown} cannot be read (${code ?? (e as Error).message}).`,
    );
  } finally {
    await handle.close();
  }
}

async function walk(root: string, dir: string, skip: ReadonlySet<string>, out: Record<string, string>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const full = join(dir, e.name);
    const path = relative(root, full).split(sep).join("/");
    if (skip.has(path)) continue;
    if (e.isDirectory()) await walk(root, full, skip, out);
    else if (e.isFile()) {
      const digest = await hashFile(full, path);
      if (digest !== undefined) out[path] = digest;
    }
  }
}

/**
 * Repository-relative paths of `files` that lie inside `root` (others are outside the digest anyway).
 * @example repositoryPaths("/repo", ["/repo/plan.json", "/tmp/out.json"]) // ["plan.json"]
 */
export function repositoryPaths(root: string, files: readonly (string | undefined)[]): string[] {
  return files.flatMap((f) => {
    if (!f) return [];
    const rel = relative(root, resolve(f));
    return rel && !rel.startsWith("..") ? [rel.split(sep).join("/")] : [];
  });
}

/** Digests the repository at `root` for `target`, leaving out the repository-relative paths in `exclude`. */
export async function repositoryDigest(
  root: string,
  target: string,
  exclude: readonly string[] = [],
): Promise<RepositoryDigest> {
  const files: Record<string, string> = {};
  await walk(root, root, new Set(exclude), files);
  const lines = [`target ${target}`, ...Object.entries(files).map(([p, h]) => `${h} ${p}`)];
  return { digest: sha256(lines.join("\n")), files };
}

/** What differs between two digests' files: `added`, `removed` and `changed` paths, sorted. */
export function changedFiles(before: Record<string, string>, after: Record<string, string>): string[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths.flatMap((p) => {
    if (before[p] === after[p]) return [];
    if (before[p] === undefined) return [`${p} (added)`];
    if (after[p] === undefined) return [`${p} (removed)`];
    return [`${p} (changed)`];
  });
}
