/**
 * Drift: how the platform differs from the repository, from a plan made without prune and without
 * the rotation schedule (a due rotation is not drift). Pure; `svc-iac drift` never writes.
 */
import { createHash } from "node:crypto";
import { keepUnavailable } from "../import/keep-fields";
import { byString } from "../phases";
import { DRIFT_CLASSES, REPORT_VERSION, type DriftClass, type DriftItem, type DriftReport } from "./plan-model";
import type { PlanOutcome, Step } from "./";

/** A word as a POSIX shell reads it: quoted unless it is plain. */
const shellWord = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const shellCommand = (words: string[]) => words.map(shellWord).join(" ");

/**
 * How to settle a changed object: apply the repository's version, or bring the platform's into the
 * files that declare it (`import --keep`, which writes only the drifted fields), when it can.
 */
function commandsFor(s: Step, target: string): DriftItem["commands"] {
  const t = ["--target", target];
  const a = s.action;
  const why = keepUnavailable(a.kind, a.fields, a.source?.file, s.desired?.referenced);
  return {
    restore: shellCommand(["svc-iac", "apply", ...t, "--only", a.address]),
    ...(why ? { keepUnavailable: why } : { keep: shellCommand(["svc-iac", "import", ...t, "--keep", a.address]) }),
  };
}

function classify(outcome: PlanOutcome): DriftItem[] {
  const items: DriftItem[] = [];
  for (const s of outcome.steps) {
    const a = s.action;
    const item = (cls: DriftClass): DriftItem => ({
      address: a.address,
      kind: a.kind,
      class: cls,
      ...(a.id ? { id: a.id } : {}),
      fields: a.fields,
      ...(a.source ? { source: a.source } : {}),
      ...(a.references ? { references: a.references } : {}),
      ...(cls === "changed" ? { commands: commandsFor(s, outcome.plan.target) } : {}),
    });
    if (a.action === "create" || a.action === "share") items.push(item(s.inventory ? "missing" : "pending"));
    else if (a.action === "adopt" || a.action === "rename" || a.action === "forget") items.push(item("pending"));
    else if (a.action === "update" || a.action === "replace" || a.action === "rotate")
      items.push(item(s.managed ? "changed" : "pending"));
  }
  // The plan behind drift never prunes, so what prune would delete is exactly its orphans.
  for (const o of outcome.plan.orphans)
    items.push({ address: o.address, kind: o.kind, class: "orphaned", id: o.id, fields: [] });
  for (const u of outcome.plan.unmanaged)
    items.push({ address: u.address, kind: u.kind, class: "unmanaged", id: u.id, fields: [] });
  const rank = (c: DriftClass) => DRIFT_CLASSES.indexOf(c);
  return items.sort((a, b) => rank(a.class) - rank(b.class) || byString(a.address, b.address));
}

/** Equal drift sets (objects, classes, changed field names) give equal fingerprints. */
export function driftFingerprint(items: DriftItem[]): string {
  const lines = items
    .map(
      (i) =>
        `${i.class} ${i.address} ${i.fields
          .map((f) => f.field)
          .sort()
          .join(",")}`,
    )
    .sort();
  return "sha256:" + createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

export function driftReport(outcome: PlanOutcome): DriftReport {
  const items = classify(outcome);
  const counts = Object.fromEntries(
    DRIFT_CLASSES.map((c) => [c, items.filter((i) => i.class === c).length]),
  ) as DriftReport["counts"];
  return {
    version: REPORT_VERSION,
    project: outcome.plan.project,
    target: outcome.plan.target,
    drift: items.length > 0,
    items,
    counts,
    fingerprint: driftFingerprint(items),
  };
}

/** `report` narrowed to the items at `addresses` (what remains after `drift --remediate`), counts and fingerprint recomputed. */
export function driftOfAddresses(report: DriftReport, addresses: ReadonlySet<string>): DriftReport {
  const items = report.items.filter((i) => addresses.has(i.address));
  const counts = Object.fromEntries(
    DRIFT_CLASSES.map((c) => [c, items.filter((i) => i.class === c).length]),
  ) as DriftReport["counts"];
  return { ...report, drift: items.length > 0, items, counts, fingerprint: driftFingerprint(items) };
}
