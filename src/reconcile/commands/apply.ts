/** `svc-iac apply`: plan (or read the saved plan), then lock and act; resumable. */
import { scrubDeep } from "../../api/errors";
import { applyPlan } from "../apply";
import { recordHistory } from "../history/recorder";
import { PlanDigest } from "../history/record";
import { readHistory, readSnapshots } from "../history/history-store";
import { neededSnapshots, rollbackObjects } from "../history/rollback-objects";
import type { ApplyOptions, CommandResult } from "./command-types";
import { InventoryWriter } from "../apply/inventory-writer";
import { rekeyedEntries } from "../observe/rekey-inventory";
import type { PlanOutcome } from "../plan";
import { repositoryDigest } from "../load/repository-digest";
import { canonicalJson } from "../../canonical-json";
import {
  optionDifferences,
  readSavedPlan,
  SavedPlanError,
  restrictToSaved,
  staleMessage,
  stalePolicies,
  staleObjects,
  type SavedPlan,
} from "../plan/saved-plan";
import { forceUnlockFirst, withHeldLock } from "../apply/held-lock";
import type { Inventory } from "../../model/inventory";
import type { DesiredObject } from "../../model/desired";
import type { ApplyReport } from "../plan/plan-model";
import { RepositoryJail } from "../../repository/jail";
import {
  secretValues,
  messageOf,
  type Session,
  withSession,
  planningOptions,
  targetingOf,
  makePlan,
  writtenPaths,
  publishersFor,
  tokenBlock,
  OUTPUTS_RULES,
  outputsBlock,
} from "./session";
import { rulesFor, withPolicy } from "./policy-check";
import { SwitchOver } from "../udf-tests/switch-over";
import { renderTestOutcome } from "../udf-tests/render-text";
/** Reads the saved plan at `file` and checks that it belongs to this project and target. */
async function loadSavedPlan(s: Session, file: string): Promise<SavedPlan> {
  const read = RepositoryJail.forProject(s.project.root).readOperatorFile(file);
  if (read.kind !== "text")
    throw new SavedPlanError(
      `Cannot read the saved plan ${file}: ${read.kind === "missing" ? "ENOENT" : read.message}.`,
    );
  const text = read.text;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // Where, not what: JSON.parse quotes the start of the text, and a wrong --plan may name a file of tokens (--outputs) or /proc/self/environ.
    const at = /position (\d+)/.exec(messageOf(e))?.[1];
    throw new SavedPlanError(
      `${file} is not a svc-iac saved plan: it is not JSON (${at !== undefined ? `it stops being JSON at character ${at}` : "it is cut short or starts with something else"}; its content is not shown).`,
    );
  }
  const saved = readSavedPlan(doc, file);
  if (saved.project !== s.project.project || saved.target !== s.project.target) {
    throw new SavedPlanError(
      `${file} is a plan for ${saved.project} (${saved.target}), not for ${s.project.project} (${s.project.target}): run apply with --target ${saved.target} in that project's repository.`,
    );
  }
  return saved;
}

/** The target a saved plan was made for (undefined when the file cannot tell; loading it reports why). */
async function savedPlanTarget(dir: string, file: string): Promise<string | undefined> {
  try {
    const read = RepositoryJail.forProject(dir).readOperatorFile(file);
    if (read.kind !== "text") return undefined;
    const target = (JSON.parse(read.text) as { target?: unknown }).target;
    return typeof target === "string" ? target : undefined;
  } catch {
    return undefined;
  }
}

/** The stale-plan message when the repository is not the one `saved` was planned from; undefined when it is. */
async function staleRepository(s: Session, opts: ApplyOptions, saved: SavedPlan): Promise<string | undefined> {
  const excluded = [
    ...new Set([...saved.repository.excluded, ...writtenPaths(s.project, [opts.planFile, opts.outputs])]),
  ];
  const now = await repositoryDigest(s.project.root, s.project.target, excluded);
  const before = Object.fromEntries(Object.entries(saved.repository.files).filter(([p]) => !excluded.includes(p)));
  if (canonicalJson(before) === canonicalJson(now.files)) return undefined;
  return staleMessage(opts.planFile!, { before: { ...saved.repository, files: before }, now }, []);
}

/**
 * The session `svc-iac rollback` plans with: the objects as they were after deployment `to` (see
 * `rollback-objects.ts`), only the rolled-back addresses planned, deletions of what came after.
 */
