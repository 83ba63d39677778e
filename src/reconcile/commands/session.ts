/**
 * What plan, apply and drift share: a session (the repository loaded, the connection, the state and
 * the observation), planning it, and the checks on tokens and outputs before a plan is applied.
 */
import { scrub, scrubDeep } from "../../api/errors";
import { errorCodeOf } from "../../errors";
import type {
  CommandOptions,
  CommandResult,
  PlanningOptions,
  RepositoryOptions,
  TokenOptions,
  TokenPublisher,
} from "./command-types";
import { connect, refusedCredentialsHint, type Connection } from "./connect";
import { otherClaimsOf } from "../projects/project-claims";
import { loadRepositoryStaged, type ProjectSettingsOnly } from "../load";
import type { DesiredKind, LoadedProject, LoadError } from "../../model/desired";
import { observe, ObservationStart, type Observation } from "../observe";
import { FingerprintKey } from "../../kinds/fingerprint";
import { outputsPublisher, readOutputsFile } from "../apply/outputs-file";
import { planChanges, type PlanOutcome } from "../plan";
import { PreflightError, preflightErrors } from "../plan/preflight";
import { scrubSecrets } from "../load/validate";
import { adoptionCandidates, crossTargetBlocks } from "../plan/cross-target";
import { otherTargetInventories } from "../state/other-targets";
import { resolveTargeting, type Targeting } from "../plan/targeting";
import { repositoryDigest, repositoryPaths } from "../load/repository-digest";
import { savedPlanOf, sealSavedPlan, type SavedPlan, type SavedPlanOptions } from "../plan/saved-plan";
import { traitsOf } from "../phases";
import { toJson } from "../render/json";
import { openStateBackend } from "../state/open-backend";
import type { Inventory } from "../../model/inventory";
import type { StateBackend } from "../state/types";
import { RepositoryJail } from "../../repository/jail";
import { applyMessages, notifyAll } from "./notifications";
import { prepareSnapshots } from "../history/record";

/** Every secret value of the project and the target's tokens (to scrub from messages and results). */
export function secretValues(project: LoadedProject, env: CommandOptions["env"]): Set<string> {
  const c = project.settings.credentials;
  return new Set(
    [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv].map((n) => env[n]).filter((v): v is string => !!v),
  );
}

/** API, lock and state errors all carry a readable message (API errors already scrubbed). */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface Session {
  project: LoadedProject;
  connection: Connection;
  backend: StateBackend;
  /** The project's fingerprint key (see {@link sessionKey}). */
  fingerprintKey: FingerprintKey;
  /** The bulk reads started while the loader's Python check ran (plan and drift; apply observes under its lock). */
  started?: ObservationStart;
}

/**
 * The project's fingerprint key, made on first use. A plan or drift whose state cannot hold one (a
 * read-only remote state) goes on with a key for this run only, whose fingerprints are never shown;
 * apply writes the state anyway, so it fails there as it would on the inventory.
 */
export async function sessionKey(
  backend: StateBackend,
  command: string,
  log: CommandOptions["log"],
): Promise<FingerprintKey> {
  try {
    return (await backend.fingerprintKey({ create: true }))!;
  } catch (e) {
    if (command === "apply") throw e;
    log?.(
      `Could not read or make the fingerprint key in ${backend.location} (${messageOf(e)}): secret changes are shown without fingerprints in this run.`,
    );
    return FingerprintKey.generate(false);
  }
}

/** A connection and the state opened on it, with the platform reads started early, if any. */
export interface Opened {
  connection: Connection;
  backend: StateBackend;
  existingKey?: FingerprintKey;
  started?: ObservationStart;
}

/**
 * Connects and opens the state of `early`; with `observeEarly`, when the fingerprint key exists
 * already (reading it writes nothing), starts the platform reads of the kinds `declares`.
 */
