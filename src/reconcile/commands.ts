/**
 * The commands as functions: validate, plan, apply, drift. Each reads like its steps: load the
 * repository, connect, read the state, observe, plan, then (apply only) lock and act. They return
 * data and an exit code; the CLI and the GitHub Action render it.
 */
import { scrub } from "../api/errors";
import { applyPlan } from "./apply";
import type { CommandOptions, CommandResult, TokenPublisher } from "./command-types";
import { connect, type Connection } from "./connect";
import { driftReport } from "./drift";
import { InventoryWriter } from "./inventory-writer";
import { loadRepository } from "./load";
import type { LoadedProject, LoadError } from "./model";
import { observe } from "./observe";
import { outputsPublisher } from "./outputs-file";
import { planChanges, type PlanOutcome } from "./plan";
import { PROTECTED_RULE } from "./protect";
import { defaultLockOwner } from "./state/lock-file";
import { openStateBackend } from "./state/open-backend";
import type { Inventory, StateBackend } from "./state/types";

const DEFAULT_LOCK_TTL_MS = 10 * 60_000;

type Loaded = { ok: true; project: LoadedProject } | { ok: false; errors: LoadError[] };

async function load(opts: CommandOptions): Promise<Loaded> {
  return loadRepository(opts.dir, { target: opts.target, env: opts.env });
}

/** Every secret value of the project (to scrub from messages). */
function secretValues(project: LoadedProject, env: CommandOptions["env"]): Set<string> {
  return new Set(project.secretEnvNames.map((n) => env[n]).filter((v): v is string => !!v));
}

/** API, lock and state errors all carry a readable message (API errors already scrubbed). */
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

interface Session {
  project: LoadedProject;
  connection: Connection;
  backend: StateBackend;
}

/** Loads, connects and opens the state; runs `body`; always closes the connection. */
async function withSession<R extends CommandResult>(
  opts: CommandOptions,
  command: R["command"],
  body: (s: Session) => Promise<R>,
): Promise<R> {
  const loaded = await load(opts);
  if (!loaded.ok) return { command, exitCode: 1, errors: loaded.errors } as unknown as R;
  const { project } = loaded;
  const secrets = secretValues(project, opts.env);
  let connection: Connection | undefined;
  try {
    connection = await connect(project, opts.env, { log: opts.log });
    const backend = openStateBackend(project.settings.state, { root: project.root, client: connection.client, project: project.project, target: project.target });
    return await body({ project, connection, backend });
  } catch (e) {
    return { command, exitCode: 1, errors: [], message: scrub(messageOf(e), [...secrets]) } as unknown as R;
  } finally {
    await connection?.close();
  }
}

async function makePlan(s: Session, opts: CommandOptions, drift = false): Promise<PlanOutcome & { inventory: Inventory | undefined }> {
  const inventory = await s.backend.readInventory();
  const observation = await observe(s.connection.client, s.project, inventory);
  const settings = s.project.settings;
  const outcome = planChanges({
    project: s.project,
    observation,
    inventory,
    now: (opts.now ?? (() => new Date()))(),
    prune: drift ? false : (opts.prune ?? false) || settings.prune,
    maxDeletions: opts.maxDeletions ?? settings.maxDeletions,
    allowDeleteAll: opts.allowDeleteAll ?? false,
    ignoreRotationSchedule: drift,
  });
  return { ...outcome, inventory };
}

/** Token destinations of an apply: --outputs, then any extra (GitHub secrets). */
function publishersFor(opts: CommandOptions): TokenPublisher[] {
  return [...(opts.outputs ? [outputsPublisher(opts.outputs, { now: opts.now })] : []), ...(opts.publishers ?? [])];
}

/** A service account's token exists only when it is made: refuse to make one nobody will receive. */
function tokenBlock(outcome: PlanOutcome, publishers: TokenPublisher[], opts: CommandOptions): void {
  if (publishers.length || opts.discardTokens) return;
  const minting = outcome.plan.actions.filter((a) => a.kind === "ServiceAccount" && (a.action === "create" || a.action === "rotate"));
  if (!minting.length) return;
  outcome.plan.blocks.push({
    rule: "tokens-without-outputs",
    message: `${minting.map((a) => a.address).join(", ")} ${minting.length > 1 ? "get new tokens" : "gets a new token"}, which the platform shows only once, and no destination is set. Run with --outputs FILE (written with mode 0600), or --discard-tokens to create ${minting.length > 1 ? "them" : "it"} anyway.`,
  });
}

