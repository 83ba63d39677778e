/** Reading and writing files of the repository that may not exist yet, through its jail (see load/jail.ts). */
import { JailError, RepositoryJail } from "../../repository/jail";

/**
 * The text of `file` (relative to the project at `root`), or undefined when there is no such file.
 * @throws JailError when the file is refused (a link leaving the repository, a special file, …).
 */
export async function readMaybe(root: string, file: string): Promise<string | undefined> {
  const jail = RepositoryJail.forProject(root);
  const read = jail.readText(file);
  if (read.kind === "refused") throw new JailError(jail.shown(file), read.message);
  return read.kind === "text" ? read.text : undefined;
}

/** Writes `text` to `file` (relative to the project at `root`) inside the repository, its folders made. */
export function writeInside(root: string, file: string, text: string): void {
  RepositoryJail.forProject(root).writeText(file, text);
}
