/** `svc-iac import [DIR]`: parses the command line, runs the import, prints its report. */
import { importCommand } from "../reconcile/commands/import";
import type { ImportSelection } from "../reconcile/import/platform-snapshot";
import { keepCommand } from "../reconcile/commands/keep";
import { failureJson, toJson } from "../reconcile/render/json";
import { renderImportText, renderKeepText } from "../reconcile/render/import-text";
import { errorLine } from "./repository-folder";
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { CliUsageError } from "./usage";

const OPTIONS = {
  target: { type: "string", short: "t" },
  canvas: { type: "string", multiple: true },
  keep: { type: "string", multiple: true },
  all: { type: "boolean" },
  layout: { type: "string" },
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

/** The addresses `import` takes for single objects: a UDF (or note) and a cronjob. */
const SINGLE_ADDRESS = /^((?:udf|note|widget)\.[^/\s]+\/\S+|udf\.[A-Za-z0-9_-]+|cronjob\.\S+)$/;

/** What to read for single objects: the canvases of the UDFs named; every canvas for a cronjob (to name its UDF). */
function singleObjects(addresses: string[]): ImportSelection {
  const cronjobs = addresses.some((a) => a.startsWith("cronjob."));
  const onCanvas = addresses.filter((a) => /^(udf|note|widget)\./.test(a) && a.includes("/"));
  const canvases = [...new Set(onCanvas.map((a) => a.slice(a.indexOf(".") + 1, a.indexOf("/"))))];
  return { canvases: cronjobs ? "all" : canvases, cronjobs, secrets: false, serviceAccounts: false, addresses };
}

export async function runImportCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  // Under GitHub Actions, names read from the platform cannot start a workflow command.
  return runWithGuardedIo(io, (guarded) => run(argv, guarded));
}

async function run(argv: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandArgs("import", argv, OPTIONS);
  const { values: v } = parsed;
  // ADDRESS... (single objects) and at most one DIR, in any order, as show takes them.
  const addresses = parsed.positionals.filter((a) => SINGLE_ADDRESS.test(a));
  const positionals = parsed.positionals.filter((a) => !SINGLE_ADDRESS.test(a));
  if (positionals.length > 1)
    throw new CliUsageError(
      `Too many arguments: ${positionals.join(" ")}. Expected at most one repository folder, and addresses such as udf.sales/loader or cronjob.nightly.`,
    );
  if (v.keep?.length) return runKeep(v.keep, v, positionals[0], io);
  if (addresses.length) {
    const other = (["canvas", "all", "cronjobs", "secrets", "service-accounts"] as const).filter(
      (k) => v[k] !== undefined && v[k] !== false,
    );
    if (other.length)
      throw new CliUsageError(
        `Addresses import those objects only, so they take no ${other.map((k) => `--${k}`).join(", ")}: svc-iac import ADDRESS... [DIR] [--dry-run] [--force].`,
      );
  }
  if (v.all && v.canvas?.length) throw new CliUsageError("Give either --all or --canvas NAME, not both.");
  if (!addresses.length && !v.all && !v.canvas?.length && !v.cronjobs && !v.secrets && !v["service-accounts"]) {
    throw new CliUsageError(
      "Name what to import: ADDRESS... (udf.<canvas>/<slug>, udf.<slug> without a canvas, cronjob.<name>) for single objects, --canvas NAME (repeatable) and any of --cronjobs, --secrets, --service-accounts, or --all for everything.",
    );
  }
  if (v.layout !== undefined && v.layout !== "svc-iac" && v.layout !== "platform")
    throw new CliUsageError(
      `Unknown --layout ${JSON.stringify(v.layout)}. Expected "svc-iac" (canvases/<canvas>/, the default) or "platform" (the platform's own git layout: <Canvas>/collection.json, <Canvas>/<slug>/meta.json).`,
    );
  const all = !!v.all;
  const result = await importCommand({
    dir: positionals[0] ?? ".",
    target: v.target,
    env: io.env,
    select: addresses.length
      ? singleObjects(addresses)
      : {
          canvases: all ? "all" : (v.canvas ?? []),
          cronjobs: all || !!v.cronjobs,
          secrets: all || !!v.secrets,
          serviceAccounts: all || !!v["service-accounts"],
          canvaslessUdfs: all,
        },
    ...(v.layout ? { layout: v.layout as "svc-iac" | "platform" } : {}),
    dryRun: !!v["dry-run"],
    force: !!v.force,
    project: v.project,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  if (result.report) io.stdout.write(v.json ? toJson(result.report as never) : renderImportText(result.report));
  else if (v.json) io.stdout.write(failureJson(result.errors, result.message, { code: result.code }));
  for (const e of result.errors)
    io.stderr.write(`${errorLine("import", positionals[0] ?? ".", e)}
`);
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
  for (const e of result.errors) io.stderr.write(`${errorLine("import", dir ?? ".", e)}\n`);
  if (result.message) io.stderr.write(`${result.message}\n`);
  return result.exitCode;
}
