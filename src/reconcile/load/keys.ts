/**
 * The keys each file kind accepts, in the order the JSON Schemas under `schemas/` list them.
 * A test compares these lists with the schemas so the two cannot drift apart.
 */

/** `concurrency` in svc.yaml and `--concurrency N`: requests in flight at once. */
export const CONCURRENCY_RANGE = { min: 1, max: 64 } as const;

export const SVC_KEYS = ["project", "variables", "prune", "max_deletions", "concurrency", "state", "targets", "moved", "removed"] as const;
/** One entry of svc.yaml's `moved:` list. */
export const MOVED_KEYS = ["from", "to"] as const;
export const TARGET_KEYS = ["variables", "prune", "max_deletions", "concurrency", "state", "name_prefix", "name_suffix", "credentials"] as const;
export const CREDENTIALS_KEYS = ["base_url_env", "udf_base_url_env", "token_env", "service_token_env"] as const;

export const CANVAS_KEYS = ["access_scope", "allow_public_read", "passcode", "dashboard_body", "preview_image_url", "share", "protect"] as const;
export const SHARE_KEYS = ["client_id", "rotation", "rotate_every", "protect"] as const;

export const UDF_KEYS = ["entrypoint", "metadata", "headers", "visible", "position", "shared_token", "protect", "tests"] as const;
export const HEADER_KEYS = ["module", "file"] as const;
/** One entry of a UDF's `tests:` list. */
export const UDF_TEST_KEYS = ["name", "args", "expect", "expect_error"] as const;

export const CRON_ARRAY_KEYS = ["minute", "hour", "day_of_month", "month", "day_of_week"] as const;
export const CRONJOB_KEYS = ["schedule", ...CRON_ARRAY_KEYS, "udf", "args", "enabled", "description", "protect"] as const;

export const SECRETS_KEYS = ["secrets"] as const;
/** A secret given as a mapping (to protect it) rather than a bare `${env.NAME}`. */
export const SECRET_KEYS = ["value", "protect"] as const;
export const SERVICE_ACCOUNTS_KEYS = ["service_accounts"] as const;
export const SERVICE_ACCOUNT_KEYS = ["rotation", "rotate_every", "protect"] as const;
export const BUCKET_POLICIES_KEYS = ["bucket_policies"] as const;
export const BUCKET_POLICY_KEYS = ["output"] as const;

/** Names and forms shared by several files. */
export const PATTERNS = {
  project: /^[a-z0-9][a-z0-9_-]*$/,
  target: /^[A-Za-z0-9_-]+$/,
  variable: /^[A-Za-z_][A-Za-z0-9_]*$/,
  envName: /^[A-Za-z_][A-Za-z0-9_]*$/,
  canvas: /^[A-Za-z0-9_]+$/,
  slug: /^[A-Za-z0-9_-]+$/,
  module: /^[A-Za-z_][A-Za-z0-9_]*$/,
  cronjob: /^[A-Za-z0-9_-]+$/,
  secretKey: /^[A-Za-z0-9_.-]{1,256}$/,
  duration: /^[1-9][0-9]*[mhdw]$/,
  remoteState: /^(s3|gs):\/\/[a-z0-9][a-z0-9._-]*[a-z0-9](\/.*)?$/,
} as const;

export const DURATION_EXPECTED = 'a duration: a whole number followed by m, h, d or w, e.g. "30d" or "12h"';
