/**
 * `svc-iac history [DIR] [--target T] [ADDRESS]... [--json]`: the target's deployments, newest
 * first. The argument that is a folder is the repository folder; the others are addresses.
 */
import { relative, resolve } from "node:path";
import { sortKeysDeep } from "../canonical-json";
import { historyCommand } from "../reconcile/commands/history";
import { renderHistoryText } from "../reconcile/render/history-text";
import { failureJson } from "../reconcile/render/json";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder, errorLine, splitFolderAndAddresses } from "./repository-folder";

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
  for (const e of result.errors) io.stderr.write(`${errorLine("history", dir, e)}\n`);
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
  else if (result.report) io.stdout.write(renderHistoryText(result.report));
  return result.exitCode;
}
