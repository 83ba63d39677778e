/**
 * `svc-iac init [DIR]`: writes a minimal repository (svc.yaml, one canvas with one UDF, a
 * .gitignore for `.svc-iac/`) whose YAML files point their editor at the package's JSON Schemas.
 * Never overwrites: when any of its files exists, it names them and writes nothing. An existing
 * .gitignore is the exception: `.svc-iac/` is appended to it when missing.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { RepositoryJail } from "../repository/jail";
import { gitignoreWithState, PROJECT_NAME, projectNameFrom, starterFiles } from "../reconcile/init/starter-repository";
import { escapeIo } from "./actions-io";
import { shellQuote } from "./shell-quote";
import { parseCommandArgs } from "./command-args";
import { CliUsageError } from "./usage";

const GITIGNORE = ".gitignore";

const OPTIONS = {
  project: { type: "string" },
  schemas: { type: "string" },
} as const;

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
}

/** The installed package's schemas folder as `node_modules/svc-iac/schemas`, looked up from `dir` upwards. */
const INSTALLED_SCHEMAS = join("node_modules", "svc-iac", "schemas");

export async function runInitCommand(
  argv: string[],
  given: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
): Promise<number> {
  // Folder and file names are the user's or a checkout's: shown with their control characters escaped.
  const io = escapeIo(given);
  const parsed = parseCommandArgs("init", argv, OPTIONS);
  const { values: v, positionals } = parsed;
  if (positionals.length > 1)
    throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one folder.`);
  const dir = resolve(io.cwd, positionals[0] ?? ".");
  const project = v.project ?? projectNameFrom(basename(dir));
  if (!PROJECT_NAME.test(project))
    throw new CliUsageError(
      `Invalid --project "${project}". A project name uses lower-case letters, digits, "_" and "-", starting with a letter or digit.`,
    );

  const files = starterFiles({ project, schemaBase: schemaBaseFor(dir, v.schemas, io.cwd) });
  // An existing .gitignore (almost every repository has one) gets the line it lacks; any other file is never touched.
  const existing = Object.keys(files).filter((path) => path !== GITIGNORE && existsSync(join(dir, path)));
  if (existing.length > 0) {
    io.stderr.write(
      `svc-iac init: not writing anything in ${dir}: ${existing.length === 1 ? "this file exists" : "these files exist"} already: ${existing.join(", ")}. Remove ${existing.length === 1 ? "it" : "them"} or choose another folder.\n`,
    );
    return 1;
  }
  // The folder may be a checkout of someone else's repository: every file is read and written
  // through its jail (a folder or .gitignore linked out of it, a FIFO .gitignore), checked before
  // anything is written.
  // The folder the user named first (nothing of the repository's is in it yet), so the jail knows its real path.
  await mkdir(dir, { recursive: true });
  const jail = RepositoryJail.forProject(dir);
  const refusals = Object.keys(files).flatMap((path) => jail.writeRefusal(path) ?? []);
  const read = jail.readText(GITIGNORE);
  if (read.kind === "refused") refusals.push(read.message);
  if (refusals.length > 0) {
    io.stderr.write(`svc-iac init: not writing anything in ${dir}: ${[...new Set(refusals)].join("; ")}.\n`);
    return 1;
  }
  const gitignore = read.kind === "text" ? gitignoreWithState(read.text) : files[GITIGNORE];
  const written: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (path === GITIGNORE) continue;
    const folder = jail.folder(dirname(path), { create: true });
    // "wx": a file that appeared since the check is still never overwritten, nor written through a link.
    await writeFile(join(folder, basename(path)), text, { flag: "wx" });
    written.push(`  ${path}\n`);
  }
  written.unshift(writeGitignore(jail, read.kind === "text", gitignore));
  const shown = shellQuote(relative(io.cwd, dir) || ".");
  const named = v.project === undefined ? ` (named after the folder; --project NAME chooses another)` : "";
  io.stdout.write(
    `Wrote a svc-iac repository for project "${project}"${named} in ${shown}:\n${written.join("")}` +
      `Next: svc-iac validate ${shown}, then svc-iac plan ${shown} and svc-iac apply ${shown} (on the embedded emulator until SVC_BASE_URL is set).\n`,
  );
  return 0;
}

/** Writes .gitignore (`text`) through the jail (a link at its name is replaced, never written through), or leaves an existing one that ignores `.svc-iac/` already (`undefined`); returns its line of the report. */
function writeGitignore(jail: RepositoryJail, existed: boolean, text: string | undefined): string {
  if (text === undefined) return `  ${GITIGNORE} (ignores .svc-iac/ already: left as it was)\n`;
  jail.writeText(GITIGNORE, text);
  return existed ? `  ${GITIGNORE} (added .svc-iac/ to the existing file)\n` : `  ${GITIGNORE}\n`;
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
