/**
 * Apply order. Creates and updates run phase by phase (secrets first: UDFs may read them; canvases
 * before their UDFs; UDFs before the shares that serve them and the cronjobs that run them);
 * deletions run afterwards in the reverse order.
 */
import type { DesiredKind } from "./model";

export const PHASES: readonly DesiredKind[] = ["Secret", "ServiceAccount", "Canvas", "Udf", "CanvasShare", "Cronjob", "BucketPolicy"];

export const phaseOf = (kind: DesiredKind): number => PHASES.indexOf(kind);

/** Address prefix of each kind (`canvas.sales`). */
export const ADDRESS_PREFIX: Record<DesiredKind, string> = {
  Secret: "secret",
  ServiceAccount: "service_account",
  Canvas: "canvas",
  Udf: "udf",
  CanvasShare: "share",
  Cronjob: "cronjob",
  BucketPolicy: "bucket_policy",
};

/** Plain string order (not locale order), so output is the same on every machine. */
export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
