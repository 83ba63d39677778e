/**
 * The commands as functions: validate, plan, apply, drift. Each reads like its steps: load the
 * repository, connect, read the state, observe, plan, then (apply only) lock and act. They return
 * data and an exit code; the CLI and the GitHub Action render it.
 *
 * Folder `commands/`: the commands as functions (validate, plan, apply, drift, destroy) and where
 * they connect; each composes the steps, so it may import every step folder, never `src/cli` or
 * `src/github`.
 */
import { scrub, scrubDeep } from "../../api/errors";
import { applyPlan } from "../apply";
import type { CommandOptions, CommandResult, TokenPublisher } from "./command-types";
import { connect, refusedCredentialsHint, type Connection } from "./connect";
import { driftReport } from "../plan/drift";
import { InventoryWriter } from "../apply/inventory-writer";
import { loadRepositoryStaged, type ProjectSettingsOnly } from "../load";
import type { DesiredKind, LoadedProject, LoadError } from "../../model/desired";
import { observe, ObservationStart, type Observation } from "../observe";
import { rekeyedEntries } from "../observe/rekey-inventory";
import { FingerprintKey } from "../../resources/fingerprint";
import { outputsPublisher, readOutputsFile } from "../apply/outputs-file";
import { planChanges, type PlanOutcome } from "../plan";
import { PreflightError, preflightErrors } from "../plan/preflight";
import { scrubSecrets } from "../load/validate";
import { PROTECTED_RULE } from "../plan/protect";
import { adoptionCandidates, CROSS_TARGET_RULE, crossTargetBlocks } from "../plan/cross-target";
import { otherTargetInventories } from "../state/other-targets";
import { resolveTargeting, type Targeting } from "../plan/targeting";
import { CASCADE_RULE } from "../plan/cascade";
import { repositoryDigest, repositoryPaths } from "../load/repository-digest";
import { canonicalJson } from "../../canonical-json";
import {
  optionDifferences,
  readSavedPlan,
  SavedPlanError,
  restrictToSaved,
  savedPlanOf,
  sealSavedPlan,
  staleMessage,
  staleObjects,
  type SavedPlan,
  type SavedPlanOptions,
} from "../plan/saved-plan";
import { traitsOf } from "../phases";
import { toJson } from "../render/json";
import { forceUnlockFirst, withHeldLock } from "../apply/held-lock";
import { openStateBackend } from "../state/open-backend";
import type { Inventory } from "../../model/inventory";
import type { StateBackend } from "../state/types";
import { RepositoryJail } from "../load/jail";

/** Every secret value of the project and the target's tokens (to scrub from messages and results). */
function secretValues(project: LoadedProject, env: CommandOptions["env"]): Set<string> {
  const c = project.settings.credentials;
  return new Set(
    [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv].map((n) => env[n]).filter((v): v is string => !!v),
  );
}

/** API, lock and state errors all carry a readable message (API errors already scrubbed). */
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