export async function openSession(
  early: ProjectSettingsOnly,
  declares: readonly DesiredKind[],
  opts: CommandOptions,
  observeEarly: boolean,
  log: CommandOptions["log"],
): Promise<Opened> {
  const connection = await connect(early, opts.env, { log, client: opts.client });
  try {
    const backend = openStateBackend(early.settings.state, {
      root: early.root,
      client: connection.client,
      project: early.project,
      target: early.target,
    });
    const existingKey = observeEarly
      ? await backend.fingerprintKey({ create: false }).catch(() => undefined)
      : undefined;
    const started = existingKey ? ObservationStart.ofKinds(connection.client, declares, existingKey) : undefined;
    return { connection, backend, ...(existingKey ? { existingKey } : {}), ...(started ? { started } : {}) };
  } catch (e) {
    await connection.close();
    throw e;
  }
}

/**
 * Loads, connects and opens the state; runs `body`; always closes the connection. The loader's
 * Python check (a child process) runs while the command connects: its errors, like every load
 * error, come before any other failure, and nothing is written before it has passed. With
 * `observeEarly` (commands that take no lock) and a platform named by the environment, the
 * command connects as soon as svc.yaml is read and the platform reads start while the other files
 * are read (when the project's fingerprint key exists already); what connecting says waits for the
 * load, so a repository with errors shows only its errors.
 */
export async function withSession<R extends CommandResult>(
  opts: CommandOptions,
  command: R["command"],
  body: (s: Session) => Promise<R>,
  { observeEarly = false }: { observeEarly?: boolean } = {},
): Promise<R> {
  const failedLoad = (errors: LoadError[]) => ({ command, exitCode: 1, errors }) as unknown as R;
  const held: string[] = [];
  let early: Promise<Opened> | undefined;
  const onSettings = (basics: ProjectSettingsOnly, declares: DesiredKind[]) => {
    // The embedded emulator is not started for a repository that may fail to load (it writes its folder).
    if (!opts.env[basics.settings.credentials.baseUrlEnv]) return;
    early = openSession(basics, declares, opts, true, (line) => held.push(line));
    early.catch(() => {}); // reported after the load, as a late connection failure would be
  };
  const closeEarly = async () => (await early?.catch(() => undefined))?.connection.close();
  let staged: Awaited<ReturnType<typeof loadRepositoryStaged>>;
  try {
    staged = await loadRepositoryStaged(opts.dir, {
      target: opts.target,
      env: opts.env,
      log: opts.log,
      ...(observeEarly ? { onSettings } : {}),
    });
  } catch (e) {
    await closeEarly();
    throw e;
  }
  if (!staged.unchecked.ok) {
    await closeEarly();
    const late = await staged.checked;
    return failedLoad(late.ok ? staged.unchecked.errors : late.errors);
  }
  // One project name, one folder: another folder of the repository claiming this name would plan,
  // apply and prune the same objects (and fill the same section of a combined comment).
  const claimed = await otherClaimsOf(opts.dir, staged.unchecked.project.project);
  if (claimed.length) {
    await closeEarly();
    await staged.checked;
    return failedLoad(claimed);
  }
  const secrets = secretValues(staged.unchecked.project, opts.env);
  let connection: Connection | undefined;
  try {
    const { project: unchecked } = staged.unchecked;
    const opening =
      early ??
      openSession(
        unchecked,
        unchecked.objects.map((o) => o.kind),
        opts,
        observeEarly,
        opts.log,
      );
    for (const line of held.splice(0)) opts.log?.(line);
    const opened = await opening;
    connection = opened.connection;
    // The kinds the rest of the repository declares start now (those started early are kept).
    opened.started?.declare(unchecked.objects.map((o) => o.kind));
    for (const line of held.splice(0)) opts.log?.(line);
    // While the Python check runs, apply makes the snapshots its deployment record names (its end is then shorter).
    const snapshots =
      command === "apply" && !unchecked.settings.history.off ? prepareSnapshots(unchecked.objects) : undefined;
    const loaded = await staged.checked.finally(() => snapshots?.stop());
    if (!loaded.ok) return failedLoad(loaded.errors);
    const fingerprintKey = opened.existingKey ?? (await sessionKey(opened.backend, command, opts.log));
    let result: R;
    try {
      result = await body({
        project: loaded.project,
        connection,
        backend: opened.backend,
        fingerprintKey,
        ...(opened.started ? { started: opened.started } : {}),
      });
    } catch (e) {
      // An apply that stopped with an error tells its webhooks (`notify:`), then reports as below.
      if (command === "apply") await notifyAll(loaded.project, opts, applyMessages(undefined));
      throw e;
    }
    if (command === "apply") await notifyAll(loaded.project, opts, applyMessages(result));
    // A secret value pasted into a UDF's code would otherwise be shown in its diff.
    return scrubDeep(result, [...secretValues(loaded.project, opts.env)]);
  } catch (e) {
    if (!connection) await closeEarly();
    const late = await staged.checked;
    if (!late.ok) return failedLoad(late.errors);
    if (e instanceof PreflightError)
      return {
        command,
        exitCode: 1,
        errors: scrubSecrets(e.errors, late.project.secretEnvNames, opts.env),
      } as unknown as R;
    return {
      command,
      exitCode: 1,
      errors: [],
      message: scrub(messageOf(e) + refusedCredentialsHint(e, late.project, opts.env), [...secrets]),
      code: errorCodeOf(e),
    } as unknown as R;
  } finally {
    await connection?.close();
  }
}