async function rollbackSession(
  s: Session,
  opts: ApplyOptions,
  rollback: NonNullable<ApplyOptions["rollback"]>,
): Promise<{ session: Session; opts: ApplyOptions } | { message: string }> {
  const index = await readHistory(s.backend, s.project.project, s.project.target);
  const ids = index.deployments.map((d) => d.id);
  if (!ids.includes(rollback.to))
    return {
      message: ids.length
        ? `There is no deployment ${rollback.to} in the history of ${s.project.project} (${s.project.target}): it keeps ${ids.join(", ")}. svc-iac history lists them.`
        : `The history of ${s.project.project} (${s.project.target}) holds no deployment yet: apply records one.`,
    };
  const snapshots = await readSnapshots(s.backend, index, neededSnapshots(index, rollback.to));
  const back = rollbackObjects(s.project.objects, index, rollback.to, rollback.addresses, snapshots);
  if (back.problems.length) return { message: back.problems.join("\n") };
  return {
    session: { ...s, project: { ...s.project, objects: back.objects } },
    opts: { ...opts, only: back.selected, prune: true },
  };
}

/**
 * What rollback says once done: the repository still holds the newer settings, and how to write
 * the restored ones into it: `import --keep` for what was put back, and the files to delete for
 * what the rollback deleted (made after that deployment, still declared).
 */
function divergence(s: Session, opts: ApplyOptions, report: ApplyReport, declared: readonly DesiredObject[]): string {
  const done = report.results.filter((r) => r.status === "done");
  const deleted = new Set(done.filter((r) => r.action === "delete").map((r) => r.address));
  const kept = [...new Set(done.map((r) => r.address))].filter((a) => !deleted.has(a));
  const lines = [
    `The platform is back at deployment ${opts.rollback!.to}, but the repository still declares the later settings: the next apply puts them back.`,
  ];
  if (kept.length)
    lines.push(
      `To keep the rollback, write the platform's settings into the files with: svc-iac import ${s.project.root === process.cwd() ? "" : `${opts.dir} `}${kept.map((a) => `--keep ${a}`).join(" ")}`,
    );
  const files = declared.filter((d) => deleted.has(d.address)).map((d) => `${d.address} (${d.source.file})`);
  if (files.length)
    lines.push(
      `The rollback deleted what was made after deployment ${opts.rollback!.to}; to keep that, remove their declarations: ${files.join(", ")}`,
    );
  return lines.join("\n");
}

