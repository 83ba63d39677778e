/** Every resource kind by name: what the provider runtime and the reconciler dispatch on. */
import { bucketPolicyKind, bucketPolicyTraits } from "./bucket-policy/resource";
import { canvasKind, canvasTraits } from "./canvas/resource";
import { canvasShareKind, canvasShareTraits } from "./canvas-share/resource";
import { cronjobKind, cronjobTraits } from "./cronjob/resource";
import type { ResourceKind } from "./kind";
import type { ReconcileTraits } from "./reconcile-traits";
import { secretKind, secretTraits } from "./secret/resource";
import { serviceAccountKind, serviceAccountTraits } from "./service-account/resource";
import { sessionTokenKind } from "./session-token/resource";
import { udfKind, udfTraits } from "./udf/resource";
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
