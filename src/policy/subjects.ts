/** Subjects of a check built from declared objects (validate) and observed states (drift). Pure. */
import type { DesiredObject } from "../model/desired";
import { RULE_KIND_NAMES, ruleObject } from "./fields";
import type { PolicySubject } from "./model";

export const ruleKindOf = (kind: string): string => RULE_KIND_NAMES[kind] ?? kind.toLowerCase();

/** A declared object as rules see it (`object`), with `current` and `action` given by the caller. */
export function desiredView(o: DesiredObject): Record<string, unknown> {
  return ruleObject(
    ruleKindOf(o.kind),
    o.inputs,
    o.options.protect === undefined ? {} : { protect: o.options.protect },
  );
}

/** What validate checks: each declared object, nothing known of the platform (`current` null, action `none`). */
export function declaredSubjects(objects: readonly DesiredObject[]): PolicySubject[] {
  return objects.map((o) => ({
    address: o.address,
    kind: ruleKindOf(o.kind),
    object: desiredView(o),
    current: null,
    action: "none",
    changed: [],
    source: o.source,
  }));
}
