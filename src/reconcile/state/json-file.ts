/**
 * Deterministic JSON text and atomic file writes, shared by the state files (inventory, lock) and
 * the outputs file: the same data is always the same bytes, and a reader never sees half a file.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { sortedJsonText } from "../../canonical-json";

/** JSON with object keys sorted at every level (arrays keep their order), 2-space indent and a trailing newline. */
export function stableJsonText(value: unknown): string {
  return `${sortedJsonText(value, 2)}\n`;
}

/** A temporary name next to `file`: the same folder, so the final rename stays on one file system and is atomic. */
export function siblingTempName(file: string, tag = "tmp"): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${tag}-${process.pid}-${randomBytes(6).toString("hex")}`,
  );
}

/**
 * Writes `text` to `file` through a temporary file in the same folder and a rename, so readers see
 * either the old or the new content. Creates the parent folder. With `mode`, the temporary file is
 * created with that mode (no moment where the content is readable by others) and chmod-ed to it
 * before the rename, since the process umask applies to the create.
 */
export async function writeFileAtomic(file: string, text: string, opts: { mode?: number } = {}): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = siblingTempName(file);
  try {
    await writeFile(tmp, text, { flag: "wx", mode: opts.mode });
    if (opts.mode !== undefined) await chmod(tmp, opts.mode);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
