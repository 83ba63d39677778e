/**
 * The team-level files: `secrets.yaml` (values from the environment only),
 * `service-accounts.yaml` (rotation policy) and `bucket-policies.yaml` (where to write each policy).
 * Each is optional.
 */
import type { RepositoryJail } from "../../repository/jail";
import { posix } from "node:path";
import type { DesiredObject, StateLocation } from "../../model/desired";
import { quotedPath, type Diagnostics } from "../../repository/diagnostics";
import { desiredObject } from "./desired";
import { joinPath, MapReader, referencedInputs, report, rootReader, type ReadContext } from "../../repository/fields";
import { isMap } from "yaml";
import {
  BUCKET_POLICIES_KEYS,
  BUCKET_POLICY_KEYS,
  DURATION_EXPECTED,
  PATTERNS,
  SECRET_KEYS,
  SECRETS_KEYS,
  SERVICE_ACCOUNT_KEYS,
  SERVICE_ACCOUNTS_KEYS,
} from "./keys";
import type { Resolver } from "../../repository/variables";
import { locate, readYaml } from "../../repository/yaml-source";
import { outputOverwrite } from "./output-files";

export const SECRETS_FILE = "secrets.yaml";
export const SERVICE_ACCOUNTS_FILE = "service-accounts.yaml";
export const BUCKET_POLICIES_FILE = "bucket-policies.yaml";

const SERVICE_ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,182}$/;
const BUCKET = /^(s3:\/\/)?[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/?$/;

type Entries = { ctx: ReadContext; list: MapReader } | undefined;

/** Opens `file` and its one top-level mapping of user-named entries. */
async function openEntries(
  jail: RepositoryJail,
  file: string,
  topKeys: readonly string[],
  vars: Resolver,
  diag: Diagnostics,
): Promise<Entries> {
  const src = await readYaml(jail, file, diag);
  if (!src) return undefined;
  const ctx: ReadContext = { src, diag, vars };
  const top = rootReader(ctx, topKeys);
  const key = topKeys[0];
  if (!top.isMapping || !top.has(key)) return undefined;
  const list = new MapReader(ctx, top.valueNode(key), key, "any");
  return list.isMapping ? { ctx, list } : undefined;
}

export async function readSecrets(jail: RepositoryJail, vars: Resolver, diag: Diagnostics): Promise<DesiredObject[]> {
  const opened = await openEntries(jail, SECRETS_FILE, SECRETS_KEYS, vars, diag);
  if (!opened) return [];
  const out: DesiredObject[] = [];
  for (const e of opened.list.entries()) {
    if (!PATTERNS.secretKey.test(e.name)) {
      report(
        opened.ctx,
        e.keyNode,
        e.path,
        `found secret key "${e.name}", expected 1 to 256 letters, digits, "_", "." or "-", e.g. "MAPBOX_TOKEN"`,
      );
      continue;
    }
    // `KEY: ${env.NAME}`, or `KEY: {value: ${env.NAME}, protect: true}`.
    const long = isMap(e.valueNode) ? new MapReader(opened.ctx, e.valueNode, e.path, SECRET_KEYS) : undefined;
    if (long && !long.has("value")) {
      report(
        opened.ctx,
        e.keyNode,
        e.path,
        `found no value, expected value: \${env.NAME} naming the environment variable holding secret ${e.name}`,
      );
      continue;
    }
    const value = long
      ? long.secret("value", `secret ${e.name}`, { allowEmpty: true })
      : opened.list.secret(e.name, `secret ${e.name}`, { allowEmpty: true });
    if (value === undefined) continue;
    out.push(
      desiredObject("Secret", `secret.${e.name}`, { key: e.name, value }, locate(opened.ctx.src, e.keyNode, e.path), {
        options: { protect: long?.boolean("protect") },
      }),
    );
  }
  return out;
}

export async function readServiceAccounts(
  jail: RepositoryJail,
  vars: Resolver,
  diag: Diagnostics,
): Promise<DesiredObject[]> {
  const opened = await openEntries(jail, SERVICE_ACCOUNTS_FILE, SERVICE_ACCOUNTS_KEYS, vars, diag);
  if (!opened) return [];
  const out: DesiredObject[] = [];
  for (const e of opened.list.entries()) {
    if (!SERVICE_ACCOUNT_NAME.test(e.name)) {
      report(
        opened.ctx,
        e.keyNode,
        e.path,
        `found service account name "${e.name}", expected 1 to 183 letters, digits, spaces, "_", "." or "-", e.g. "ci-deployer"`,
      );
      continue;
    }
    const m = new MapReader(opened.ctx, e.valueNode, e.path, SERVICE_ACCOUNT_KEYS);
    if (!m.isMapping) continue;
    const inputs = {
      name: e.name,
      rotation: m.text("rotation", 'a trigger value (string or number), e.g. "1": changing it rotates the token'),
    };
    const rotateEvery = m.string("rotate_every", { pattern: PATTERNS.duration, expected: DURATION_EXPECTED });
    const referenced = referencedInputs(opened.ctx, { rotation: joinPath(e.path, "rotation") });
    out.push(
      desiredObject("ServiceAccount", `service_account.${e.name}`, inputs, locate(opened.ctx.src, e.keyNode, e.path), {
        options: { rotateEvery, protect: m.boolean("protect") },
        referenced,
      }),
    );
  }
  return out;
}

/** Read last: an `output:` is checked against every file read before it (see output-files.ts); `state` is the project's state folder. */
export async function readBucketPolicies(
  jail: RepositoryJail,
  vars: Resolver,
  diag: Diagnostics,
  state?: StateLocation,
): Promise<DesiredObject[]> {
  const opened = await openEntries(jail, BUCKET_POLICIES_FILE, BUCKET_POLICIES_KEYS, vars, diag);
  if (!opened) return [];
  const out: DesiredObject[] = [];
  for (const e of opened.list.entries()) {
    if (!BUCKET.test(e.name)) {
      report(
        opened.ctx,
        e.keyNode,
        e.path,
        `found bucket "${e.name}", expected an S3 bucket name of 3 to 63 lowercase letters, digits, "." or "-", e.g. "demo-bucket"`,
      );
      continue;
    }
    const bucketName = e.name.replace(/^s3:\/\//, "").replace(/\/$/, "");
    const m = new MapReader(opened.ctx, e.valueNode, e.path, BUCKET_POLICY_KEYS);
    if (!m.isMapping) continue;
    const output = m.string("output", {
      expected: 'a file path relative to the repository, e.g. "policies/demo-bucket.json"',
    });
    const rel = output === undefined ? undefined : posix.normalize(output.replace(/\\/g, "/"));
    // Checked now, so a path apply could not write (outside the repository, through a link that
    // leaves it, under .git) stops validate and plan before anything is sent.
    const refused =
      rel === undefined
        ? undefined
        : posix.isAbsolute(rel)
          ? `${rel} is an absolute path`
          : (jail.writeRefusal(rel) ?? outputOverwrite(jail, rel, state));
    if (refused !== undefined) {
      m.fail(
        "output",
        `found ${quotedPath(output ?? "")}, expected a file path inside the repository, outside .git/: ${refused}`,
      );
      continue;
    }
    out.push(
      desiredObject(
        "BucketPolicy",
        `bucket_policy.${bucketName}`,
        { bucketName },
        locate(opened.ctx.src, e.keyNode, e.path),
        { options: { output: rel } },
      ),
    );
  }
  return out;
}
