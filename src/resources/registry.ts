/** Every resource kind by name: what the provider runtime and the reconciler dispatch on. */
import { bucketPolicyKind } from "./bucket-policy";
import { canvasKind } from "./canvas";
import { canvasShareKind } from "./canvas-share";
import { cronjobKind } from "./cronjob";
import type { ResourceKind } from "./kind";
import { secretKind } from "./secret";
import { serviceAccountKind } from "./service-account";
import { sessionTokenKind } from "./session-token";
import { udfKind } from "./udf";

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
