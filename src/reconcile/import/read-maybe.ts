/** Reading files of the repository that may not exist yet. */
import { readFile } from "node:fs/promises";

/** The file's text, or undefined when there is no such file. */
export async function readMaybe(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}
