import { describe, expect, it } from "vitest";
import { bucketPolicyKind, canonicalJson } from "../../src/kinds/bucket-policy/resource";

describe("BucketPolicy check", () => {
  it("GIVEN a bucket name, with or without s3:// THEN the plain name is kept", () => {
    expect(bucketPolicyKind.check({ bucketName: "my-data-bucket" })).toEqual({
      inputs: { bucketName: "my-data-bucket" },
      failures: [],
    });
    expect(bucketPolicyKind.check({ bucketName: "s3://my-data-bucket/" }).inputs).toEqual({
      bucketName: "my-data-bucket",
    });
  });

  it("refuses an invalid S3 name, a gs:// bucket and a missing name, saying what is expected", () => {
    expect(bucketPolicyKind.check({ bucketName: "My_Bucket" }).failures).toEqual([
      {
        property: "bucketName",
        reason:
          'Invalid bucketName "My_Bucket". An S3 bucket name has 3 to 63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit, e.g. "my-data-bucket" (an "s3://" prefix is accepted).',
      },
    ]);
    expect(bucketPolicyKind.check({ bucketName: "gs://other-bucket" }).failures).toEqual([
      {
        property: "bucketName",
        reason:
          'Invalid bucketName "gs://other-bucket". A bucket policy is an S3 document; give an S3 bucket name (gs:// buckets are governed by Google Cloud IAM).',
      },
    ]);
    expect(bucketPolicyKind.check({}).failures).toEqual([
      {
        property: "bucketName",
        reason: 'bucketName is required: bucketName is an S3 bucket name, e.g. "my-data-bucket".',
      },
    ]);
  });
});

describe("BucketPolicy diff", () => {
  const olds = { bucketName: "a-bucket", policy: "{}" };
  it("GIVEN the same bucket THEN no change", () => {
    expect(bucketPolicyKind.diff(olds, { bucketName: "a-bucket" })).toEqual({
      changes: false,
      replaces: [],
      stables: ["bucketName"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });
  it("GIVEN another bucket THEN it replaces (nothing to delete first)", () => {
    expect(bucketPolicyKind.diff(olds, { bucketName: "b-bucket" })).toMatchObject({
      changes: true,
      replaces: ["bucketName"],
      deleteBeforeReplace: false,
    });
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every level, so the same document is always the same text", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: "x" })).toBe('{"a":"x","b":[{"c":2,"d":1}]}');
    expect(JSON.parse(canonicalJson({ Version: "2012-10-17", Statement: [] }))).toEqual({
      Statement: [],
      Version: "2012-10-17",
    });
  });
});
