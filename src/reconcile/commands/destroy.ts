/**
 * `svc-iac destroy`: deletes every object in the target's inventory, and nothing else, in reverse
 * dependency order (cronjobs, shares, UDFs, canvases, service accounts, secrets), under the lock,
 * and leaves the inventory empty. It is the plan of a repository that declares nothing, applied
 * with prune: the same planner (so the same protection and cascade rules) and the same apply
 * (so a destroy stopped halfway is finished by running it again). Only svc.yaml is read, so the
 * repository's secrets need not be in the environment.
 */
import { errorCodeOf } from "../../errors";
import type { SvcClient } from "../../api/client";
import { applyPlan } from "../apply";
import { recordHistory } from "../history/recorder";
import { SwitchOver } from "../udf-tests/switch-over";
import type { CommandOptions, CommandResult, DestroyOptions } from "./command-types";
import { otherClaimsOf } from "../projects/project-claims";
import { connect, refusedCredentialsHint } from "./connect";
import { forceUnlockFirst, withHeldLock } from "../apply/held-lock";
import { InventoryWriter } from "../apply/inventory-writer";
import { loadProjectSettings } from "../load";
import type { LoadedProject } from "../../model/desired";
import { observe, type Observation } from "../observe";
import { planChanges, type PlanOutcome } from "../plan";
import { PROTECTED_RULE, protectedInventoryBlocks } from "../plan/protect";
import { openStateBackend } from "../state/open-backend";
import type { FingerprintKey } from "../../kinds/fingerprint";
import type { Inventory } from "../../model/inventory";
import type { StateBackend } from "../state/types";

export type DestroyResult = Extract<CommandResult, { command: "destroy" }>;

/** The deletions of everything `inventory` records that is still on the platform (pure). */
export function planDestroy(
  project: LoadedProject,
  observation: Observation,
  inventory: Inventory | undefined,
  now: Date,
  allowCascade: boolean,
  fingerprintKey?: FingerprintKey,
): PlanOutcome {
  const outcome = planChanges({
    // Destroy deletes what the inventory records, removed: entries not yet applied included.
    project: { ...project, objects: [], moved: [], removed: [] },
    observation,
    inventory,
    now,
    prune: true,
    // Deleting everything is what destroy is for: the prune guards do not apply.
    maxDeletions: Number.MAX_SAFE_INTEGER,
    allowDeleteAll: true,
    allowCascade,
    fingerprintKey,
  });
  // The planner's reason ("removed from the repository") is not why destroy deletes.
  for (const a of outcome.plan.actions) delete a.reason;
  // Protection, worded for destroy (the planner's words are about leaving the repository).
  const deleted = outcome.plan.actions.map((a) => a.address);
  outcome.plan.blocks = [
    ...protectedInventoryBlocks(inventory, deleted, "destroy"),
    ...outcome.plan.blocks.filter((b) => b.rule !== PROTECTED_RULE),
  ];
  return outcome;
}

async function destroyWith(
  opts: CommandOptions,
  project: LoadedProject,
  backend: StateBackend,
  client: SvcClient,
): Promise<DestroyResult> {
  const now = opts.now ?? (() => new Date());
  const noLock = await forceUnlockFirst(backend, opts);
  if (noLock) return { command: "destroy", exitCode: 1, errors: [], message: noLock };
  return withHeldLock(backend, opts, "destroy", async (stopReason) => {
    const inventory = await backend.readInventory();
    // Fingerprints only matter to what is kept: an existing key is used, none is made.
    const fingerprintKey = await backend.fingerprintKey({ create: false });
    const observation = await observe(client, project, inventory, fingerprintKey);
    const outcome = planDestroy(project, observation, inventory, now(), opts.allowCascade ?? false, fingerprintKey);
    const { plan } = outcome;
    if (plan.blocks.length)
      return {
        command: "destroy",
        exitCode: 1,
        errors: [],
        plan,
        message: `${plan.blocks.map((b) => b.message).join("\n")}\nNothing was destroyed.`,
      };
    // Ctrl-C while the plan was made (under the lock): nothing starts.
    if (opts.interrupted?.())
      return {
        command: "destroy",
        exitCode: 1,
        errors: [],
        plan,
        message: "Interrupted before any change; nothing was destroyed.",
      };
    if (plan.actions.length && opts.confirm && !(await opts.confirm(plan))) {
      return { command: "destroy", exitCode: 1, errors: [], plan, message: "Destroy cancelled: nothing was changed." };
    }
    if (plan.actions.length) opts.approved?.(plan);
    // A switch-over's candidate a stopped apply left (`deploy: tested`) goes with the rest.
    const candidates = new SwitchOver({ client, backend, tests: [], now, secrets: new Set() });
    for (const line of await candidates.cleanup()) opts.log?.(line);
    const writer = new InventoryWriter(backend, inventory, project, now);
    const report = await applyPlan(
      {
        client,
        project,
        inventory: writer,
        publishers: [],
        concurrency: opts.concurrency ?? project.settings.concurrency,
        now,
        progress: opts.progress,
        secrets: new Set(),
        stopReason,
        fingerprintKey,
      },
      outcome,
    );
    const deployment = await recordHistory({
      backend,
      project,
      operation: "destroy",
      plan,
      steps: outcome.steps,
      report,
      managedBefore: new Set(Object.keys(inventory?.objects ?? {})),
      now: now(),
      env: opts.env,
    }).catch((e: unknown) => {
      opts.log?.(`The deployment history in ${backend.location} was not written: ${(e as Error)?.message ?? e}`);
      return undefined;
    });
    if (deployment) report.deployment = deployment;
    return { command: "destroy", exitCode: report.ok ? 0 : 1, errors: [], plan, report };
  });
}

/** `svc-iac destroy`: loads svc.yaml, connects, and destroys what the target's inventory records. */
export async function destroyCommand(opts: DestroyOptions): Promise<DestroyResult> {
  const loaded = await loadProjectSettings(opts.dir, { target: opts.target, env: opts.env });
  if (!loaded.ok) return { command: "destroy", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  // Another folder of the repository with this name would share its state and objects: refused.
  const claimed = await otherClaimsOf(opts.dir, project.project);
  if (claimed.length) return { command: "destroy", exitCode: 1, errors: claimed };
  let connection: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    connection = await connect(project, opts.env, { log: opts.log, client: opts.client });
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client: connection.client,
      project: project.project,
      target: project.target,
    });
    return await destroyWith(opts, project, backend, connection.client);
  } catch (e) {
    // API errors are scrubbed where they are made; destroy reads no secret value of its own.
    return {
      command: "destroy",
      exitCode: 1,
      errors: [],
      message: (e instanceof Error ? e.message : String(e)) + refusedCredentialsHint(e, project, opts.env),
      code: errorCodeOf(e),
    };
  } finally {
    await connection?.close();
  }
}
