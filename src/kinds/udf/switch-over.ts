/**
 * `deploy: tested` (a tested switch-over): which planned changes of a UDF go first to a hidden
 * candidate record, and how candidates are named. Pure: the switch-over itself runs in
 * `src/reconcile/udf-tests/switch-over.ts`.
 */
import type { DesiredObject } from "../../model/desired";

/** `deploy:` in a UDF's settings: `tested` switches over through a candidate, `direct` (the default) does not. */
export const DEPLOY_MODES = ["direct", "tested"] as const;

/** The inputs that make what the UDF runs: a change of one of them is tried on a candidate first. */
export const SWITCH_OVER_FIELDS: readonly string[] = ["code", "entrypoint", "headers", "metadata"];

/**
 * The slug prefix of candidate records. A candidate is a UDF without a canvas, so it never shows on
 * a canvas; listings of UDFs without a canvas leave these out (never drift, never pruned, never imported).
 */
export const CANDIDATE_SLUG_PREFIX = "svc-candidate-";

/** Whether a slug names a switch-over candidate. */
export const isCandidateSlug = (slug: string): boolean => slug.startsWith(CANDIDATE_SLUG_PREFIX);

/** Whether the change of `fields` to the UDF `d` (an update or rename of the live record) switches over through a candidate. */
export function switchesOver(
  d: DesiredObject | undefined,
  action: string,
  fields: readonly { field: string }[],
): boolean {
  return (
    d?.kind === "Udf" &&
    d.options.deploy === "tested" &&
    (action === "update" || action === "rename") &&
    fields.some((f) => SWITCH_OVER_FIELDS.includes(f.field))
  );
}
