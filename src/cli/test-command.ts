/**
 * `svc-iac test [DIR] [--target T] [--only ADDRESS]... [--json]`, and the tests `apply --test`
 * runs after an apply. Results go to stdout as they come (or one JSON document with --json);
 * notices and errors to stderr.
 */
import { relative, resolve } from "node:path";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { terminalLoadError } from "../reconcile/render/terminal-text";
import type { CommandResult } from "../reconcile/commands/command-types";
import { sortKeysDeep } from "../canonical-json";
import { failureJson } from "../reconcile/render/json";
import { renderTestOutcome, renderTestSummary, testHeading } from "../reconcile/udf-tests/render-text";
import {
  changedUdfs,
  testCommand,
  type TestCommandOptions,
  type TestCommandResult,
} from "../reconcile/udf-tests/test-command";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder } from "./repository-folder";
import { CliUsageError } from "./usage";

/** The JSON document of `test --json`: keys sorted, two-space indent. */
export const testReportJson = (r: TestCommandResult) =>
  r.report ? `${JSON.stringify(sortKeysDeep(r.report), null, 2)}\n` : failureJson(r.errors, r.message);

/** Runs the tests; live text output unless `json`. */
async function run(opts: TestCommandOptions, json: boolean, io: CommandIo): Promise<TestCommandResult> {
  const live = json
    ? {}
    : {
        onStart: (i: { project: string; target: string; clientId: string }) =>
          io.stdout.write(testHeading(i.project, i.target, i.clientId)),
        onResult: (o: Parameters<typeof renderTestOutcome>[0]) => io.stdout.write(renderTestOutcome(o)),
      };
  const result = await testCommand({ ...opts, ...live, log: (line) => io.stderr.write(`${line}\n`) });
  if (!json && result.report) io.stdout.write(renderTestSummary(result.report));
  for (const e of result.errors) io.stderr.write(`${terminalLoadError(e)}\n`);
  if (result.errors.length)
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(opts.dir)) || "."}; no test was run.\n`,
    );
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result;
}

/**
 * `svc-iac test`: exit 0 when every test passed (or none is declared), 1 on a failure or an error.
 * Results hold text from the platform (tracebacks, values): under GitHub Actions every line goes
 * through the command guard, as for the other commands, so none of it can start a workflow command.
 */
export async function runTestCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  return runWithGuardedIo(io, (guarded) => runTest(argv, guarded));
}

async function runTest(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("test", argv, {
    target: { type: "string", short: "t" },
    only: { type: "string", multiple: true },
    json: { type: "boolean" },
    "no-color": { type: "boolean" },
  });
  if (positionals.length > 1)
    throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one repository folder.`);
  const dir = positionals[0] ?? ".";
  checkRepositoryFolder("test", dir);
  const result = await run({ dir, target: values.target, env: io.env, only: values.only }, !!values.json, io);
  if (values.json) io.stdout.write(testReportJson(result));
  return result.exitCode;
}

/**
 * `apply --test`: after a successful apply, the tests of the UDFs it created or changed. Undefined
 * when the apply failed (nothing is tested then; the apply's exit code already says so).
 */
export async function testAfterApply(
  result: CommandResult,
  opts: { dir: string; target?: string; json: boolean },
  io: CommandIo = processIo(),
): Promise<TestCommandResult | undefined> {
  if (result.command !== "apply" || result.exitCode !== 0 || !result.report) {
    io.stderr.write("Tests not run: the apply did not complete.\n");
    return undefined;
  }
  if (!opts.json) io.stdout.write("\n");
  return run(
    {
      dir: opts.dir,
      target: opts.target ?? result.report.target,
      env: io.env,
      addresses: changedUdfs(result.report.results),
    },
    opts.json,
    io,
  );
}
