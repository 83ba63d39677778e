/** The DIR argument of the repository commands: checked before anything is loaded, and the folder errors are shown from. */
import { statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { SvcError } from "../errors";
import type { LoadError } from "../model/desired";
import { terminalLoadError } from "../reconcile/render/terminal-text";
import { projectFolders } from "../reconcile/projects/find-projects";
import { SVC_FILE } from "../reconcile/load/names";
import { shellQuote } from "./shell-quote";
import { CliUsageError } from "./usage";

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

/** Project folders named in the message of a folder without svc.yaml; more are counted. */
const MAX_PROJECTS_NAMED = 5;

/**
 * A load error as `file:line:column: message`, its file as the user reaches it from the folder the
 * command runs in (DIR joined: `examples/repo/svc.yaml`, not `svc.yaml`). Where svc.yaml is missing
 * but folders below hold projects (a monorepo's root), the message names them instead of
 * proposing `svc-iac init`.
 */
export function errorLine(command: string, dir: string, e: LoadError): string {
  const file = isAbsolute(e.file) ? e.file : join(dir, e.file);
  if (e.file === SVC_FILE && e.message.startsWith(`${SVC_FILE} not found`)) {
    const below = projectFolders(dir, ".");
    if (below.length) {
      const named = below.slice(0, MAX_PROJECTS_NAMED).map((p) => join(dir, p));
      const more = below.length > named.length ? ` and ${below.length - named.length} more` : "";
      return terminalLoadError({
        ...e,
        file,
        message: `${SVC_FILE} not found: this folder is not a project, but ${below.length === 1 ? "this folder below is one" : "these folders below are projects"}: ${named.join(", ")}${more}. Give one: svc-iac ${command} ${shellQuote(named[0]!)} (svc-iac projects lists them all).`,
      });
    }
  }
  return terminalLoadError({ ...e, file });
}

const isFolder = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * The repository folder and the addresses among a command's positional arguments: addresses hold
 * a "." and never name a folder, so an argument that is a folder (or looks like a path) is DIR,
 * before or after the addresses, as `run ADDRESS DIR` takes it. @throws CliUsageError on two folders.
 */
export function splitFolderAndAddresses(positionals: readonly string[]): { dir: string; addresses: string[] } {
  const isDir = (a: string) => isFolder(a) || (/[\\/]|^\.{1,2}$/.test(a) && !/^[a-z_]+\./.test(a));
  const dirs = positionals.filter(isDir);
  if (dirs.length > 1)
    throw new CliUsageError(`Too many folders: ${dirs.join(" ")}. Expected at most one repository folder.`);
  return { dir: dirs[0] ?? ".", addresses: positionals.filter((a) => !isDir(a)) };
}
