/**
 * `svc-iac drift --remediate`: under the lock, each drifted object is settled as its `on_drift`
 * says (see ../plan/drift-policy.ts): `restore` applies the repository's version back (only those
 * objects, through the plan and its guards: prune rules, max_deletions, cascades, protect);
 * `keep` writes the platform's version into the repository files (as `import --keep`); `report`
 * only reports. A `restore` object restored `flapping.restores` times within `flapping.within`
 * is contested instead, until the repository changes it or `--force-restore ADDRESS` restores it.
 */
import { applyPlan } from "../apply";
import { recordHistory } from "../history/recorder";
import { withHeldLock } from "../apply/held-lock";
import { InventoryWriter } from "../apply/inventory-writer";
import { rekeyedEntries } from "../observe/rekey-inventory";
import { driftOfAddresses, driftReport } from "../plan/drift";
import {
  countedRestores,
  DEFAULT_FLAPPING_RULE,
  declaredDigest,
  driftPolicyOf,
  isContested,
  remediable,
} from "../plan/drift-policy";
import type { DriftItem, RemediationEntry, RemediationReport } from "../plan/plan-model";
import { REPORT_VERSION } from "../plan/plan-model";
import type { CommandOptions, CommandResult, DriftOptions } from "./command-types";
import { keepFromPlan } from "./keep";
import { notifyAll } from "./notifications";
import { makePlan, messageOf, publishersFor, secretValues, type Session, tokenBlock, withSession } from "./session";

type DriftResult = Extract<CommandResult, { command: "drift" }>;

/** Why an object of this class is only reported, whatever its policy. */
const NOT_REMEDIABLE: Record<string, string> = {
  orphaned:
    "orphaned: recorded in the inventory, no longer declared; apply --prune deletes it (drift --remediate never deletes)",
  unmanaged: "unmanaged: declared nowhere, not in the inventory; declare it, import it or delete it by hand",
  pending: "pending: declared, never applied; svc-iac apply creates it",
};

function entryOf(item: DriftItem, policy: { policy: RemediationEntry["policy"]; from: string }, detail: string) {
  return {
    address: item.address,
    kind: item.kind,
    class: item.class,
    fields: item.fields.map((f) => f.field),
    policy: policy.policy,
    policy_from: policy.from,
    detail,
  } satisfies RemediationEntry;
}

export async function remediateCommand(opts: DriftOptions): Promise<DriftResult> {
  return withSession(opts, "drift", async (s) => {
    const result = await withHeldLock(s.backend, opts, "drift --remediate", () => remediate(s, opts));
    const r = result.remediation;
    if (r) {
      const counts = {
        restored: r.restored.length,
        kept: r.kept.length,
        reported: r.reported.length,
        contested: r.contested.length,
      };
      await notifyAll(s.project, opts, [
        ...(r.drift.drift
          ? [
              {
                event: "drift_found" as const,
                summary: `drift found on ${r.drift.items.length} object${r.drift.items.length === 1 ? "" : "s"} (${counts.restored} restored, ${counts.kept} kept, ${counts.reported} reported, ${counts.contested} contested).`,
                counts: { ...r.drift.counts, ...counts },
                addresses: r.drift.items.map((i) => i.address),
              },
            ]
          : []),
        ...(r.restored.length
          ? [
              {
                event: "drift_restored" as const,
                summary: `restored the repository's version of ${r.restored.length} object${r.restored.length === 1 ? "" : "s"}:`,
                counts,
                addresses: r.restored.map((e) => e.address),
              },
            ]
          : []),
        ...(r.contested.length
          ? [
              {
                event: "drift_contested" as const,
                summary: `${r.contested.length} object${r.contested.length === 1 ? " was" : "s were"} restored too often and left as the platform has ${r.contested.length === 1 ? "it" : "them"} (contested):`,
                counts,
                addresses: r.contested.map((e) => e.address),
              },
            ]
          : []),
      ]);
    }
    return result;
  });
}

