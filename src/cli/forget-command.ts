/** `svc-iac forget [DIR] ADDRESS...`: parses the command line, forgets the objects, prints what it did. */
import { forgetCommand, type ForgetResult } from "../reconcile/commands/forget";
import { errorLine } from "./repository-folder";
import { failureJson } from "../reconcile/render/json";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { CliUsageError } from "./usage";

const OPTIONS = {
  target: { type: "string", short: "t" },
  json: { type: "boolean" },
  "no-color": { type: "boolean" },
} as const;

/** An address as plan and drift print it (a folder is anything else). */
const ADDRESS = /^(bucket_policy|canvas|cronjob|note|secret|service_account|share|udf|widget)\../;

export async function runForgetCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values: v, positionals } = parseCommandArgs("forget", argv, OPTIONS);
  const [first, ...rest] = positionals;
  const dir = first !== undefined && !ADDRESS.test(first) ? first : undefined;
  const addresses = dir === undefined ? positionals : rest;
  const stray = addresses.filter((a) => !ADDRESS.test(a));
  if (stray.length)
    throw new CliUsageError(
      `found ${stray.map((s) => JSON.stringify(s)).join(", ")}, expected addresses such as udf.ops_reports/loader or canvas.ops_reports (only the first argument may be the repository folder).`,
    );
  if (!addresses.length)
    throw new CliUsageError(
      "Name what to forget: one or more addresses, as plan and drift print them (e.g. svc-iac forget udf.ops_reports/loader).",
    );
  const result = await forgetCommand({
    dir: dir ?? ".",
    target: v.target,
    env: io.env,
    addresses,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  if (v.json)
    io.stdout.write(
      result.exitCode === 0
        ? `${JSON.stringify({ version: 1, forgotten: result.forgotten, state: result.state }, null, 2)}\n`
        : failureJson(result.errors, result.message, { code: result.code }),
    );
  else if (result.exitCode === 0) io.stdout.write(forgetText(result));
  for (const e of result.errors) io.stderr.write(`${errorLine("forget", dir ?? ".", e)}\n`);
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result.exitCode;
}

function forgetText(r: ForgetResult): string {
  const lines = (r.forgotten ?? []).map((f) => `  ${f.address} (id ${f.id})`);
  return `Forgotten (left on the platform, no longer managed; state ${r.state}):\n${lines.join("\n")}\nPlan and drift leave ${lines.length > 1 ? "them" : "it"} alone; svc-iac import can bind ${lines.length > 1 ? "them" : "it"} again.\n`;
}
