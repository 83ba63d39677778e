/**
 * `svc-iac init [DIR]`: writes a minimal repository (svc.yaml, one canvas with one UDF, a
 * .gitignore for `.svc-iac/`) whose YAML files point their editor at the package's JSON Schemas.
 * Never overwrites: when any of its files exists, it names them and writes nothing. An existing
 * .gitignore is the exception: `.svc-iac/` is appended to it when missing.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { RepositoryJail } from "../../repository/jail";
import { gitignoreWithState, starterFiles } from "../init/starter-repository";

const GITIGNORE = ".gitignore";

/** The installed package's schemas folder as `node_modules/svc-iac/schemas`, looked up from `dir` upwards. */
const INSTALLED_SCHEMAS = join("node_modules", "svc-iac", "schemas");

export interface InitOptions {
  /** The folder to write the repository in (absolute). */
  dir: string;
  /** The project name (already checked against `PROJECT_NAME`). */
  project: string;
  /** `--schemas`: a URL, or a folder relative to `cwd`. */
  schemas?: string;
  /** The current directory, against which `schemas` is resolved. */
  cwd: string;
}

/** One file of the report, with what happened to it when it is not a plain new file. */
export interface InitWrittenFile {
  path: string;
  note?: string;
}

export type InitResult =
  | { command: "init"; exitCode: 0; dir: string; project: string; written: InitWrittenFile[] }
  /** Nothing written: `existing` files of the starter repository, or the jail's `refusals`. */
  | { command: "init"; exitCode: 1; dir: string; existing: string[]; refusals: string[] };

/** Writes the starter repository in `options.dir`, or nothing when a file of it exists or the jail refuses one. */
export async function initCommand(options: InitOptions): Promise<InitResult> {
  const { dir, project } = options;
  const files = starterFiles({ project, schemaBase: schemaBaseFor(dir, options.schemas, options.cwd) });
  // An existing .gitignore (almost every repository has one) gets the line it lacks; any other file is never touched.
  const existing = Object.keys(files).filter((path) => path !== GITIGNORE && existsSync(join(dir, path)));
  if (existing.length > 0) return { command: "init", exitCode: 1, dir, existing, refusals: [] };
  // The folder may be a checkout of someone else's repository: every file is read and written
  // through its jail (a folder or .gitignore linked out of it, a FIFO .gitignore), checked before
  // anything is written.
  // The folder the user named first (nothing of the repository's is in it yet), so the jail knows its real path.
  await mkdir(dir, { recursive: true });
  const jail = RepositoryJail.forProject(dir);
  const refusals = Object.keys(files).flatMap((path) => jail.writeRefusal(path) ?? []);
  const read = jail.readText(GITIGNORE);
  if (read.kind === "refused") refusals.push(read.message);
  if (refusals.length > 0) return { command: "init", exitCode: 1, dir, existing: [], refusals: [...new Set(refusals)] };
  const gitignore = read.kind === "text" ? gitignoreWithState(read.text) : files[GITIGNORE];
  const written: InitWrittenFile[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (path === GITIGNORE) continue;
    const folder = jail.folder(dirname(path), { create: true });
    // "wx": a file that appeared since the check is still never overwritten, nor written through a link.
    await writeFile(join(folder, basename(path)), text, { flag: "wx" });
    written.push({ path });
  }
  written.unshift(writeGitignore(jail, read.kind === "text", gitignore));
  return { command: "init", exitCode: 0, dir, project, written };
}

/** Writes .gitignore (`text`) through the jail (a link at its name is replaced, never written through), or leaves an existing one that ignores `.svc-iac/` already (`undefined`). */
function writeGitignore(jail: RepositoryJail, existed: boolean, text: string | undefined): InitWrittenFile {
  if (text === undefined) return { path: GITIGNORE, note: "ignores .svc-iac/ already: left as it was" };
  jail.writeText(GITIGNORE, text);
  return existed ? { path: GITIGNORE, note: "added .svc-iac/ to the existing file" } : { path: GITIGNORE };
}

/**
 * The schemas' place as the YAML files should name it, relative to the repository root: `--schemas`
 * (a URL, or a folder relative to the current directory), else the installed package found from the
 * repository upwards, else `node_modules/svc-iac/schemas` in the repository itself (after
 * `npm install --save-dev svc-iac` there).
 */
function schemaBaseFor(dir: string, option: string | undefined, cwd: string): string {
  if (option && /^https?:\/\//.test(option)) return option;
  if (option) return toPosix(relative(dir, resolve(cwd, option)) || ".");
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, INSTALLED_SCHEMAS))) return toPosix(relative(dir, join(at, INSTALLED_SCHEMAS)));
    if (dirname(at) === at) return toPosix(INSTALLED_SCHEMAS);
  }
}

const toPosix = (p: string) => p.split(sep).join("/");
