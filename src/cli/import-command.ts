/** `svc-iac import [DIR]`: parses the command line, runs the import, prints its report. */
import { importCommand } from "../reconcile/import/import-command";
import { keepCommand } from "../reconcile/import/keep-command";
import { failureJson, toJson } from "../reconcile/render/json";
import { renderImportText, renderKeepText } from "../reconcile/render/import-text";
import { terminalLoadError } from "../reconcile/render/terminal-text";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { CliUsageError } from "./usage";

const OPTIONS = {
  target: { type: "string", short: "t" },
  canvas: { type: "string", multiple: true },
  keep: { type: "string", multiple: true },
  all: { type: "boolean" },
  cronjobs: { type: "boolean" },
  secrets: { type: "boolean" },
  "service-accounts": { type: "boolean" },
  "dry-run": { type: "boolean" },
  force: { type: "boolean" },
  project: { type: "string" },
  json: { type: "boolean" },
  // Accepted as by every repository command (the import report has no colours).
  "no-color": { type: "boolean" },
} as const;

export async function runImportCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  // Under GitHub Actions, names read from the platform cannot start a workflow command.
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandArgs("import", argv, OPTIONS);
  const { values: v, positionals } = parsed;
  if (positionals.length > 1)
    throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one repository folder.`);
  if (v.keep?.length) return runKeep(v.keep, v, positionals[0], io);
  if (v.all && v.canvas?.length) throw new CliUsageError("Give either --all or --canvas NAME, not both.");
  if (!v.all && !v.canvas?.length && !v.cronjobs && !v.secrets && !v["service-accounts"]) {
    throw new CliUsageError(
      "Name what to import: --canvas NAME (repeatable) and any of --cronjobs, --secrets, --service-accounts, or --all for everything.",
    );
  }
  const all = !!v.all;
  const result = await importCommand({
    dir: positionals[0] ?? ".",
    target: v.target,
    env: io.env,
    select: {
      canvases: all ? "all" : (v.canvas ?? []),
      cronjobs: all || !!v.cronjobs,
      secrets: all || !!v.secrets,
      serviceAccounts: all || !!v["service-accounts"],
    },
    dryRun: !!v["dry-run"],
    force: !!v.force,
    project: v.project,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  if (result.report) io.stdout.write(v.json ? toJson(result.report as never) : renderImportText(result.report));
  else if (v.json) io.stdout.write(failureJson(result.errors, result.message));
  for (const e of result.errors) io.stderr.write(`${terminalLoadError(e)}\n`);
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result.exitCode;
}

/** `import --keep ADDRESS [--keep ADDRESS]...`: only the drifted fields of those objects, into their files. */
async function runKeep(
  addresses: string[],
  v: ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"],
  dir: string | undefined,
  io: CommandIo,
): Promise<number> {
  const other = (["canvas", "all", "cronjobs", "secrets", "service-accounts", "force", "project"] as const).filter(
    (k) => v[k] !== undefined && v[k] !== false,
  );
  if (other.length) {
    throw new CliUsageError(
      `--keep writes only the drifted fields of the objects it names, so it takes no ${other.map((k) => `--${k}`).join(", ")}. Run it alone: svc-iac import --keep ADDRESS [--target T] [--dry-run].`,
    );
  }
  const result = await keepCommand({
    dir: dir ?? ".",
    target: v.target,
    env: io.env,
    addresses,
    dryRun: !!v["dry-run"],
    log: (line) => io.stderr.write(`${line}\n`),
  });
  if (result.keep) io.stdout.write(v.json ? toJson(result.keep as never) : renderKeepText(result.keep));
  else if (v.json) io.stdout.write(failureJson(result.errors, result.message));
  for (const e of result.errors) io.stderr.write(`${terminalLoadError(e)}\n`);
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result.exitCode;
}
