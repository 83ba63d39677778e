/**
 * `svc-iac show [DIR] [--target T] [ADDRESS]... [--offline] [--json]`: what the target deployed.
 * The first argument is the repository folder when it is a folder, else the first address.
 */
import { statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { sortKeysDeep } from "../canonical-json";
import { showCommand } from "../reconcile/deployed/show-command";
import { renderShowText } from "../reconcile/deployed/show-text";
import { terminalLoadError } from "../reconcile/render/terminal-text";
import { failureJson } from "../reconcile/render/json";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder } from "./repository-folder";

const isFolder = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** `svc-iac show`: exit 0 when the report was made, 1 on an error or an ADDRESS that matches nothing. */
export async function runShowCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("show", argv, {
    target: { type: "string", short: "t" },
    offline: { type: "boolean" },
    json: { type: "boolean" },
    "no-color": { type: "boolean" },
  });
  // Addresses hold a "." and never name a folder; a first argument that is a folder (or looks like a path) is DIR.
  const first = positionals[0];
  const dirGiven =
    first !== undefined && (isFolder(first) || (/[\\/]|^\.{1,2}$/.test(first) && !/^[a-z_]+\./.test(first)));
  const dir = dirGiven ? first! : ".";
  const only = dirGiven ? positionals.slice(1) : positionals;
  checkRepositoryFolder("show", dir);
  const result = await showCommand({
    dir,
    target: values.target,
    env: io.env,
    only,
    offline: !!values.offline,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  for (const e of result.errors) io.stderr.write(`${terminalLoadError(e)}\n`);
  if (result.errors.length)
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(dir)) || "."}.\n`,
    );
  if (result.message) io.stderr.write(`${result.message}\n`);
  if (values.json)
    io.stdout.write(
      result.report
        ? `${JSON.stringify(sortKeysDeep(result.report), null, 2)}\n`
        : failureJson(result.errors, result.message),
    );
  else if (result.report) io.stdout.write(renderShowText(result.report));
  return result.exitCode;
}
