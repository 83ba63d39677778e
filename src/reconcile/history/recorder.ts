/**
 * Records a deployment after a step that changed the platform (apply, destroy, import, rollback),
 * under the lock that step holds: reads the history, builds the record (`record.ts`), writes it
 * with the target's retention. A history that cannot be written never undoes or fails the step: the
 * caller is told why, and says so.
 */
import os from "node:os";
import type { LoadedProject } from "../../model/desired";
import { headCommit } from "../projects/git-changes";
import type { Step } from "../plan";
import type { ApplyReport, Plan } from "../plan/plan-model";
import type { StateBackend } from "../state/types";
import type { DeploymentOperation } from "./history-model";
import { readHistory, recordDeployment, stateAfter } from "./history-store";
import { actorOf, deploymentOf } from "./record";

export interface RecordOptions {
  backend: StateBackend;
  project: LoadedProject;
  operation: DeploymentOperation;
  plan: Plan;
  steps: readonly Step[];
  report: ApplyReport;
  /** Addresses the inventory held before the step. */
  managedBefore: ReadonlySet<string>;
  now: Date;
  env: Record<string, string | undefined>;
  rollbackOf?: string;
  /** Repository paths the command writes itself (output files): not counted as changes not committed. */
  written?: readonly string[];
}

/** The recorded deployment's id; undefined when nothing changed. @throws when the history cannot be read or written. */
export async function recordHistory(o: RecordOptions): Promise<string | undefined> {
  const index = await readHistory(o.backend, o.project.project, o.project.target);
  const latest = index.deployments.at(-1)?.id;
  let user = o.env.USER ?? o.env.USERNAME;
  if (!user)
    try {
      user = os.userInfo().username;
    } catch {
      user = "unknown";
    }
  const added = deploymentOf({
    operation: o.operation,
    project: o.project,
    plan: o.plan,
    steps: o.steps,
    report: o.report,
    before: stateAfter(index, latest),
    managedBefore: o.managedBefore,
    time: o.now,
    actor: actorOf(o.env, user, os.hostname()),
    git: await headCommit(o.project.root, o.written ?? []),
    seed: index.deployments.length === 0,
    ...(o.rollbackOf ? { rollbackOf: o.rollbackOf } : {}),
  });
  if (!added) return undefined;
  const retention = o.project.settings.history;
  return (await recordDeployment(o.backend, index, added, retention, o.now)).id;
}
