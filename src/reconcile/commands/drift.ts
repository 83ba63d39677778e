/** `svc-iac drift`: the plan behind drift (without prune and the rotation schedule), and its report. */
import type { CommandOptions, CommandResult, DriftOptions } from "./command-types";
import { driftReport } from "../plan/drift";
import type { LoadedProject, LoadError } from "../../model/desired";
import type { Observation } from "../observe";
import type { PlanOutcome } from "../plan";
import type { Inventory } from "../../model/inventory";
import { withSession, makePlan } from "./session";
import { checkObserved, rulesFor } from "./policy-check";
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
export function driftCommand(opts: DriftOptions): Promise<CommandResult> {
  return withSession(
    opts,
    "drift",
    async (s) => {
      const rules = await rulesFor(opts);
      if (rules.errors.length) return { command: "drift", exitCode: 1, errors: rules.errors };
      const outcome = await makePlan(s, opts, true);
      const drift = driftReport(outcome);
      // Drift also means the platform holds what a mandatory rule refuses.
      if (rules.set) drift.policy = checkObserved(rules.set, s.project, outcome);
      const refused = !!drift.policy?.violations;
      return { command: "drift", exitCode: drift.drift || refused ? 2 : 0, errors: [], drift };
    },
    { observeEarly: true },
  );
}
