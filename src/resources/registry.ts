/** Every resource kind by name: what the provider runtime and the reconciler dispatch on. */
import { bucketPolicyKind, bucketPolicyTraits } from "./bucket-policy";
import { canvasKind, canvasTraits } from "./canvas";
import { canvasShareKind, canvasShareTraits } from "./canvas-share";
import { cronjobKind, cronjobTraits } from "./cronjob";
import type { ResourceKind } from "./kind";
import type { ReconcileTraits } from "./reconcile-traits";
import { secretKind, secretTraits } from "./secret";
import { serviceAccountKind, serviceAccountTraits } from "./service-account";
import { sessionTokenKind } from "./session-token";
import { udfKind, udfTraits } from "./udf";
import type { DesiredKind } from "../model/desired";

export const KINDS: Record<string, ResourceKind<any, any>> = {
  Canvas: canvasKind,
  Udf: udfKind,
  CanvasShare: canvasShareKind,
  SessionToken: sessionTokenKind,
  Cronjob: cronjobKind,
  Secret: secretKind,
  ServiceAccount: serviceAccountKind,
  BucketPolicy: bucketPolicyKind,
};

/** The reconciler's knowledge of each kind a repository can declare (see `reconcile-traits.ts`). */
export const RECONCILE_TRAITS: Record<DesiredKind, ReconcileTraits> = {
  Secret: secretTraits,
  ServiceAccount: serviceAccountTraits,
  Canvas: canvasTraits,
  Udf: udfTraits,
  CanvasShare: canvasShareTraits,
  Cronjob: cronjobTraits,
  BucketPolicy: bucketPolicyTraits,
};
