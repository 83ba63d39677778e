/**
 * A kind's check of a declared object's inputs, made once: the loader checks every declared object
 * (its errors go to the user at file:line), and the plan and apply need each one's checked,
 * normalized inputs. A kind's check does not depend on which id a reference field holds (ids are
 * opaque), so it runs with references as {@link UNKNOWN_ID}, and its inputs are kept per inputs
 * object and per what else varies between calls (inherited inputs, rotation): a plan of 100,000
 * UDFs checks each once, in the loader, not again at planning and at every apply step. Inputs are
 * never changed in place: a step that changes them (name affixes) gives the object new inputs,
 * which are checked anew.
 */
import type { DesiredObject } from "../model/desired";
import type { CheckFailure } from "../kinds/kind";
import { KINDS } from "../kinds/registry";
import { traitsOf } from "./phases";

/** Placeholder for an id that exists only once an earlier step of the same apply has run. */
export const UNKNOWN_ID = "(known after apply)";

/**
 * Checked inputs by what varies between calls. Most objects only ever have one such key: it is
 * kept beside the inputs, and a Map per object is made only for a second key (a Map per object of a
 * 100,000-UDF plan held about 30 MB).
 */
const checkedCache = new WeakMap<
  DesiredObject["inputs"],
  { key: string; inputs: Record<string, any>; more?: Map<string, Record<string, any>> }
>();

/**
 * `d`'s kind's check of `raw` (its inputs, with references, inherited inputs and rotation as the
 * caller has them), references as {@link UNKNOWN_ID}; inputs that pass are kept for the next call
 * with the same inherited inputs and rotation.
 */
export function checkDeclared(
  d: DesiredObject,
  raw: Record<string, unknown>,
): { inputs: Record<string, any>; failures: CheckFailure[] } {
  const traits = traitsOf(d.kind);
  const key = JSON.stringify([
    ...(traits.inherits ?? []).map((i) => raw[i.field]),
    traits.rotation ? raw.rotation : undefined,
  ]);
  const cached = checkedCache.get(d.inputs);
  const known = cached?.key === key ? cached.inputs : cached?.more?.get(key);
  if (known) return { inputs: known, failures: [] };
  const placeholders = { ...raw };
  // A reference the object does not name is null (a UDF without a canvas).
  for (const r of traits.references ?? []) placeholders[r.field] = d.refs[r.ref] === undefined ? null : UNKNOWN_ID;
  const r = KINDS[d.kind]!.check(placeholders);
  if (r.failures.length) return { inputs: r.inputs as Record<string, any>, failures: r.failures };
  const inputs = r.inputs as Record<string, any>;
  if (!cached) checkedCache.set(d.inputs, { key, inputs });
  else (cached.more ??= new Map()).set(key, inputs);
  return { inputs, failures: [] };
}
