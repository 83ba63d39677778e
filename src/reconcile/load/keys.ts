/**
 * The keys each file kind accepts, in the order the JSON Schemas under `schemas/` list them. The
 * kinds' keys come from their definitions (`src/kinds/<kind>/definition.ts`, `repository`),
 * from which those schemas are generated too; svc.yaml's are written here, beside its hand-written
 * schema. A test compares these lists with the schemas so the two cannot drift apart.
 */
import { bucketPolicyDefinition } from "../../kinds/bucket-policy/definition";
import { canvasDefinition } from "../../kinds/canvas/definition";
import { canvasShareRepository } from "../../kinds/canvas-share/definition";
import { cronjobDefinition } from "../../kinds/cronjob/definition";
import { itemKeysOf, keysOf, listKeyOf, repositoryOf } from "../../kinds/definition-views";
import { secretDefinition } from "../../kinds/secret/definition";
import { serviceAccountDefinition } from "../../kinds/service-account/definition";
import { udfDefinition } from "../../kinds/udf/definition";

/** `concurrency` in svc.yaml and `--concurrency N`: requests in flight at once. */
export const CONCURRENCY_RANGE = { min: 1, max: 64 } as const;

export const SVC_KEYS = [
  "project",
  "variables",
  "prune",
  "max_deletions",
  "concurrency",
  "state",
  "targets",
  "moved",
  "removed",
  "history",
  "checks",
  "on_drift",
  "flapping",
  "notify",
] as const;
/** svc.yaml's `history:` (project, or per target): deployment history retention. */
export const HISTORY_KEYS = ["keep", "max_age"] as const;
/** `history.keep`: deployments kept per target. */
export const HISTORY_KEEP_RANGE = { min: 1, max: 10_000 } as const;
/** svc.yaml's `checks:`. */
export const CHECKS_KEYS = ["skip"] as const;
/** svc.yaml's `flapping:`. */
export const FLAPPING_KEYS = ["restores", "within"] as const;
/** One entry of svc.yaml's `notify:` list. */
export const NOTIFY_KEYS = ["name", "url_env", "events"] as const;
/** One entry of svc.yaml's `moved:` list. */
export const MOVED_KEYS = ["from", "to"] as const;
export const TARGET_KEYS = [
  "variables",
  "prune",
  "max_deletions",
  "concurrency",
  "state",
  "name_prefix",
  "name_suffix",
  "credentials",
  "history",
  "on_drift",
] as const;
export const CREDENTIALS_KEYS = ["base_url_env", "udf_base_url_env", "token_env", "service_token_env"] as const;

export const CANVAS_KEYS = keysOf(repositoryOf(canvasDefinition));
export const SHARE_KEYS = keysOf(canvasShareRepository);

export const UDF_KEYS = keysOf(repositoryOf(udfDefinition));
/** The keys of a note's or widget's `<slug>.yaml` (no code settings: it is not Python). */
export const FURNITURE_KEYS = UDF_KEYS.filter((k) =>
  ["metadata", "visible", "position", "protect", "check"].includes(k),
);
/** The keys of a UDF without a canvas's `udfs/<slug>.yaml`: no place on a canvas. */
export const CANVASLESS_UDF_KEYS = UDF_KEYS.filter((k) => k !== "visible" && k !== "position");
export const HEADER_KEYS = itemKeysOf(repositoryOf(udfDefinition), "headers");
/** One entry of a UDF's `tests:` list. */
export const UDF_TEST_KEYS = itemKeysOf(repositoryOf(udfDefinition), "tests");

export const CRON_ARRAY_KEYS = ["minute", "hour", "day_of_month", "month", "day_of_week"] as const;
export const CRONJOB_KEYS = keysOf(repositoryOf(cronjobDefinition));

export const SECRETS_KEYS = listKeyOf(secretDefinition);
/** A secret given as a mapping (to protect it) rather than a bare `${env.NAME}`. */
export const SECRET_KEYS = keysOf(repositoryOf(secretDefinition));
export const SERVICE_ACCOUNTS_KEYS = listKeyOf(serviceAccountDefinition);
export const SERVICE_ACCOUNT_KEYS = keysOf(repositoryOf(serviceAccountDefinition));
export const BUCKET_POLICIES_KEYS = listKeyOf(bucketPolicyDefinition);
export const BUCKET_POLICY_KEYS = keysOf(repositoryOf(bucketPolicyDefinition));

export { PATTERNS } from "./names";

export const DURATION_EXPECTED = 'a duration: a whole number followed by m, h, d or w, e.g. "30d" or "12h"';