async function remediate(s: Session, opts: DriftOptions): Promise<DriftResult> {
  const now = (opts.now ?? (() => new Date()))();
  const outcome = await makePlan(s, opts, true);
  const drift = driftReport(outcome);
  const forced = new Set(opts.forceRestore ?? []);
  const problems: string[] = [];
  for (const address of forced) {
    const item = drift.items.find((i) => i.address === address);
    if (!item)
      opts.log?.(
        `--force-restore ${address}: it has not drifted (or is not declared in this target); nothing to restore.`,
      );
    else if (!remediable(item))
      problems.push(`--force-restore ${address}: it is ${NOT_REMEDIABLE[item.class]}; it cannot be restored.`);
  }
  if (problems.length) return { command: "drift", exitCode: 1, errors: [], drift, message: problems.join("\n") };
  const history = await s.backend.readRestoreHistory();
  const flapping = s.project.settings.flapping ?? DEFAULT_FLAPPING_RULE;
  const report: RemediationReport = {
    version: REPORT_VERSION,
    project: drift.project,
    target: drift.target,
    restored: [],
    kept: [],
    reported: [],
    contested: [],
    remaining: 0,
    drift,
  };
  const toRestore: { item: DriftItem; entry: RemediationEntry; declared: string; counted: string[] }[] = [];
  const toKeep: { item: DriftItem; entry: RemediationEntry }[] = [];
  for (const item of drift.items) {
    const policy = driftPolicyOf(s.project, item.address);
    if (!remediable(item)) {
      report.reported.push(entryOf(item, policy, NOT_REMEDIABLE[item.class]!));
      continue;
    }
    const force = forced.has(item.address);
    if (policy.policy === "restore" || force) {
      const object = s.project.objects.find((o) => o.address === item.address)!;
      const declared = declaredDigest(object, s.fingerprintKey);
      const counted = countedRestores(history.restores[item.address] ?? [], declared, flapping, now).map((r) => r.at);
      if (!force && isContested(counted, flapping)) {
        report.contested.push({
          ...entryOf(
            item,
            policy,
            `restored ${counted.length} times within ${flapping.within} (flapping: restores ${flapping.restores}); someone keeps changing it on the platform. Left as it is: change the repository, set on_drift: keep, or restore it once more with svc-iac drift --remediate --force-restore ${item.address}`,
          ),
          restores: counted,
        });
        continue;
      }
      toRestore.push({
        item,
        declared,
        counted,
        entry: {
          ...entryOf(
            item,
            policy,
            force && policy.policy !== "restore"
              ? "restored (--force-restore)"
              : "the repository's version applied back",
          ),
          ...(force ? { forced: true } : {}),
        },
      });
    } else if (policy.policy === "keep") {
      if (item.class === "missing") {
        report.reported.push(
          entryOf(
            item,
            policy,
            `missing on the platform: there is nothing to keep; restore it with svc-iac apply --only ${item.address}, or remove it from the repository`,
          ),
        );
      } else if (item.commands?.keepUnavailable) {
        report.reported.push(entryOf(item, policy, `cannot keep: ${item.commands.keepUnavailable}`));
      } else toKeep.push({ item, entry: entryOf(item, policy, "the platform's version written into the repository") });
    } else {
      report.reported.push(entryOf(item, policy, `reported (${policy.from})`));
    }
  }
  let failed: string | undefined;
  if (toRestore.length) failed = await restore(s, opts, toRestore, report, history, now);
  for (const k of toKeep) {
    const kept = await keepFromPlan(s.project, outcome, {
      addresses: [k.item.address],
      target: opts.target,
      env: opts.env,
    });
    if (kept.ok) report.kept.push({ ...k.entry, files: kept.report.files.map((f) => f.path) });
    else report.reported.push({ ...k.entry, detail: `not kept: ${kept.problems.join(" ")}` });
  }
  report.remaining = report.reported.length + report.contested.length;
  // `drift` is what remains (the drift issue lists only that); the remediation keeps what was found.
  const remaining = new Set([...report.reported, ...report.contested].map((e) => e.address));
  return {
    command: "drift",
    exitCode: failed ? 1 : report.remaining ? 2 : 0,
    errors: [],
    drift: driftOfAddresses(drift, remaining),
    remediation: report,
    ...(failed ? { message: failed } : {}),
  };
}

