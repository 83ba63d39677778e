/**
 * `svc-iac show [DIR] [--target T] [ADDRESS]... [--offline] [--json]`: what the target deployed.
 * The argument that is a folder is the repository folder, wherever it stands; the others are addresses.
 */
import { showCommand } from "../reconcile/commands/show";
import { renderShowText } from "../reconcile/deployed/show-text";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder, splitFolderAndAddresses } from "./repository-folder";
import { writeReportResult } from "./report-output";

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
  writeReportResult("show", dir, io, result, !!values.json, renderShowText);
  return result.exitCode;
}
