/** Builds desired objects as plain, deterministic data (no `undefined` fields). */
import type { DesiredKind, DesiredObject, ReferencedInput, SourceLocation } from "../../model/desired";

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
