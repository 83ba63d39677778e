/**
 * Every kind's definition (`kind-definition.ts`), in the order the Pulumi package schema lists
 * them. Pure data: what the schema generators read.
 */
import { bucketPolicyDefinition } from "./bucket-policy/definition";
import { canvasDefinition } from "./canvas/definition";
import { canvasShareDefinition } from "./canvas-share/definition";
import { cronjobDefinition } from "./cronjob/definition";
import type { KindDefinition } from "./kind-definition";
import { secretDefinition } from "./secret/definition";
import { serviceAccountDefinition } from "./service-account/definition";
import { sessionTokenDefinition } from "./session-token/definition";
import { udfDefinition } from "./udf/definition";

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