/**
 * Applies the repository's version of `toRestore` (the plan of `apply --only` those addresses,
 * with every guard), records each restore in the history; returns why it failed, if it did.
 */
async function restore(
  s: Session,
  opts: CommandOptions,
  toRestore: { item: DriftItem; entry: RemediationEntry; declared: string; counted: string[] }[],
  report: RemediationReport,
  history: Awaited<ReturnType<Session["backend"]["readRestoreHistory"]>>,
  now: Date,
): Promise<string | undefined> {
  const addresses = toRestore.map((r) => r.item.address);
  const planned = await makePlan(s, { ...opts, only: addresses }, false);
  const publishers = publishersFor(opts);
  tokenBlock(planned, publishers, opts);
  if (planned.plan.blocks.length) {
    const why = planned.plan.blocks.map((b) => b.message).join(" ");
    for (const r of toRestore) report.reported.push({ ...r.entry, detail: `not restored: ${why}` });
    return `Nothing was restored: ${why}`;
  }
  const writer = new InventoryWriter(s.backend, planned.inventory, s.project, () => now);
  for (const [address, entry] of rekeyedEntries(planned.inventory, planned.observation, s.fingerprintKey))
    writer.set(address, entry);
  let applied: Awaited<ReturnType<typeof applyPlan>>;
  try {
    applied = await applyPlan(
      {
        client: s.connection.client,
        project: s.project,
        inventory: writer,
        publishers,
        concurrency: opts.concurrency ?? s.project.settings.concurrency,
        now: () => now,
        progress: opts.progress,
        secrets: secretValues(s.project, opts.env),
        stopReason: () => opts.interrupted?.(),
        fingerprintKey: s.fingerprintKey,
      },
      planned,
    );
  } catch (e) {
    for (const r of toRestore) report.reported.push({ ...r.entry, detail: `not restored: ${messageOf(e)}` });
    return `Restoring stopped: ${messageOf(e)}`;
  }
  // A restore is a deployment of the history like any apply.
  await recordHistory({
    backend: s.backend,
    project: s.project,
    operation: "remediate",
    plan: planned.plan,
    steps: planned.steps,
    report: applied,
    managedBefore: new Set(Object.keys(planned.inventory?.objects ?? {})),
    now,
    env: opts.env,
  }).catch((e: unknown) =>
    opts.log?.(`The deployment history in ${s.backend.location} was not written: ${messageOf(e)}`),
  );
  const failures: string[] = [];
  for (const r of toRestore) {
    const results = applied.results.filter((x) => x.address === r.item.address);
    const bad = results.find((x) => x.status !== "done");
    if (bad) {
      const why = bad.message ?? bad.status;
      failures.push(`${r.item.address}: ${why}`);
      report.reported.push({ ...r.entry, detail: `not restored: ${why}` });
      continue;
    }
    const at = now.toISOString();
    history.restores[r.item.address] = [...(history.restores[r.item.address] ?? []), { at, declared: r.declared }];
    report.restored.push({ ...r.entry, restores: [...r.counted, at] });
  }
  if (report.restored.length) {
    try {
      await s.backend.writeRestoreHistory(history);
    } catch (e) {
      failures.push(`the restore history could not be written to ${s.backend.location}: ${messageOf(e)}`);
    }
  }
  return failures.length ? `Some objects were not restored:\n  ${failures.join("\n  ")}` : undefined;
}
