/**
 * Every kind's definition (`kind-definition.ts`), in the order the Pulumi package schema lists
 * them. Pure data: what the schema generators read.
 */
import { bucketPolicyDefinition } from "./bucket-policy";
import { canvasDefinition } from "./canvas";
import { canvasShareDefinition } from "./canvas-share";
import { cronjobDefinition } from "./cronjob";
import type { KindDefinition } from "./kind-definition";
import { secretDefinition } from "./secret";
import { serviceAccountDefinition } from "./service-account";
import { sessionTokenDefinition } from "./session-token";
import { udfDefinition } from "./udf";

export const KIND_DEFINITIONS: readonly KindDefinition[] = [
  canvasDefinition,
  udfDefinition,
  canvasShareDefinition,
  cronjobDefinition,
  secretDefinition,
  serviceAccountDefinition,
  bucketPolicyDefinition,
  sessionTokenDefinition,
];
