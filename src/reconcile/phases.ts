/**
 * Apply order, from each kind's `phase` trait. Creates and updates run phase by phase (secrets
 * first: UDFs may read them; canvases before their UDFs; UDFs before the shares that serve them and
 * the cronjobs that run them); deletions run afterwards in the reverse order.
 */
import { RECONCILE_TRAITS } from "../kinds/registry";
import type { ReconcileTraits } from "../kinds/reconcile-traits";
import type { DesiredKind } from "../model/desired";

/** The reconciler traits of `kind`. */
export const traitsOf = (kind: DesiredKind): ReconcileTraits => RECONCILE_TRAITS[kind];

export const PHASES: readonly DesiredKind[] = (Object.keys(RECONCILE_TRAITS) as DesiredKind[]).sort(
  (a, b) => traitsOf(a).phase - traitsOf(b).phase,
);

export const phaseOf = (kind: DesiredKind): number => traitsOf(kind).phase;

/** Address prefix of each kind (`canvas.sales`). */
export const addressPrefixOf = (kind: DesiredKind): string => traitsOf(kind).addressPrefix;

/** Plain string order (not locale order), so output is the same on every machine. */
export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
