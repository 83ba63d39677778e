/**
 * What `svc-iac rollback --to X` declares (pure): the repository's objects, with every object the
 * history knows at its state after the latest deployment (so what the rollback takes along is left
 * as deployed), and the selected objects at their state after X: an object X had gets X's settings
 * back; one made after X is left out, and deleted. Secret inputs are never in the history: an
 * object that has one takes it from the repository, and one the repository no longer declares
 * cannot be restored (the rollback stops, naming it).
 */
import { KINDS } from "../../kinds/registry";
import type { DesiredObject, SourceLocation } from "../../model/desired";
import { patternOf } from "../deployed/show-report";
import type { HistoryIndex, Snapshot } from "./history-model";
import { stateAfter } from "./history-store";

export interface RollbackObjects {
  /** The objects to plan against. */
  objects: DesiredObject[];
  /** The addresses the rollback changes back (the plan's `--only`). */
  selected: string[];
  /** Why it cannot go on; empty when it can. */
  problems: string[];
}

/** The addresses whose snapshots {@link rollbackObjects} needs: after the latest deployment and after `to`. */
export function neededSnapshots(index: HistoryIndex, to: string): Set<string> {
  return new Set([...stateAfter(index, index.deployments.at(-1)?.id).values(), ...stateAfter(index, to).values()]);
}

export function rollbackObjects(
  current: readonly DesiredObject[],
  index: HistoryIndex,
  to: string,
  patterns: readonly string[],
  snapshots: ReadonlyMap<string, Snapshot>,
): RollbackObjects {
  const then = stateAfter(index, to);
  const now = stateAfter(index, index.deployments.at(-1)?.id);
  const res = patterns.map(patternOf);
  const known = [...new Set([...then.keys(), ...now.keys()])].sort();
  const selected = known.filter((a) => !res.length || res.some((re) => re.test(a)));
  const problems: string[] = [];
  for (const p of patterns)
    if (!known.some((a) => patternOf(p).test(a)))
      problems.push(`${p} matches no object the history of deployment ${to} or after knows.`);
  const declared = new Map(current.map((o) => [o.address, o]));
  const objects = new Map(current.map((o) => [o.address, o]));
  const fromHistory = (address: string, hash: string, required: boolean): DesiredObject | undefined => {
    const s = snapshots.get(hash)!;
    const repo = declared.get(address);
    const secret = KINDS[s.kind]?.secretInputs ?? [];
    const secrets: Record<string, unknown> = {};
    for (const f of secret) {
      const value = repo?.kind === s.kind ? repo.inputs[f] : undefined;
      if (value !== undefined) secrets[f] = value;
      else if (s.kind === "Secret") {
        if (required)
          problems.push(
            `${address} cannot be restored: its value is never kept in the history, and the repository no longer declares it. Declare it again, or leave it out of the rollback.`,
          );
        return undefined;
      }
    }
    const source: SourceLocation = repo?.source ?? { file: `history deployment ${to}`, line: 1, column: 1, path: "" };
    return {
      address,
      kind: s.kind,
      inputs: { ...s.inputs, ...secrets },
      refs: { ...s.refs },
      options: { ...s.options },
      source,
    };
  };
  for (const [address, hash] of now) {
    // What the rollback takes along stays as deployed; one that cannot be rebuilt stays as the repository has it.
    const o = fromHistory(address, hash, false);
    if (o) objects.set(address, o);
  }
  for (const address of selected) {
    const hash = then.get(address);
    if (hash === undefined) objects.delete(address);
    else {
      const o = fromHistory(address, hash, true);
      if (o) objects.set(address, o);
    }
  }
  return { objects: [...objects.values()], selected, problems };
}
