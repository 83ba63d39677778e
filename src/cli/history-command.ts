/**
 * `svc-iac history [DIR] [--target T] [ADDRESS]... [--json]`: the target's deployments, newest
 * first. The argument that is a folder is the repository folder; the others are addresses.
 */
import { historyCommand } from "../reconcile/commands/history";
import { renderHistoryText } from "../reconcile/render/history-text";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder, splitFolderAndAddresses } from "./repository-folder";
import { writeReportResult } from "./report-output";

/** Exit 0 listed, 1 an error or addresses no deployment changed. */
export async function runHistoryCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("history", argv, {
    target: { type: "string", short: "t" },
    json: { type: "boolean" },
    "no-color": { type: "boolean" },
  });
  const { dir, addresses } = splitFolderAndAddresses(positionals);
  checkRepositoryFolder("history", dir);
  const result = await historyCommand({
    dir,
    target: values.target,
    env: io.env,
    only: addresses,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  writeReportResult("history", dir, io, result, !!values.json, renderHistoryText);
  return result.exitCode;
}
