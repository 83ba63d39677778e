/**
 * Preflight: what plan checks with reads before any write, so that apply never leaves a
 * half-applied repository because of something plan could have known (a share on a real-time
 * instance the team does not have). Each kind declares its
 * checks (`preflight` trait); this runs them over the declared objects, reading each kind's facts
 * once, and reports problems as validation errors at the object's place in its file.
 */
import { SvcError } from "../../errors";
import type { SvcClient } from "../../api/client";
import type { DesiredObject, LoadError } from "../../model/desired";
import { PHASES, traitsOf } from "../phases";

/** Problems found before the first write; the plan (and apply) stops with them, exit 1. */
export class PreflightError extends SvcError {
  override readonly name = "PreflightError";
  constructor(readonly errors: LoadError[]) {
    super(
      "preflight_failed",
      errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.path ? `${e.path}: ` : ""}${e.message}`).join("\n"),
    );
  }
}

/** Every preflight problem of `objects`, in kind then address order (empty: apply can go ahead). */
export async function preflightErrors(client: SvcClient, objects: readonly DesiredObject[]): Promise<LoadError[]> {
  const errors: LoadError[] = [];
  for (const kind of PHASES) {
    const preflight = traitsOf(kind).preflight;
    const declared = objects.filter((o) => o.kind === kind);
    if (!preflight || !declared.length) continue;
    const facts = await preflight.read(client);
    for (const o of declared) {
      for (const p of preflight.check(o, facts))
        errors.push({
          file: o.source.file,
          line: o.source.line,
          column: o.source.column,
          path: p.path,
          message: p.message,
        });
    }
  }
  return errors;
}