/** `svc-iac apply`: takes the lock, plans, stops on a safety rule, applies, reports. */
export async function applyCommand(opts: ApplyOptions): Promise<CommandResult> {
  // A saved plan names its target: it is the default.
  if (opts.planFile && opts.target === undefined)
    opts = { ...opts, target: await savedPlanTarget(opts.dir, opts.planFile) };
  return withSession(opts, "apply", async (s) => {
    const now = opts.now ?? (() => new Date());
    // Bad --only / --replace: say so before the lock is touched (a remote lock is a write).
    if (!opts.planFile) targetingOf(s, planningOptions(s, opts, false), await s.backend.readInventory());
    // Rules that do not compile stop apply before the lock is touched.
    const rules = await rulesFor(opts);
    if (rules.errors.length) return { command: "apply", exitCode: 1, errors: rules.errors };
    const noLock = await forceUnlockFirst(s.backend, opts);
    if (noLock) return { command: "apply", exitCode: 1, errors: [], message: noLock };
    return withHeldLock(s.backend, opts, "apply", async (stopReason) => {
      const saved = opts.planFile ? await loadSavedPlan(s, opts.planFile) : undefined;
      const stale =
        saved && (stalePolicies(opts.planFile!, saved, rules.set) ?? (await staleRepository(s, opts, saved)));
      if (stale) return { command: "apply", exitCode: 1, errors: [], message: stale };
      const declared = s.project.objects;
      if (opts.rollback) {
        const back = await rollbackSession(s, opts, opts.rollback);
        if ("message" in back) return { command: "apply", exitCode: 1, errors: [], message: back.message };
        ({ session: s, opts } = back);
      }
      const planned = await makePlan(s, opts, false, saved);
      let outcome: PlanOutcome & { inventory: Inventory | undefined } = planned;
      if (saved) {
        // The saved plan's text is scrubbed of secret values: so is what it is compared with.
        const secrets = [...secretValues(s.project, opts.env)];
        const changed = staleObjects(saved, {
          ...outcome,
          steps: outcome.steps.map((st) => ({ ...st, action: scrubDeep(st.action, secrets) })),
        });
        if (changed.length)
          return {
            command: "apply",
            exitCode: 1,
            errors: [],
            message: staleMessage(opts.planFile!, undefined, changed),
          };
        outcome = { ...restrictToSaved(outcome, saved), inventory: outcome.inventory };
        // Where tokens go is this apply's own --outputs, checked again below: the stop recorded when the plan was saved does not bind it.
        outcome.plan = { ...outcome.plan, blocks: outcome.plan.blocks.filter((b) => !OUTPUTS_RULES.includes(b.rule)) };
        // What the caller asked for (flags, inputs, svc.yaml) that the saved plan's own options override.
        const differences = optionDifferences(saved.options, planningOptions(s, opts, false));
        for (const line of differences) opts.log?.(line);
        if (differences.length)
          outcome.plan = { ...outcome.plan, warnings: [...outcome.plan.warnings, ...differences] };
      }
      // The rules again, on exactly what apply is about to do.
      withPolicy({ ...outcome, observation: planned.observation }, rules, s.project, "apply");
      const publishers = publishersFor(opts);
      tokenBlock(outcome, publishers, opts);
      await outputsBlock(outcome, opts);
      const { plan } = outcome;
      if (plan.blocks.length) {
        const again =
          saved && plan.blocks.some((b) => !OUTPUTS_RULES.includes(b.rule))
            ? `\n${opts.planFile} cannot be applied as it is: a saved plan keeps the options it was made with. Make a new one with svc-iac plan --out and the flag named above.`
            : "";
        return {
          command: "apply",
          exitCode: 1,
          errors: [],
          plan,
          message: plan.blocks.map((b) => b.message).join("\n") + again,
        };
      }
      // Ctrl-C while the plan was made (under the lock): nothing starts.
      if (opts.interrupted?.())
        return {
          command: "apply",
          exitCode: 1,
          errors: [],
          plan,
          message: "Interrupted before any change; nothing was applied.",
        };
      // What the operator is shown before the first change: the plan without secret values (see withSession).
      const shown = scrubDeep(plan, [...secretValues(s.project, opts.env)]);
      // A saved plan was reviewed already: applying it is the approval (as `terraform apply FILE`).
      if (!saved && plan.actions.length && opts.confirm && !(await opts.confirm(shown))) {
        return { command: "apply", exitCode: 1, errors: [], plan, message: "Apply cancelled: nothing was changed." };
      }
      if (plan.actions.length) opts.approved?.(shown);
      // Candidates of tested switch-overs an earlier apply left (it was stopped) go first.
      const switchOver = new SwitchOver({
        client: s.connection.client,
        backend: s.backend,
        tests: s.project.tests ?? [],
        now,
        secrets: secretValues(s.project, opts.env),
        onResult: (o) => opts.log?.(`candidate test: ${renderTestOutcome(o).trimEnd()}`),
      });
      for (const line of await switchOver.cleanup()) opts.log?.(line);
      const writer = new InventoryWriter(s.backend, outcome.inventory, s.project, now);
      for (const [address, entry] of rekeyedEntries(outcome.inventory, planned.observation, s.fingerprintKey))
        writer.set(address, entry);
      // The deployment record's digest of the plan, made while apply waits on the platform's answers.
      const digest = s.project.settings.history.off ? undefined : new PlanDigest(plan);
      const report = await applyPlan(
        {
          client: s.connection.client,
          project: s.project,
          inventory: writer,
          publishers,
          concurrency: opts.concurrency ?? s.project.settings.concurrency,
          now,
          progress: opts.progress,
          secrets: secretValues(s.project, opts.env),
          stopReason,
          fingerprintKey: s.fingerprintKey,
          // A rollback puts back bodies that were live before: the tests of today's body do not apply to them.
          ...(opts.rollback ? {} : { switchOver }),
        },
        outcome,
      );
      const deployment = await recordHistory({
        backend: s.backend,
        project: s.project,
        operation: opts.rollback ? "rollback" : "apply",
        ...(opts.rollback ? { rollbackOf: opts.rollback.to } : {}),
        plan,
        ...(digest ? { digest } : {}),
        steps: outcome.steps,
        report,
        managedBefore: new Set(Object.keys(outcome.inventory?.objects ?? {})),
        now: now(),
        env: opts.env,
        written: writtenPaths(s.project, [opts.planFile, opts.outputs]),
      }).catch((e: unknown) => {
        opts.log?.(`The deployment history in ${s.backend.location} was not written: ${messageOf(e)}`);
        return undefined;
      });
      if (deployment) report.deployment = deployment;
      if (opts.rollback && report.results.some((r) => r.status === "done"))
        opts.log?.(divergence(s, opts, report, declared));
      return { command: "apply", exitCode: report.ok ? 0 : 1, errors: [], plan, report };
    });
  });
}
