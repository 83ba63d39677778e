/**
 * `svc-iac run ADDRESS [DIR] [--target T] [--param name=value]... [--format json|csv]`: runs a
 * deployed UDF once and prints its result: a table by default, the platform's JSON or CSV with
 * `--format`. The time and whether the result came from the cache follow the table on stdout, or
 * go to stderr with `--format` (stdout then holds the output alone, for a pipe).
 */
import { relative, resolve } from "node:path";
import { renderResultTable } from "../reconcile/deployed/result-table";
import { RUN_FORMATS, runCommand, type RunFormat, type RunOutcome } from "../reconcile/commands/run";
import { terminalText } from "../reconcile/render/terminal-text";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder, errorLine } from "./repository-folder";
import { CliUsageError } from "./usage";

/** `--param name=value`, repeatable: the parameters by name; a malformed or repeated one is a usage error. */
export function parseParams(given: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of given) {
    const eq = p.indexOf("=");
    const name = eq > 0 ? p.slice(0, eq) : "";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new CliUsageError(
        `Invalid --param "${p}": expected name=value, the name a Python identifier (e.g. --param city=sf).`,
      );
    if (name in out) throw new CliUsageError(`--param ${name} is given twice: give each parameter once.`);
    out[name] = p.slice(eq + 1);
  }
  return out;
}

/** `ran udf.x/y on rt-1 in 120 ms (computed now)`, or `(from the cache, computed …)`. */
export function runFooter(r: RunOutcome): string {
  const cache = r.cached
    ? `from the cache${r.cached_at ? `, computed ${r.cached_at}` : ""}`
    : "computed now, not from the cache";
  return `Ran ${r.address} on real-time instance ${r.client_id} in ${r.duration_ms.toLocaleString("en-US")} ms (${cache}).\n`;
}

/** The output as a table when it is JSON; as it is (control characters shown as escapes) otherwise. */
function shownAsTable(r: RunOutcome): string {
  try {
    return renderResultTable(JSON.parse(r.output));
  } catch {
    const text = terminalText(r.output);
    return text.endsWith("\n") ? text : `${text}\n`;
  }
}

/** `svc-iac run`: exit 0 when the UDF ran, 1 when it failed or could not be run. */
export async function runRunCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  // The output as the UDF wrote it when it goes to a file or a pipe; on a terminal, escaped here.
  return runWithGuardedIo(io, (guarded) => run(argv, guarded), true);
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("run", argv, {
    target: { type: "string", short: "t" },
    param: { type: "string", multiple: true },
    format: { type: "string" },
  });
  if (positionals.length === 0)
    throw new CliUsageError("run needs the address of a deployed UDF, e.g. svc-iac run udf.listings/stats.");
  if (positionals.length > 2)
    throw new CliUsageError(
      `Too many arguments: ${positionals.join(" ")}. Expected ADDRESS and at most one repository folder.`,
    );
  const [address, dir = "."] = positionals as [string, string?];
  const format = values.format;
  if (format !== undefined && !RUN_FORMATS.includes(format as RunFormat))
    throw new CliUsageError(`Invalid --format "${format}". Expected ${RUN_FORMATS.join(" or ")}.`);
  const params = parseParams(values.param ?? []);
  checkRepositoryFolder("run", dir);
  const result = await runCommand({
    dir,
    target: values.target,
    env: io.env,
    address,
    params,
    format: (format as RunFormat | undefined) ?? "json",
    log: (line) => io.stderr.write(`${line}\n`),
  });
  for (const e of result.errors) io.stderr.write(`${errorLine("run", dir, e)}\n`);
  if (result.errors.length)
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(dir)) || "."}; nothing was run.\n`,
    );
  // The message may quote the UDF's error: its escape sequences (window title, clear screen) are shown, not obeyed.
  if (result.message) io.stderr.write(`${terminalText(result.message)}\n`);
  const r = result.result;
  if (!r) return 1;
  if (format === undefined) {
    io.stdout.write(shownAsTable(r));
    io.stdout.write(runFooter(r));
  } else {
    // Into a pipe as the platform sent it; on a terminal with its control characters shown as escapes.
    const output = (io.stdout as { isTTY?: boolean }).isTTY ? terminalText(r.output) : r.output;
    io.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
    io.stderr.write(runFooter(r));
  }
  return 0;
}
