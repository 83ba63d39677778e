/** The BucketPolicy kind's fields: its Pulumi arguments and outputs (`src/provider/bucket-policy.ts`). */
import type { KindDefinition } from "../kind-definition";

export const bucketPolicyDefinition = {
  kind: "BucketPolicy",
  description:
    "The bucket policy document the platform needs on an S3 bucket, read from the platform and refreshed on every read (a change of the environment's roles shows as drift). Creates nothing on the platform; apply it with your cloud provider. Deleting it does nothing on the platform.",
  example:
    'const doc = new svc.BucketPolicy("data", { bucketName: "my-data-bucket" });\nnew aws.s3.BucketPolicy("data", { bucket: "my-data-bucket", policy: doc.policy });',
  inputs: {
    bucketName: {
      type: "string",
      description: "The S3 bucket to grant the environment's job and real-time roles access to. A change replaces.",
      required: true,
      replaceOnChanges: true,
      output: "always",
      example: '"my-data-bucket"',
      check: { message: 'bucketName is an S3 bucket name, e.g. "my-data-bucket".' },
    },
  },
  outputs: {
    policy: {
      type: "string",
      description: "The policy document as a JSON string (sorted keys), as `aws.s3.BucketPolicy` takes it.",
      required: true,
    },
  },
  repository: {
    file: {
      schema: "bucket-policies",
      title: "bucket-policies.yaml",
      description: "S3 buckets whose IAM policy document the environment needs.",
      listedUnder: {
        key: "bucket_policies",
        schema: (properties) => ({
          type: "object",
          description: "S3 bucket name -> where to write its policy document.",
          propertyNames: { pattern: "^(s3://)?[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/?$" },
          additionalProperties: { type: ["object", "null"], additionalProperties: false, properties },
        }),
      },
    },
    keys: {
      output: {
        schema: { type: "string", description: "A file, relative to the repository, to write the policy document to." },
      },
    },
  },
  importId: {
    id: "BUCKET_NAME",
    where: "the S3 bucket's name",
    inputs: ["bucketName"],
  },
} satisfies KindDefinition;
