/**
 * `svc-iac show [DIR] [--target T] [ADDRESS]... [--offline] [--json]`: what the target deployed.
 * The argument that is a folder is the repository folder, wherever it stands; the others are addresses.
 */
import { relative, resolve } from "node:path";
import { sortKeysDeep } from "../canonical-json";
import { showCommand } from "../reconcile/commands/show";
import { renderShowText } from "../reconcile/deployed/show-text";
import { failureJson } from "../reconcile/render/json";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder, errorLine, splitFolderAndAddresses } from "./repository-folder";

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
  const { dir, addresses: only } = splitFolderAndAddresses(positionals);
  checkRepositoryFolder("show", dir);
  const result = await showCommand({
    dir,
    target: values.target,
    env: io.env,
    only,
    offline: !!values.offline,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  for (const e of result.errors) io.stderr.write(`${errorLine("show", dir, e)}\n`);
  if (result.errors.length)
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(dir)) || "."}.\n`,
    );
  if (result.message) io.stderr.write(`${result.message}\n`);
  if (values.json)
    io.stdout.write(
      result.report
        ? `${JSON.stringify(sortKeysDeep(result.report), null, 2)}\n`
        : failureJson(result.errors, result.message, { code: result.code }),
    );
  else if (result.report) io.stdout.write(renderShowText(result.report));
  return result.exitCode;
}
