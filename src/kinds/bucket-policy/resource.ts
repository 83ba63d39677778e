/**
 * BucketPolicy: the S3 bucket policy that grants the environment's job and real-time roles access
 * to a bucket (`GET /files/s3-iam-policy`, spec 4.5). Nothing is created on the platform: the
 * document is read, to be applied by a cloud provider's resource, e.g.
 * `new aws.s3.BucketPolicy("p", { bucket: "my-bucket", policy: svcPolicy.policy })`.
 *
 * Id: the bucket name. `policy` is a JSON string (what `aws.s3.BucketPolicy` takes) with sorted
 * keys, so the same document always reads the same. Read fetches it again: a change of the
 * environment's roles shows as drift on `policy`. A new bucket name replaces; delete does nothing
 * on the platform (the policy applied to the bucket is the cloud resource's to remove).
 */
import type { z } from "zod";
import { canonicalJson } from "../../canonical-json";
import { checkWith } from "../check";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { bucketPolicyDefinition } from "./definition";
import { diffFields } from "../field-diff";
import { fingerprint, isUnkeyedFingerprint, matchesFingerprint, type FingerprintKey } from "../fingerprint";
import type { FieldChange, KindContext, ResourceKind } from "../kind";
import type { ReconcileTraits } from "../reconcile-traits";
import type { DesiredObject } from "../../model/desired";
import type { InventoryEntry } from "../../model/inventory";

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** A bucket policy's checked inputs (the bucket's name, without an `s3://` prefix). */
export type BucketPolicyInputs = CheckedInputs<typeof bucketPolicyDefinition>;
export const BucketPolicyInputs = definitionCheck(bucketPolicyDefinition, {
  fields: {
    // An `s3://` URL stands for its bucket; other schemes are refused by name.
    bucketName: (name) =>
      (name as z.ZodString)
        .transform((s) => s.replace(/^s3:\/\//, "").replace(/\/+$/, ""))
        .refine((s) => !s.includes("://"), {
          error:
            "A bucket policy is an S3 document; give an S3 bucket name (gs:// buckets are governed by Google Cloud IAM).",
        })
        .refine((s) => s.includes("://") || BUCKET.test(s), {
          error:
            'An S3 bucket name has 3 to 63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit, e.g. "my-data-bucket" (an "s3://" prefix is accepted).',
        }),
  },
});

export interface BucketPolicyState extends BucketPolicyInputs {
  /** The policy document as a JSON string with sorted keys. */
  policy: string;
}

export { canonicalJson };

async function policyFor(ctx: KindContext, bucketName: string): Promise<BucketPolicyState> {
  return { bucketName, policy: canonicalJson(await ctx.client.files.s3IamPolicy(bucketName)) };
}

/** `s3://name` or `{url: "s3://name"}` (the element shape is not in the spec) → `name`; other schemes → undefined. */
function s3BucketName(entry: unknown): string | undefined {
  const e = entry as Record<string, unknown> | string;
  const raw =
    typeof e === "string" ? e : [e?.url, e?.name, e?.bucket_name, e?.bucket].find((x) => typeof x === "string");
  if (typeof raw !== "string") return undefined;
  if (raw.includes("://") && !raw.startsWith("s3://")) return undefined;
  const name = raw.replace(/^s3:\/\//, "").replace(/\/.*$/, "");
  return BUCKET.test(name) ? name : undefined;
}

export const bucketPolicyKind: ResourceKind<BucketPolicyInputs, BucketPolicyState> = {
  kind: "BucketPolicy",
  secretInputs: [],
  secretOutputs: [],
  check: (raw) => checkWith(BucketPolicyInputs, raw),
  key: (i) => i.bucketName,
  diff: (olds, news) => diffFields({ ...olds }, { bucketName: news.bucketName }, { replaceOn: ["bucketName"] }),
  async create(ctx, inputs) {
    return { id: inputs.bucketName, state: await policyFor(ctx, inputs.bucketName), adopted: false };
  },
  // The document always exists (the platform derives it from the environment): never "gone".
  read: (ctx, id) => policyFor(ctx, id),
  update: (ctx, _id, _olds, news) => policyFor(ctx, news.bucketName),
  async delete() {
    // Nothing on the platform: the policy lives on the bucket, applied by a cloud provider's resource.
  },
  async observeAll(ctx) {
    // The environment's attached S3 buckets (one request), then one policy request per bucket.
    const env = await ctx.client.environment.getSelf();
    const names = [...new Set(env.buckets.map(s3BucketName).filter((n): n is string => n !== undefined))].sort();
    const out = [];
    for (const name of names) out.push({ id: name, key: name, state: await policyFor(ctx, name) });
    return out;
  },
};

/** The pretty JSON written to a bucket policy's output file. */
export function policyFileText(policy: string): string {
  return JSON.stringify(JSON.parse(policy), null, 2) + "\n";
}

const POLICY_SALT = "BucketPolicy:policy";
const policyText = (policy: string) => canonicalJson(JSON.parse(policy));
const policyFingerprint = (policy: string, key: FingerprintKey | undefined) =>
  fingerprint(policyText(policy), POLICY_SALT, key);

/** The plan compares the document with the one recorded at the last apply, and with its output file. */
function policyChanges(c: {
  desired: DesiredObject;
  state: Record<string, any>;
  inventory: InventoryEntry | undefined;
  files: Map<string, string>;
  fingerprintKey?: FingerprintKey;
}): FieldChange[] {
  const out: FieldChange[] = [];
  const policy = String(c.state.policy);
  const recorded = c.inventory?.kept?.policyFingerprint;
  if (recorded && !matchesFingerprint(recorded, policyText(policy), POLICY_SALT, c.fingerprintKey)) {
    out.push({
      field: "policy",
      action: "update",
      secret: false,
      note: "the environment's policy document changed since the last apply",
    });
  }
  const output = c.desired.options.output;
  if (output && c.files.get(output) !== policyFileText(policy)) {
    out.push({
      field: "output",
      action: "update",
      secret: false,
      to: output,
      note: c.files.has(output) ? "the output file differs from the policy document" : "the output file does not exist",
    });
  }
  return out;
}

export const bucketPolicyTraits: ReconcileTraits = {
  phase: 6,
  addressPrefix: "bucket_policy",
  observeEach: { idOf: (inputs) => String(inputs.bucketName) },
  alwaysExists: true,
  deleteNotes: [
    "nothing changes on the platform: a bucket policy is computed from the team's roles, so it is only forgotten",
  ],
  planFields: policyChanges,
  keep: ({ state, fingerprintKey }) => ({ policyFingerprint: policyFingerprint(state.policy, fingerprintKey) }),
  rekeyKept(kept, state, fingerprintKey) {
    if (!isUnkeyedFingerprint(kept.policyFingerprint) || typeof state.policy !== "string") return undefined;
    if (!matchesFingerprint(kept.policyFingerprint, policyText(state.policy), POLICY_SALT)) return undefined;
    return { ...kept, policyFingerprint: policyFingerprint(state.policy, fingerprintKey) };
  },
  outputFile: { path: (d) => d.options.output, text: (state) => policyFileText(state.policy) },
};
