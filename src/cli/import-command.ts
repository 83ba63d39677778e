/** `svc-iac import [DIR]`: parses the command line, runs the import, prints its report. */
import { importCommand } from "../reconcile/import/import-command";
import { toJson } from "../reconcile/render/json";
import { renderImportText } from "../reconcile/render/import-text";
import { formatLoadError } from "../reconcile/model";
import { runWithGuardedIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { CliUsageError } from "./usage";

const OPTIONS = {
  target: { type: "string", short: "t" },
  canvas: { type: "string", multiple: true },
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

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export async function runImportCommand(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // Under GitHub Actions, names read from the platform cannot start a workflow command.
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommandArgs("import", argv, OPTIONS);
  const { values: v, positionals } = parsed;
  if (positionals.length > 1) throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one repository folder.`);
  if (v.all && v.canvas?.length) throw new CliUsageError("Give either --all or --canvas NAME, not both.");
  if (!v.all && !v.canvas?.length && !v.cronjobs && !v.secrets && !v["service-accounts"]) {
    throw new CliUsageError("Name what to import: --canvas NAME (repeatable) and any of --cronjobs, --secrets, --service-accounts, or --all for everything.");
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
  for (const e of result.errors) io.stderr.write(`${formatLoadError(e)}\n`);
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result.exitCode;
}
