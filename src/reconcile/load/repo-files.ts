/**
 * Reading the repository's files and folders; the only module of the loader that touches the disk
 * besides its callers' awaits. The reads are synchronous behind async signatures: a repository is
 * thousands of small files, which a synchronous read takes in one system call each, where the
 * promise API costs several thread-pool round trips per file (the loader has nothing to overlap
 * them with).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";

/** A file's text, or undefined when it does not exist. */
export async function readText(root: string, file: string): Promise<string | undefined> {
  try {
    return readFileSync(`${root}/${file}`, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR") return undefined;
    throw e;
  }
}

export interface FolderEntry {
  name: string;
  isFolder: boolean;
}

/** A folder's visible entries sorted by name; [] when it does not exist. */
export async function listFolder(root: string, folder: string): Promise<FolderEntry[]> {
  try {
    const entries = readdirSync(`${root}/${folder}`, { withFileTypes: true });
    return entries
      .filter((e) => !e.name.startsWith("."))
      .map((e) => ({ name: e.name, isFolder: e.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
}

export async function isFile(root: string, file: string): Promise<boolean> {
  try {
    return statSync(`${root}/${file}`).isFile();
  } catch {
    return false;
  }
}
