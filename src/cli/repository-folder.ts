/** The DIR argument of the repository commands, checked before anything is loaded. */
import { statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { SvcError } from "../errors";
import { shellQuote } from "./shell-quote";

/**
 * Throws when `dir` is not a folder: one that does not exist is named as such (not as a missing
 * svc.yaml in it), and a file given instead of its folder (`examples/repo/svc.yaml`) says which folder to give.
 */
export function checkRepositoryFolder(command: string, dir: string): void {
  // As the user typed it: `/nonexistent` stays `/nonexistent`.
  const shown = dir;
  let folder: boolean;
  try {
    folder = statSync(dir).isDirectory();
  } catch {
    throw new SvcError(
      "repository_folder_missing",
      `${command}: the folder ${shown} does not exist. DIR is the folder holding svc.yaml (default: the current folder).`,
      { file: shown },
    );
  }
  if (!folder) {
    const parent = dirname(dir);
    const hint = basename(dir) === "svc.yaml" ? ` Give its folder: svc-iac ${command} ${shellQuote(parent)}` : "";
    throw new SvcError(
      "repository_folder_is_file",
      `${command}: ${shown} is a file, not a folder. DIR is the folder holding svc.yaml.${hint}`,
      { file: shown },
    );
  }
}
