/**
 * `svc-iac projects [DIR] [--changed-since REF] [--target T]... [--json | --format matrix|json]`: the
 * projects of a monorepo (folders holding svc.yaml), or those a change since REF affects. `--json`
 * (`--format matrix`) prints exactly what a GitHub Actions `strategy.matrix` takes (a matrix
 * cannot carry more: any other key would be a dimension); `--format json` prints the whole result
 * for scripts, removed projects included. The list, removed projects and errors go to stderr then,
 * so stdout stays one JSON document.
 */
import { processIo, runWithGuardedIo, type CommandIo } from "./actions-io";
import { parseCommandArgs } from "./command-args";
import { checkRepositoryFolder } from "./repository-folder";
import { CliUsageError } from "./usage";
import { projectsCommand, projectsText } from "../reconcile/commands/projects";
import { GitError } from "../reconcile/projects/git-changes";

const FORMATS = ["matrix", "json"];

/** Exit 0 listed (also when none is affected), 1 an error (a bad reference, a project whose svc.yaml does not load). */
export async function runProjectsCommand(argv: string[], io: CommandIo = processIo()): Promise<number> {
  return runWithGuardedIo(io, (guarded) => runProjects(argv, guarded));
}

async function runProjects(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("projects", argv, {
    "changed-since": { type: "string" },
    target: { type: "string", short: "t", multiple: true },
    json: { type: "boolean" },
    format: { type: "string" },
    "no-color": { type: "boolean" },
  });
  const format = values.format ?? (values.json ? "matrix" : undefined);
  if (format !== undefined && !FORMATS.includes(format))
    throw new CliUsageError(`Invalid --format "${format}". Expected ${FORMATS.join(" or ")}.`);
  if (values.json && values.format !== undefined && values.format !== "matrix")
    throw new CliUsageError(`--json is --format matrix: give one of them.`);
  if (positionals.length > 1)
    throw new CliUsageError(`projects: too many arguments: ${positionals.join(" ")}. Expected at most one folder.`);
  const dir = positionals[0] ?? ".";
  checkRepositoryFolder("projects", dir);
  const changedSince = values["changed-since"];
  let result;
  try {
    result = await projectsCommand({ dir, changedSince, targets: values.target });
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    if (format === "matrix") io.stdout.write(`${JSON.stringify({ include: [] })}\n`);
    io.stderr.write(`svc-iac: projects: ${e.message}\n`);
    return 1;
  }
  const text = projectsText(result, changedSince);
  if (format === "matrix") {
    io.stdout.write(`${JSON.stringify(result.matrix)}\n`);
    io.stderr.write(text);
  } else if (format === "json") {
    const { root: _root, ...shown } = result;
    io.stdout.write(
      `${JSON.stringify({ version: 1, ...(changedSince ? { changed_since: changedSince } : {}), ...shown }, null, 2)}\n`,
    );
    io.stderr.write(text);
  } else {
    io.stdout.write(text);
  }
  return result.errors.length ? 1 : 0;
}