/** The planning options of a run: the flags, else svc.yaml's settings. */
export function planningOptions(s: Session, opts: PlanningOptions, drift: boolean): SavedPlanOptions {
  const settings = s.project.settings;
  return {
    prune: drift ? false : (opts.prune ?? false) || settings.prune,
    max_deletions: opts.maxDeletions ?? settings.maxDeletions,
    allow_delete_all: opts.allowDeleteAll ?? false,
    only: [...(opts.only ?? [])],
    replace: [...(opts.replace ?? [])],
    ...(opts.allowCascade ? { allow_cascade: true } : {}),
  };
}

/** `--only` and `--replace` of a run (or of its saved plan) against the repository and the inventory; throws TargetingError. */
export function targetingOf(s: Session, options: SavedPlanOptions, inventory: Inventory | undefined): Targeting {
  return resolveTargeting(s.project, inventory, options.only, options.replace);
}

/** The cross-target rule (see cross-target.ts): read the other targets' inventories when the plan adopts anything. */
export async function checkAdoptions(
  s: Session,
  opts: CommandOptions,
  outcome: PlanOutcome,
  inventory: Inventory | undefined,
  targeting: Targeting,
): Promise<void> {
  const candidates = adoptionCandidates(s.project, outcome, inventory, targeting.selected);
  if (!candidates.length) return;
  const others = await otherTargetInventories(s.project, s.connection.client, opts.env);
  outcome.plan.warnings.push(...others.unreadable.map((w) => `Cross-target check: ${w}.`));
  outcome.plan.blocks.push(...crossTargetBlocks(s.project, candidates, others.inventories));
}

export async function makePlan(
  s: Session,
  opts: CommandOptions,
  drift = false,
  saved?: SavedPlan,
): Promise<
  PlanOutcome & { inventory: Inventory | undefined; options: SavedPlanOptions; now: Date; observation: Observation }
> {
  const inventory = await s.backend.readInventory();
  const options = saved?.options ?? planningOptions(s, opts, drift);
  // Bad --only / --replace stop the run before the platform is read.
  const targeting = targetingOf(s, options, inventory);
  if (!drift) {
    // What apply would hit half-way (an instance or bucket the team lacks) stops the plan here, before any write.
    const problems = await preflightErrors(
      s.connection.client,
      s.project.objects.filter((o) => !targeting.selected || targeting.selected.has(o.address)),
    );
    if (problems.length) throw new PreflightError(problems);
  }
  const observation = await observe(s.connection.client, s.project, inventory, s.fingerprintKey, s.started);
  const now = saved ? new Date(saved.planned_at) : (opts.now ?? (() => new Date()))();
  const outcome = planChanges({
    project: s.project,
    observation,
    inventory,
    now,
    prune: options.prune,
    maxDeletions: options.max_deletions,
    maxDeletionsFrom: saved
      ? "the limit the saved plan was made with"
      : opts.maxDeletions !== undefined
        ? "--max-deletions"
        : (s.project.settings.maxDeletionsFrom ?? "max_deletions in svc.yaml"),
    allowDeleteAll: options.allow_delete_all,
    ignoreRotationSchedule: drift,
    targeting,
    allowCascade: options.allow_cascade ?? false,
    fingerprintKey: s.fingerprintKey,
  });
  if (!drift) await checkAdoptions(s, opts, outcome, inventory, targeting);
  return { ...outcome, inventory, options, now, observation };
}

