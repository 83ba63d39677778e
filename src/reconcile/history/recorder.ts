/**
 * Records a deployment after a step that changed the platform (apply, destroy, import, rollback),
 * under the lock that step holds: reads the history, builds the record (`record.ts`), writes it
 * with the target's retention. A history that cannot be written never undoes or fails the step: the
 * caller is told why, and says so.
 */
import { createHash } from "node:crypto";
import os from "node:os";
import { canonicalJson } from "../../canonical-json";
import type { DesiredKind, LoadedProject } from "../../model/desired";
import { headCommit } from "../projects/git-changes";
import type { Step } from "../plan";
import type { ApplyReport, Plan } from "../plan/plan-model";
import type { StateBackend } from "../state/types";
import type { DeploymentObject, DeploymentOperation, Snapshot } from "./history-model";
import { readHistory, recordDeployment, snapshotHash, stateAfter } from "./history-store";
import { actorOf, deploymentOf, type PlanDigest, snapshotOf } from "./record";

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
  /** The plan's digest, made while the steps ran (see `PlanDigest`). */
  digest?: PlanDigest;
  /** Repository paths the command writes itself (output files): not counted as changes not committed. */
  written?: readonly string[];
}

function userOf(env: Record<string, string | undefined>): string {
  const user = env.USER ?? env.USERNAME;
  if (user) return user;
  try {
    return os.userInfo().username;
  } catch {
    return "unknown";
  }
}

/** The recorded deployment's id; undefined when nothing changed. @throws when the history cannot be read or written. */
export async function recordHistory(o: RecordOptions): Promise<string | undefined> {
  if (o.project.settings.history.off) return undefined; // history: false
  const index = await readHistory(o.backend, o.project.project, o.project.target);
  const latest = index.deployments.at(-1)?.id;
  const added = deploymentOf({
    operation: o.operation,
    project: o.project,
    plan: o.plan,
    steps: o.steps,
    report: o.report,
    before: stateAfter(index, latest),
    managedBefore: o.managedBefore,
    time: o.now,
    actor: actorOf(o.env, userOf(o.env), os.hostname()),
    git: await headCommit(o.project.root, o.written ?? []),
    seed: index.deployments.length === 0,
    ...(o.rollbackOf ? { rollbackOf: o.rollbackOf } : {}),
    ...(o.digest ? { digest: o.digest } : {}),
  });
  if (!added) return undefined;
  const retention = o.project.settings.history;
  return (await recordDeployment(o.backend, index, added, retention, o.now)).id;
}

/** An import's record: the objects it bound, each with the settings the files it wrote declare. */
export async function recordImport(o: {
  backend: StateBackend;
  project: LoadedProject;
  bound: readonly { address: string; kind: DesiredKind; id: string }[];
  now: Date;
  env: Record<string, string | undefined>;
}): Promise<string | undefined> {
  if (!o.bound.length || o.project.settings.history.off) return undefined;
  const index = await readHistory(o.backend, o.project.project, o.project.target);
  const before = stateAfter(index, index.deployments.at(-1)?.id);
  const declared = new Map(o.project.objects.map((d) => [d.address, d]));
  const snapshots = new Map<string, Snapshot>();
  const objects: DeploymentObject[] = o.bound
    .map((b) => {
      const d = declared.get(b.address);
      const s = d ? snapshotOf(d) : undefined;
      const h = s ? snapshotHash(s) : undefined;
      if (s && h) snapshots.set(h, s);
      const was = before.get(b.address);
      return {
        address: b.address,
        kind: b.kind,
        action: "import",
        id: b.id,
        ...(was ? { before: was } : {}),
        after: h ?? null,
      };
    })
    .filter((x) => x.after !== null)
    .sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
  if (!objects.length) return undefined;
  const added = {
    deployment: {
      time: o.now.toISOString(),
      target: o.project.target,
      ...(await headCommit(o.project.root).then((g) => (g ? { commit: g.commit, dirty: g.dirty } : {}))),
      actor: actorOf(o.env, userOf(o.env), os.hostname()),
      operation: "import" as const,
      planDigest: createHash("sha256").update(canonicalJson(objects)).digest("hex"),
      ok: true,
      objects,
    },
    snapshots,
    unchanged: new Map<string, string>(),
  };
  return (await recordDeployment(o.backend, index, added, o.project.settings.history, o.now)).id;
}
