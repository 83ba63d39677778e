/** Builds desired objects as plain, deterministic data (no `undefined` fields). */
import {
  DRIFT_POLICIES,
  type DesiredKind,
  type DesiredObject,
  type DriftPolicySetting,
  type ReferencedInput,
  type SourceLocation,
} from "../../model/desired";
import type { MapReader } from "../../repository/fields";

/** `o` without its undefined fields, keys in the same order (a loop: no entry arrays for each of 100,000 objects). */
function defined<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) {
    const value = (o as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

export function desiredObject(
  kind: DesiredKind,
  address: string,
  inputs: Record<string, unknown>,
  source: SourceLocation,
  more: { refs?: DesiredObject["refs"]; options?: DesiredObject["options"]; referenced?: ReferencedInput[] } = {},
): DesiredObject {
  const referenced = more.referenced?.length ? { referenced: more.referenced } : {};
  return {
    address,
    kind,
    inputs: defined(inputs),
    refs: defined(more.refs ?? {}),
    options: defined(more.options ?? {}),
    source,
    ...referenced,
  };
}

/** Objects in address order, so loads, plans and snapshots never depend on directory order. */
export function sortByAddress(objects: DesiredObject[]): DesiredObject[] {
  return [...objects].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** An object's own `on_drift:` (report, restore or keep), with the file it is written in; undefined when absent. */
export function onDriftOf(m: MapReader, file: string): DriftPolicySetting | undefined {
  const policy = m.oneOf("on_drift", DRIFT_POLICIES);
  return policy ? { policy, from: `on_drift in ${file}` } : undefined;
}