/** Repository paths the commands write themselves (saved plans, --outputs, output files): outside the digest. */
export function writtenPaths(project: LoadedProject, files: (string | undefined)[]): string[] {
  const outputs = project.objects.flatMap((o) => traitsOf(o.kind).outputFile?.path(o) ?? []);
  return [...new Set([...repositoryPaths(project.root, files), ...outputs])].sort();
}

/** Writes the saved plan of `outcome` to `file` (deterministic JSON, keys sorted). */
export async function writeSavedPlan(
  s: Session,
  opts: CommandOptions,
  file: string,
  outcome: Awaited<ReturnType<typeof makePlan>>,
  policies?: { origin: string; digest: string },
): Promise<void> {
  const excluded = writtenPaths(s.project, [file, opts.outputs]);
  const repository = { ...(await repositoryDigest(s.project.root, s.project.target, excluded)), excluded };
  const saved = scrubDeep(
    savedPlanOf(outcome, {
      plannedAt: outcome.now,
      options: outcome.options,
      repository,
      ...(policies ? { policies } : {}),
    }),
    [...secretValues(s.project, opts.env)],
  );
  // toJson drops the value of any field marked secret, whatever put it there; the integrity digest covers what is written.
  RepositoryJail.forProject(s.project.root).writeOperatorFile(file, toJson(sealSavedPlan(toJson(saved))));
}

/** Token destinations of an apply: --outputs, then any extra (GitHub secrets). */
export function publishersFor(opts: TokenOptions & Pick<RepositoryOptions, "dir" | "now">): TokenPublisher[] {
  return [
    ...(opts.outputs ? [outputsPublisher(opts.outputs, { now: opts.now, repository: opts.dir })] : []),
    ...(opts.publishers ?? []),
  ];
}

/** A service account's token exists only when it is made: refuse to make one nobody will receive. */
export function tokenBlock(outcome: PlanOutcome, publishers: TokenPublisher[], opts: TokenOptions): void {
  if (publishers.length || opts.discardTokens) return;
  const minting = outcome.plan.actions.filter(
    (a) => a.kind === "ServiceAccount" && (a.action === "create" || a.action === "rotate"),
  );
  if (!minting.length) return;
  outcome.plan.blocks.push({
    rule: "tokens-without-outputs",
    message: `${minting.map((a) => a.address).join(", ")} ${minting.length > 1 ? "get new tokens" : "gets a new token"}, which the platform shows only once, and no destination is set. Run with --outputs FILE (written with mode 0600), or --discard-tokens to create ${minting.length > 1 ? "them" : "it"} anyway.`,
  });
}

/** Stops about where tokens go: lifted by apply's own --outputs, not by planning again. */
export const OUTPUTS_RULES = ["tokens-without-outputs", "outputs-unusable"];

/**
 * An outputs file that cannot take tokens (a folder, not JSON, not an outputs file) stops the plan
 * before anything is created: found after a create, its token would have nowhere to go.
 */
export async function outputsBlock(
  outcome: PlanOutcome,
  opts: TokenOptions & Pick<RepositoryOptions, "dir">,
): Promise<void> {
  if (!opts.outputs) return;
  try {
    await readOutputsFile(opts.outputs, opts.dir);
  } catch (e) {
    outcome.plan.blocks.push({ rule: "outputs-unusable", message: (e as Error).message });
  }
}
