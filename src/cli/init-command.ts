/** `svc-iac init [DIR]`: parses the command line, writes the starter repository, prints what it wrote. */
import { basename, relative, resolve } from "node:path";
import { initCommand, type InitResult } from "../reconcile/commands/init";
import { PROJECT_NAME, projectNameFrom } from "../reconcile/init/starter-repository";
import { escapeIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { shellQuote } from "./shell-quote";
import { CliUsageError } from "./usage";

const OPTIONS = {
  project: { type: "string" },
  schemas: { type: "string" },
} as const;

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
}

export async function runInitCommand(
  argv: string[],
  given: Io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() },
): Promise<number> {
  // Folder and file names are the user's or a checkout's: shown with their control characters escaped.
  const io = escapeIo(given);
  const { values: v, positionals } = parseCommandArgs("init", argv, OPTIONS);
  if (positionals.length > 1)
    throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one folder.`);
  const dir = resolve(io.cwd, positionals[0] ?? ".");
  const project = v.project ?? projectNameFrom(basename(dir));
  if (!PROJECT_NAME.test(project))
    throw new CliUsageError(
      `Invalid --project "${project}". A project name uses lower-case letters, digits, "_" and "-", starting with a letter or digit.`,
    );
  const result = await initCommand({ dir, project, schemas: v.schemas, cwd: io.cwd });
  if (result.exitCode === 1) io.stderr.write(refusalText(result));
  else io.stdout.write(writtenText(result, relative(io.cwd, dir), v.project === undefined));
  return result.exitCode;
}

function refusalText(r: Extract<InitResult, { exitCode: 1 }>): string {
  const { dir, existing } = r;
  if (existing.length === 0) return `svc-iac init: not writing anything in ${dir}: ${r.refusals.join("; ")}.\n`;
  const one = existing.length === 1;
  return `svc-iac init: not writing anything in ${dir}: ${one ? "this file exists" : "these files exist"} already: ${existing.join(", ")}. Remove ${one ? "it" : "them"} or choose another folder.\n`;
}

function writtenText(r: Extract<InitResult, { exitCode: 0 }>, shownDir: string, namedAfterFolder: boolean): string {
  const shown = shellQuote(shownDir || ".");
  const named = namedAfterFolder ? ` (named after the folder; --project NAME chooses another)` : "";
  const files = r.written.map((f) => `  ${f.path}${f.note ? ` (${f.note})` : ""}\n`).join("");
  return (
    `Wrote a svc-iac repository for project "${r.project}"${named} in ${shown}:\n${files}` +
    `Next: svc-iac validate ${shown}, then svc-iac plan ${shown} and svc-iac apply ${shown} (on the embedded emulator until SVC_BASE_URL is set).\n`
  );
}
