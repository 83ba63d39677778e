/**
 * `svc-iac/pulumi`: the Pulumi dynamic resources (`import * as svc from "svc-iac/pulumi"`).
 * A subpath of its own so that the root entry, the command line and the GitHub Action never load
 * `@pulumi/pulumi`, which is an optional peer dependency: a Pulumi program installs it anyway.
 */
export * from "./provider/index";
