/**
 * From a desired object to its kind's checked inputs: references to other objects become platform
 * ids (a canvas name → `canvasId`, `<canvas>/<slug>` → `udfId`), shares take their canvas's desired
 * access scope, and rotating kinds take the effective rotation value.
 */
import { fingerprint } from "../resources/fingerprint";
import { KINDS } from "../resources/registry";
import type { DesiredObject } from "./model";

/** Placeholder for an id that exists only once an earlier step of the same apply has run. */
export const UNKNOWN_ID = "(known after apply)";

export const canvasAddress = (name: string) => `canvas.${name}`;
export const udfAddress = (ref: string) => `udf.${ref}`;

/** Addresses of the objects `d` refers to (they must exist before it). */
export function dependenciesOf(d: DesiredObject): string[] {
  const deps: string[] = [];
  if (d.refs.canvas) deps.push(canvasAddress(d.refs.canvas));
  if (d.refs.udf) deps.push(udfAddress(d.refs.udf));
  return deps;
}

export interface InputContext {
  /** The platform id of an address, when known. */
  idOf: (address: string) => string | undefined;
  /** A declared canvas by name (for a share's access scope). */
  canvas: (name: string) => DesiredObject | undefined;
}

/** The raw kind inputs of `d`, ids resolved (or {@link UNKNOWN_ID}). */
export function rawInputs(d: DesiredObject, ctx: InputContext, rotation: string | number | undefined): Record<string, unknown> {
  const withRotation = (o: Record<string, unknown>) => {
    const { rotation: _r, ...rest } = o;
    return rotation === undefined ? rest : { ...rest, rotation };
  };
  switch (d.kind) {
    case "Udf":
      return { ...d.inputs, canvasId: ctx.idOf(canvasAddress(d.refs.canvas!)) ?? UNKNOWN_ID };
    case "CanvasShare": {
      const canvas = ctx.canvas(d.refs.canvas!);
      return withRotation({
        ...d.inputs,
        canvasId: ctx.idOf(canvasAddress(d.refs.canvas!)) ?? UNKNOWN_ID,
        ...(canvas?.inputs.accessScope ? { accessScope: canvas.inputs.accessScope } : {}),
      });
    }
    case "Cronjob":
      return { ...d.inputs, udfId: ctx.idOf(udfAddress(d.refs.udf!)) ?? UNKNOWN_ID };
    case "ServiceAccount":
      return withRotation(d.inputs);
    default:
      return d.inputs;
  }
}

/** Checked, normalized inputs; the loader validated them already, so a failure is a bug worth stopping for. */
export function checkedInputs(d: DesiredObject, raw: Record<string, unknown>): Record<string, any> {
  const r = KINDS[d.kind]!.check(raw);
  if (r.failures.length) {
    const why = r.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
    throw new Error(`${d.source.file}:${d.source.line}:${d.source.column}: ${d.address} is invalid: ${why}`);
  }
  return r.inputs as Record<string, any>;
}

/** Fingerprint of a token as the inventory keeps it (never the token). */
export const tokenFingerprint = (token: string) => fingerprint(token, "svc-iac:token");
