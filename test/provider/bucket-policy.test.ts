import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketPolicyKind } from "../../src/kinds/bucket-policy/resource";
import { useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:BucketPolicy::p";
let host: ProviderHost;
let __provider: string;

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("BucketPolicy");
});
afterAll(async () => host?.stop());

describe("BucketPolicy through the dynamic-provider host", () => {
  it("runs check, create, read, diff, replace and delete; policy is the platform's document as a JSON string", async () => {
    const checked = await host.check(URN, {}, { __provider, bucketName: "s3://customer-data/" });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toMatchObject({ bucketName: "customer-data" });

    const created = await host.create(URN, checked.inputs);
    expect(created.id).toBe("customer-data");
    const policy = JSON.parse(created.properties.policy as string);
    // The same document the platform gives, ready for aws.s3.BucketPolicy's `policy` (a string).
    expect(policy).toEqual(await fx.user.files.s3IamPolicy("customer-data"));
    expect(policy.Statement[0]).toMatchObject({
      Effect: "Allow",
      Action: "s3:*",
      Resource: ["arn:aws:s3:::customer-data", "arn:aws:s3:::customer-data/*"],
    });
    expect(policy.Statement[0].Principal.AWS).toEqual(
      expect.arrayContaining([expect.stringContaining("svc-job-env-demo")]),
    );

    const read = await host.read(URN, created.id, created.properties);
    expect(read).toEqual({ id: "customer-data", properties: created.properties });
    expect(await host.diff(URN, created.id, read.properties, checked.inputs)).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });

    // Another bucket replaces: a new document, nothing to remove on the platform.
    const next = (await host.check(URN, read.properties, { __provider, bucketName: "other-data" })).inputs;
    expect(await host.diff(URN, created.id, read.properties, next)).toEqual({
      changes: "some",
      replaces: ["bucketName"],
      deleteBeforeReplace: false,
    });
    const replacement = await host.create(URN, next);
    expect(replacement.id).toBe("other-data");
    expect(replacement.properties.policy).toContain("arn:aws:s3:::other-data");
    await host.delete(URN, created.id, read.properties);
    await host.delete(URN, replacement.id, replacement.properties);
  });

  it("reads the document afresh: a change of the environment's roles shows as drift", async () => {
    const created = await host.create(URN, { __provider, bucketName: "drift-bucket" });
    // Another team's policy stands in for "the roles changed": same bucket, other principals.
    const stale = {
      ...created.properties,
      policy: created.properties.policy!.toString().replace(/env-demo/g, "env-old"),
    };
    expect(stale.policy).not.toBe(created.properties.policy);
    const read = await host.read(URN, created.id, stale);
    expect(read.properties.policy).toBe(created.properties.policy);
  });

  it("refuses bad bucket names in check, and asks nothing of the platform", async () => {
    const r = await host.check(URN, {}, { __provider, bucketName: "Bad_Bucket" });
    expect(r.failures).toEqual([
      {
        property: "bucketName",
        reason:
          'Invalid bucketName "Bad_Bucket". An S3 bucket name has 3 to 63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit, e.g. "my-data-bucket" (an "s3://" prefix is accepted).',
      },
    ]);
    expect((await host.check(URN, {}, { __provider })).failures.map((f) => f.property)).toEqual(["bucketName"]);
    await expect(host.create(URN, { __provider, bucketName: "gs://other-bucket" })).rejects.toBeInstanceOf(HostError);
  });

  it("observes one policy per S3 bucket of the environment", async () => {
    const all = await bucketPolicyKind.observeAll({ client: fx.user });
    expect(all.map((o) => o.key)).toEqual(["demo-bucket"]);
    expect(JSON.parse(all[0].state.policy)).toEqual(await fx.user.files.s3IamPolicy("demo-bucket"));
    // Team `other` has only a gs:// bucket: no S3 policy to observe.
    expect(await bucketPolicyKind.observeAll({ client: fx.other })).toEqual([]);
  });
});