/** `svc-iac validate`: loads and checks the repository; sends nothing. */
export async function validateCommand(opts: CommandOptions): Promise<CommandResult> {
  const loaded = await load(opts);
  if (!loaded.ok) return { command: "validate", exitCode: 1, errors: loaded.errors, objects: 0 };
  return { command: "validate", exitCode: 0, errors: [], objects: loaded.project.objects.length };
}

/** `svc-iac plan`: what apply would do; writes nothing. */
export function planCommand(opts: CommandOptions): Promise<CommandResult> {
  return withSession(opts, "plan", async (s) => {
    const outcome = await makePlan(s, opts);
    tokenBlock(outcome, publishersFor(opts), opts);
    const changes = outcome.plan.actions.length > 0;
    const protectedBlocks = outcome.plan.blocks.filter((b) => b.rule === PROTECTED_RULE);
    if (protectedBlocks.length) return { command: "plan", exitCode: 1, errors: [], plan: outcome.plan, message: protectedBlocks.map((b) => b.message).join("\n") };
    return { command: "plan", exitCode: changes && opts.detailedExitCode ? 2 : 0, errors: [], plan: outcome.plan };
  });
}

/** `svc-iac drift`: how the platform differs from the repository; writes nothing. Exit 2 on drift. */
export function driftCommand(opts: CommandOptions): Promise<CommandResult> {
  return withSession(opts, "drift", async (s) => {
    const drift = driftReport(await makePlan(s, opts, true));
    return { command: "drift", exitCode: drift.drift ? 2 : 0, errors: [], drift };
  });
}

/** `svc-iac apply`: takes the lock, plans, stops on a safety rule, applies, reports. */
export function applyCommand(opts: CommandOptions): Promise<CommandResult> {
  return withSession(opts, "apply", async (s) => {
    const now = opts.now ?? (() => new Date());
    if (opts.forceUnlock !== undefined) {
      const removed = await s.backend.forceUnlock(opts.forceUnlock === true ? undefined : opts.forceUnlock);
      if (removed) opts.log?.(`Removed the lock ${removed.id} held by ${removed.owner} since ${removed.acquiredAt}.`);
    }
    const ttlMs = opts.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;
    const lock = await s.backend.acquireLock({
      owner: opts.lockOwner ?? defaultLockOwner(),
      operation: "apply",
      ttlMs,
      now,
      onTakeover: (dead, reason) => opts.log?.(`Took over the lock ${dead.id} of ${dead.owner}: ${reason}, so that run ended without releasing it.`),
    });
    let renewal: Promise<void> = Promise.resolve();
    let lockLost: string | undefined;
    const timer = setInterval(() => {
      renewal = lock.renew().catch((e) => {
        // Another run may now be applying: start nothing more.
        lockLost = `the lock could not be renewed (${messageOf(e)})`;
        opts.log?.(`Stopping: ${lockLost}.`);
      });
    }, Math.max(1000, Math.floor(ttlMs / 3)));
    try {
      const outcome = await makePlan(s, opts);
      const publishers = publishersFor(opts);
      tokenBlock(outcome, publishers, opts);
      const { plan } = outcome;
      if (plan.blocks.length) {
        return { command: "apply", exitCode: 1, errors: [], plan, message: plan.blocks.map((b) => b.message).join("\n") };
      }
      if (plan.actions.length && opts.confirm && !(await opts.confirm(plan))) {
        return { command: "apply", exitCode: 1, errors: [], plan, message: "Apply cancelled: nothing was changed." };
      }
      const writer = new InventoryWriter(s.backend, outcome.inventory, s.project, now);
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
          stopReason: () => lockLost,
        },
        outcome,
      );
      return { command: "apply", exitCode: report.ok ? 0 : 1, errors: [], plan, report };
    } finally {
      clearInterval(timer);
      await renewal;
      await lock.release();
    }
  });
}
