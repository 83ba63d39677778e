/**
 * `svc-iac import --keep ADDRESS`: brings what drifted on one object (as `svc-iac drift` reports
 * it) into the files that declare it, and nothing else: no other file, key or object is written,
 * and nothing is bound (the object is managed already). All or nothing: a field it cannot write
 * back without losing information (a `${var...}` reference, a field it does not write) refuses the
 * whole keep, naming where and why.
 */
import { driftPlan } from "./drift";
import { driftReport } from "../plan/drift";
import type { LoadedProject, LoadError } from "../../model/desired";
import type { PlanOutcome } from "../plan";
import type { FileStatus } from "./import";
import { editedRepositoryErrors } from "../import/edited-repository-check";
import { keepEdits, type KeepObject } from "../import/keep-edits";
import { keepPlace, keepUnavailable } from "../import/keep-fields";
import { readMaybe, writeInside } from "../import/read-maybe";

export interface KeepOptions {
  dir: string;
  /** @default "default" */
  target?: string;
  env: Record<string, string | undefined>;
  /** Addresses of changed objects, exactly as the drift report names them. */
  addresses: readonly string[];
  /** List what would be written; write nothing. */
  dryRun?: boolean;
  log?: (line: string) => void;
}

export interface KeepReport {
  version: 1;
  project: string;
  target: string;
  dryRun: boolean;
  files: { path: string; status: Exclude<FileStatus, "unchanged"> }[];
  /** The objects whose drifted fields were written, with those fields. */
  kept: { address: string; fields: string[] }[];
  /** Addresses asked for that match the platform already: nothing to keep. */
  unchanged: string[];
}

export interface KeepResult {
  command: "import";
  exitCode: 0 | 1;
  errors: LoadError[];
  keep?: KeepReport;
  message?: string;
}

const refused = (lines: string[]): KeepResult => ({
  command: "import",
  exitCode: 1,
  errors: [],
  message: [...lines, "Nothing was written."].join("\n"),
});

export async function keepCommand(opts: KeepOptions): Promise<KeepResult> {
  const planned = await driftPlan({ dir: opts.dir, target: opts.target, env: opts.env, log: opts.log });
  if (!planned.ok)
    return {
      command: "import",
      exitCode: 1,
      errors: planned.errors,
      ...(planned.message ? { message: planned.message } : {}),
    };
  const kept = await keepFromPlan(planned.project, planned.outcome, opts);
  return kept.ok ? { command: "import", exitCode: 0, errors: [], keep: kept.report } : refused(kept.problems);
}

/**
 * The platform's version of the changed objects `opts.addresses` written into the files that
 * declare them, from a drift plan already made (`keepCommand`, `drift --remediate`); all or
 * nothing: on any problem nothing is written and the problems say why.
 */
export async function keepFromPlan(
  project: LoadedProject,
  outcome: PlanOutcome,
  opts: Pick<KeepOptions, "addresses" | "target" | "env" | "dryRun">,
): Promise<{ ok: true; report: KeepReport } | { ok: false; problems: string[] }> {
  const items = driftReport(outcome).items;
  const problems: string[] = [];
  const objects: KeepObject[] = [];
  const unchanged: string[] = [];
  for (const address of [...new Set(opts.addresses)].sort()) {
    const item = items.find((i) => i.address === address);
    const declared = project.objects.find((o) => o.address === address);
    if (!item) {
      if (declared) unchanged.push(address);
      else
        problems.push(
          `${address} is not declared in the repository (target ${project.target}); --keep takes the address of a changed object as svc-iac drift reports it, e.g. udf.<canvas>/<slug>.`,
        );
      continue;
    }
    if (item.class !== "changed") {
      problems.push(
        `${address} is ${item.class} (see svc-iac drift), not changed: --keep brings a changed object's fields into its files.`,
      );
      continue;
    }
    const step = outcome.steps.find((s) => s.action.address === address)!;
    const why = keepUnavailable(item.kind, item.fields, item.source?.file);
    if (why || !step.desired) {
      problems.push(`${address}: ${why ?? "it is not declared in the repository"}.`);
      continue;
    }
    const platform = { ...(step.observed?.state ?? {}), ...(step.olds ?? {}) } as Record<string, unknown>;
    objects.push({
      address,
      kind: item.kind,
      source: step.desired.source,
      changes: item.fields
        .filter((f) => keepPlace(item.kind, f.field))
        .map((f) => ({ field: f.field, platform: platform[f.field] })),
    });
  }
  if (problems.length) return { ok: false, problems };
  const paths = [...new Set(objects.flatMap((o) => [o.source.file, o.source.file.replace(/\.py$/, ".yaml")]))];
  const texts = new Map(await Promise.all(paths.map(async (p) => [p, await readMaybe(project.root, p)] as const)));
  const edits = keepEdits(objects, texts);
  if (!edits.ok) return { ok: false, problems: edits.problems };
  // All or nothing, also for what the platform holds: a value the repository format refuses (a
  // body that is plain Python, not svc-iac's JSON: no code, no entrypoint) is never written.
  const invalid = await editedRepositoryErrors(project.root, edits.files, { target: opts.target, env: opts.env });
  if (invalid.length) {
    return {
      ok: false,
      problems: [
        `Keeping the platform's version of ${objects.map((o) => o.address).join(", ")} would leave a repository that does not validate:`,
        ...invalid.map((line) => `  ${line}`),
        `Restore the repository's version instead (svc-iac apply --only ADDRESS), or edit the files by hand.`,
      ],
    };
  }
  const report: KeepReport = {
    version: 1,
    project: project.project,
    target: project.target,
    dryRun: !!opts.dryRun,
    files: edits.files.map((f) => ({ path: f.path, status: texts.get(f.path) === undefined ? "create" : "update" })),
    kept: objects.map((o) => ({ address: o.address, fields: o.changes.map((c) => c.field) })),
    unchanged,
  };
  if (!opts.dryRun) {
    for (const f of edits.files) {
      writeInside(project.root, f.path, f.text);
    }
  }
  return { ok: true, report };
}
