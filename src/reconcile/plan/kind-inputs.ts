/**
 * From a desired object to its kind's checked inputs: references to other objects become platform
 * ids (the kind's `references` trait: an id field ← the address of the object named), inherited inputs are copied
 * from the referenced object's desired inputs, and rotating kinds take the effective rotation value.
 */
import { KINDS } from "../../resources/registry";
import { refAddress, type RefName } from "../../resources/reconcile-traits";
import type { DesiredObject } from "../../model/desired";
import { traitsOf } from "../phases";

/** Placeholder for an id that exists only once an earlier step of the same apply has run. */
export const UNKNOWN_ID = "(known after apply)";

/** The address `d` names under `ref`, if it names one. */
export function referencedAddress(d: DesiredObject, ref: RefName): string | undefined {
  const name = d.refs[ref];
  return name === undefined ? undefined : refAddress(ref, name);
}

/** Addresses of the objects `d` refers to (they must exist before it). */
export function dependenciesOf(d: DesiredObject): string[] {
  return (Object.keys(d.refs) as RefName[]).flatMap((ref) => referencedAddress(d, ref) ?? []);
}

export interface InputContext {
  /** The platform id of an address, when known. */
  idOf: (address: string) => string | undefined;
  /** A declared object by address (for inherited inputs). */
  desired: (address: string) => DesiredObject | undefined;
}

/** The raw kind inputs of `d`, ids resolved (or {@link UNKNOWN_ID}). */
export function rawInputs(d: DesiredObject, ctx: InputContext, rotation: string | number | undefined): Record<string, unknown> {
  const traits = traitsOf(d.kind);
  const out: Record<string, unknown> = { ...d.inputs };
  for (const r of traits.references ?? []) out[r.field] = ctx.idOf(referencedAddress(d, r.ref)!) ?? UNKNOWN_ID;
  for (const i of traits.inherits ?? []) {
    const value = ctx.desired(referencedAddress(d, i.ref)!)?.inputs[i.field];
    if (value) out[i.field] = value;
  }
  if (traits.rotation) {
    delete out.rotation;
    if (rotation !== undefined) out.rotation = rotation;
  }
  return out;
}

/**
 * Checked inputs of each desired object, by what varies between calls (inherited inputs,
 * rotation). Most objects only ever have one such key: it is kept beside the inputs, and a Map per
 * object is made only for a second key (a Map per object of a 100,000-UDF plan held about 30 MB).
 */
const checkedCache = new WeakMap<DesiredObject, { key: string; inputs: Record<string, any>; more?: Map<string, Record<string, any>> }>();

/** The checked inputs of `d` cached under `key`, if any. */
function cachedInputs(d: DesiredObject, key: string): Record<string, any> | undefined {
  const cached = checkedCache.get(d);
  return cached?.key === key ? cached.inputs : cached?.more?.get(key);
}

function cacheInputs(d: DesiredObject, key: string, inputs: Record<string, any>): void {
  const cached = checkedCache.get(d);
  if (!cached) checkedCache.set(d, { key, inputs });
  else (cached.more ??= new Map()).set(key, inputs);
}

/**
 * Checked, normalized inputs of `raw`, which {@link rawInputs} made from `d`; the loader validated
 * them already, so a failure is a bug worth stopping for. A kind's check does not depend on which
 * id a reference field holds (ids are opaque), so each object is checked once per inherited inputs
 * and rotation, with references as {@link UNKNOWN_ID}, and the ids are put into a copy: the plan
 * and apply of 100,000 objects check each once, not at every step that needs its inputs.
 */
export function checkedInputs(d: DesiredObject, raw: Record<string, unknown>): Record<string, any> {
  const traits = traitsOf(d.kind);
  const refs = traits.references ?? [];
  const key = JSON.stringify([...(traits.inherits ?? []).map((i) => raw[i.field]), traits.rotation ? raw.rotation : undefined]);
  let generic = cachedInputs(d, key);
  if (!generic) {
    const placeholders = { ...raw };
    for (const r of refs) placeholders[r.field] = UNKNOWN_ID;
    const r = KINDS[d.kind]!.check(placeholders);
    if (r.failures.length) {
      const why = r.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
      throw new Error(`${d.source.file}:${d.source.line}:${d.source.column}: ${d.address} is invalid: ${why}`);
    }
    generic = r.inputs as Record<string, any>;
    cacheInputs(d, key, generic);
  }
  const inputs = { ...generic };
  for (const r of refs) inputs[r.field] = raw[r.field];
  return inputs;
}
