/**
 * The `BucketPolicy` Pulumi resource. Generated from `src/kinds/bucket-policy/definition.ts` by `npm run generate:schemas`:
 * do not edit; edit the definition.
 */
import * as pulumi from "@pulumi/pulumi";
import type { BucketPolicyArgs } from "./arguments";
import { dynamicType, quietStacks, withStub } from "./registration";

export type { BucketPolicyArgs } from "./arguments";

/**
 * The bucket policy document the platform needs on an S3 bucket, read from the platform and
 * refreshed on every read (a change of the environment's roles shows as drift). Creates nothing on
 * the platform; apply it with your cloud provider. Deleting it does nothing on the platform.
 *
 * @example
 * const doc = new svc.BucketPolicy("data", { bucketName: "my-data-bucket" });
 * new aws.s3.BucketPolicy("data", { bucket: "my-data-bucket", policy: doc.policy });
 */
export class BucketPolicy extends pulumi.CustomResource {
  /**
   * The S3 bucket to grant the environment's job and real-time roles access to. A change replaces.
   */
  declare readonly bucketName: pulumi.Output<string>;
  /**
   * The policy document as a JSON string (sorted keys), as `aws.s3.BucketPolicy` takes it.
   */
  declare readonly policy: pulumi.Output<string>;

  constructor(name: string, args: BucketPolicyArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      policy: undefined,
      ...args,
    };
    const stacks = quietStacks();
    try {
      super(dynamicType("BucketPolicy"), name, withStub("BucketPolicy", inputs), opts);
    } catch (e) {
      throw stacks.atCaller(e, new.target);
    } finally {
      stacks.restore();
    }
  }
}