interface Session {
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
async function sessionKey(backend: StateBackend, command: string, log: CommandOptions["log"]): Promise<FingerprintKey> {
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
interface Opened {
  connection: Connection;
  backend: StateBackend;
  existingKey?: FingerprintKey;
  started?: ObservationStart;
}

/**
 * Connects and opens the state of `early`; with `observeEarly`, when the fingerprint key exists
 * already (reading it writes nothing), starts the platform reads of the kinds `declares`.
 */
async function openSession(
  early: ProjectSettingsOnly,
  declares: readonly DesiredKind[],
  opts: CommandOptions,
  observeEarly: boolean,
  log: CommandOptions["log"],
): Promise<Opened> {
  const connection = await connect(early, opts.env, { log });
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
async function withSession<R extends CommandResult>(
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
    const loaded = await staged.checked;
    if (!loaded.ok) return failedLoad(loaded.errors);
    const fingerprintKey = opened.existingKey ?? (await sessionKey(opened.backend, command, opts.log));
    const result = await body({
      project: loaded.project,
      connection,
      backend: opened.backend,
      fingerprintKey,
      ...(opened.started ? { started: opened.started } : {}),
    });
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
    } as unknown as R;
  } finally {
    await connection?.close();
  }
}

/** The planning options of a run: the flags, else svc.yaml's settings. */
function planningOptions(s: Session, opts: CommandOptions, drift: boolean): SavedPlanOptions {
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
function targetingOf(s: Session, options: SavedPlanOptions, inventory: Inventory | undefined): Targeting {
  return resolveTargeting(s.project, inventory, options.only, options.replace);
}

/** The cross-target rule (see cross-target.ts): read the other targets' inventories when the plan adopts anything. */
async function checkAdoptions(
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

async function makePlan(
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
function writtenPaths(project: LoadedProject, files: (string | undefined)[]): string[] {
  const outputs = project.objects.flatMap((o) => traitsOf(o.kind).outputFile?.path(o) ?? []);
  return [...new Set([...repositoryPaths(project.root, files), ...outputs])].sort();
}

/** Writes the saved plan of `outcome` to `file` (deterministic JSON, keys sorted). */
async function writeSavedPlan(
  s: Session,
  opts: CommandOptions,
  file: string,
  outcome: Awaited<ReturnType<typeof makePlan>>,
): Promise<void> {
  const excluded = writtenPaths(s.project, [file, opts.outputs]);
  const repository = { ...(await repositoryDigest(s.project.root, s.project.target, excluded)), excluded };
  const saved = scrubDeep(savedPlanOf(outcome, { plannedAt: outcome.now, options: outcome.options, repository }), [
    ...secretValues(s.project, opts.env),
  ]);
  // toJson drops the value of any field marked secret, whatever put it there; the integrity digest covers what is written.
  RepositoryJail.forProject(s.project.root).writeOperatorFile(file, toJson(sealSavedPlan(toJson(saved))));
}

/** Token destinations of an apply: --outputs, then any extra (GitHub secrets). */
function publishersFor(opts: CommandOptions): TokenPublisher[] {
  return [
    ...(opts.outputs ? [outputsPublisher(opts.outputs, { now: opts.now, repository: opts.dir })] : []),
    ...(opts.publishers ?? []),
  ];
}

/** A service account's token exists only when it is made: refuse to make one nobody will receive. */
function tokenBlock(outcome: PlanOutcome, publishers: TokenPublisher[], opts: CommandOptions): void {
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
const OUTPUTS_RULES = ["tokens-without-outputs", "outputs-unusable"];

/**
 * An outputs file that cannot take tokens (a folder, not JSON, not an outputs file) stops the plan
 * before anything is created: found after a create, its token would have nowhere to go.
 */
async function outputsBlock(outcome: PlanOutcome, opts: CommandOptions): Promise<void> {
  if (!opts.outputs) return;
  try {
    await readOutputsFile(opts.outputs, opts.dir);
  } catch (e) {
    outcome.plan.blocks.push({ rule: "outputs-unusable", message: (e as Error).message });
  }
}

export { validateCommand } from "./validate-command";

/** `svc-iac plan`: what apply would do; writes nothing. */
export function planCommand(opts: CommandOptions): Promise<CommandResult> {
  return withSession(
    opts,
    "plan",
    async (s) => {
      const outcome = await makePlan(s, opts);
      tokenBlock(outcome, publishersFor(opts), opts);
      await outputsBlock(outcome, opts);
      const changes = outcome.plan.actions.length > 0;
      // These stop the plan itself: no flag of apply's would make it go (protected, cross-target), or it names what would be lost (cascade).
      const fatal = outcome.plan.blocks.filter(
        (b) => b.rule === PROTECTED_RULE || b.rule === CASCADE_RULE || b.rule === CROSS_TARGET_RULE,
      );
      if (fatal.length)
        return {
          command: "plan",
          exitCode: 1,
          errors: [],
          plan: outcome.plan,
          message: fatal.map((b) => b.message).join("\n"),
        };
      if (opts.planOut) {
        // A saved plan is applied with the options it was made with: one that would stop on a limit
        // of those options could never be applied, so it is not saved.
        const stops = outcome.plan.blocks.filter((b) => !OUTPUTS_RULES.includes(b.rule));
        if (stops.length) {
          return {
            command: "plan",
            exitCode: 1,
            errors: [],
            plan: outcome.plan,
            message: `${stops.map((b) => b.message).join("\n")}\nThe plan was not saved to ${opts.planOut}: applying it would stop there, and a saved plan keeps the options it was made with. Plan again with the flag named above and --out.`,
          };
        }
        await writeSavedPlan(s, opts, opts.planOut, outcome);
      }
      return { command: "plan", exitCode: changes && opts.detailedExitCode ? 2 : 0, errors: [], plan: outcome.plan };
    },
    { observeEarly: true },
  );
}

/** What {@link driftPlan} found: the plan behind drift, with the inventory and observation it was made from. */
export interface DriftPlanFound {
  project: LoadedProject;
  outcome: PlanOutcome & { inventory: Inventory | undefined; observation: Observation };
  /** The shared-UDF host of the connection, when it outlives the command (for `svc-iac show`'s URLs). */
  udfBaseUrl?: string;
  /** True when the embedded emulator answered: its host stops with the command, so its URLs are not given. */
  embedded: boolean;
}

/**
 * The plan behind drift (without prune and the rotation schedule), for commands that act on it
 * (`svc-iac import --keep`, `svc-iac show`); writes nothing but the project's fingerprint key on first use.
 */
export async function driftPlan(
  opts: CommandOptions,
): Promise<({ ok: true } & DriftPlanFound) | { ok: false; errors: LoadError[]; message?: string }> {
  let found: DriftPlanFound | undefined;
  const r = await withSession(
    opts,
    "drift",
    async (s) => {
      found = {
        project: s.project,
        outcome: await makePlan(s, opts, true),
        ...(s.connection.udfBaseUrl && !s.connection.embedded ? { udfBaseUrl: s.connection.udfBaseUrl } : {}),
        embedded: s.connection.embedded,
      };
      return { command: "drift", exitCode: 0, errors: [] } as CommandResult;
    },
    { observeEarly: true },
  );
  const message = "message" in r ? r.message : undefined;
  return found ? { ok: true, ...found } : { ok: false, errors: r.errors, ...(message ? { message } : {}) };
}

/** `svc-iac drift`: how the platform differs from the repository; writes nothing. Exit 2 on drift. */
export function driftCommand(opts: CommandOptions): Promise<CommandResult> {
  return withSession(
    opts,
    "drift",
    async (s) => {
      const drift = driftReport(await makePlan(s, opts, true));
      return { command: "drift", exitCode: drift.drift ? 2 : 0, errors: [], drift };
    },
    { observeEarly: true },
  );
}

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
async function staleRepository(s: Session, opts: CommandOptions, saved: SavedPlan): Promise<string | undefined> {
  const excluded = [
    ...new Set([...saved.repository.excluded, ...writtenPaths(s.project, [opts.planFile, opts.outputs])]),
  ];
  const now = await repositoryDigest(s.project.root, s.project.target, excluded);
  const before = Object.fromEntries(Object.entries(saved.repository.files).filter(([p]) => !excluded.includes(p)));
  if (canonicalJson(before) === canonicalJson(now.files)) return undefined;
  return staleMessage(opts.planFile!, { before: { ...saved.repository, files: before }, now }, []);
}

/** `svc-iac apply`: takes the lock, plans, stops on a safety rule, applies, reports. */
export async function applyCommand(opts: CommandOptions): Promise<CommandResult> {
  // A saved plan names its target: it is the default.
  if (opts.planFile && opts.target === undefined)
    opts = { ...opts, target: await savedPlanTarget(opts.dir, opts.planFile) };
  return withSession(opts, "apply", async (s) => {
    const now = opts.now ?? (() => new Date());
    // Bad --only / --replace: say so before the lock is touched (a remote lock is a write).
    if (!opts.planFile) targetingOf(s, planningOptions(s, opts, false), await s.backend.readInventory());
    const noLock = await forceUnlockFirst(s.backend, opts);
    if (noLock) return { command: "apply", exitCode: 1, errors: [], message: noLock };
    return withHeldLock(s.backend, opts, "apply", async (stopReason) => {
      const saved = opts.planFile ? await loadSavedPlan(s, opts.planFile) : undefined;
      const stale = saved && (await staleRepository(s, opts, saved));
      if (stale) return { command: "apply", exitCode: 1, errors: [], message: stale };
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
      const writer = new InventoryWriter(s.backend, outcome.inventory, s.project, now);
      for (const [address, entry] of rekeyedEntries(outcome.inventory, planned.observation, s.fingerprintKey))
        writer.set(address, entry);
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
        },
        outcome,
      );
      return { command: "apply", exitCode: report.ok ? 0 : 1, errors: [], plan, report };
    });
  });
}
