/**
 * From a desired object to its kind's checked inputs: references to other objects become platform
 * ids (the kind's `references` trait: an id field ← the address of the object named), inherited inputs are copied
 * from the referenced object's desired inputs, and rotating kinds take the effective rotation value.
 */
import { checkDeclared, UNKNOWN_ID } from "../checked-inputs";
import { refAddress, type RefName } from "../../kinds/reconcile-traits";
import type { DesiredObject } from "../../model/desired";
import { traitsOf } from "../phases";
import { SvcError } from "../../errors";

export { UNKNOWN_ID };

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
export function rawInputs(
  d: DesiredObject,
  ctx: InputContext,
  rotation: string | number | undefined,
): Record<string, unknown> {
  const traits = traitsOf(d.kind);
  const out: Record<string, unknown> = { ...d.inputs };
  // A reference the object does not name is null (a UDF without a canvas).
  for (const r of traits.references ?? []) {
    const address = referencedAddress(d, r.ref);
    out[r.field] = address === undefined ? null : (ctx.idOf(address) ?? UNKNOWN_ID);
  }
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
 * Checked, normalized inputs of `raw`, which {@link rawInputs} made from `d`; the loader validated
 * them already (and kept the result: `checked-inputs.ts`), so a failure is a bug worth stopping
 * for. The ids of `raw` are put into a copy of the inputs checked with placeholders.
 */
export function checkedInputs(d: DesiredObject, raw: Record<string, unknown>): Record<string, any> {
  const checked = checkDeclared(d, raw);
  if (checked.failures.length) {
    const why = checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
    throw new SvcError(
      "inputs_invalid",
      `${d.source.file}:${d.source.line}:${d.source.column}: ${d.address} is invalid: ${why}`,
    );
  }
  const inputs = { ...checked.inputs };
  for (const r of traitsOf(d.kind).references ?? []) {
    if (raw[r.field] === undefined || raw[r.field] === null) delete inputs[r.field];
    else inputs[r.field] = raw[r.field];
  }
  return inputs;
}
