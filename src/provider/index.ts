/** Pulumi dynamic resources for the UDF platform. */
export { Canvas, type CanvasArgs } from "./canvas";
export { Udf, type UdfArgs, type UdfHeaderArgs } from "./udf";
export { CanvasShare, type CanvasShareArgs } from "./canvas-share";
export { SessionToken, type SessionTokenArgs } from "./session-token";
export { Cronjob, type CronjobArgs } from "./cronjob";
export { Secret, type SecretArgs } from "./secret";
export { ServiceAccount, type ServiceAccountArgs } from "./service-account";
export { BucketPolicy, type BucketPolicyArgs } from "./bucket-policy";
