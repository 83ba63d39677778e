/**
 * zod schemas of the spec's section 2 objects. Each is loose: fields the spec does not list are
 * kept, so a newer platform does not break the client.
 */
import { z } from "zod";

const nullableString = z.string().nullable().optional();

/** 2.1 Cronjob */
export const Cronjob = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: nullableString,
  execution_environment_id: z.string(),
  enabled: z.boolean(),
  minute: z.array(z.number().int()),
  hour: z.array(z.number().int()),
  day_of_month: z.array(z.number().int()),
  month: z.array(z.number().int()),
  day_of_week: z.array(z.number().int()),
  udf: z.string(),
  udf_args: z.record(z.string(), z.unknown()).nullable().optional(),
  last_run: nullableString,
});
export type Cronjob = z.infer<typeof Cronjob>;

/** 2.2 Session token response */
export const SessionToken = z.looseObject({
  token: z.string(),
  session_token: z.string(),
  expires_at: z.string(),
});
export type SessionToken = z.infer<typeof SessionToken>;

/** 2.3 Secret */
export const Secret = z.looseObject({ key: z.string(), value: z.string() });
export type Secret = z.infer<typeof Secret>;

/** 2.5 UDF object */
export const Udf = z.looseObject({
  id: z.string(),
  slug: z.string(),
  udf_body: z.string(),
  collection_id: nullableString,
  collection_name: nullableString,
  is_visible: z.boolean(),
  position: z.number().int(),
  udf_body_hash: z.string(),
  last_updated: z.string(),
  owning_user: z.looseObject({}).nullable().optional(),
  shared_token: z.string().optional(),
});
export type Udf = z.infer<typeof Udf>;

const isText = (v: unknown): v is string => typeof v === "string";
const isTextOrNull = (v: unknown) => v === undefined || v === null || typeof v === "string";

/**
 * The common case of {@link Udf}, checked by hand: accepts only what the schema accepts (anything
 * else goes through the schema, which says what is wrong). Each create and each canvas read
 * answers UDF records; zod's check of them was the largest cost of an apply's 10,000 creates
 * after the sockets, and of reading 100,000 observed UDFs.
 */
export function plainlyValidUdf(v: unknown): v is Udf {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (!isText(r.id) || !isText(r.slug) || !isText(r.udf_body) || !isText(r.udf_body_hash) || !isText(r.last_updated))
    return false;
  if (!isTextOrNull(r.collection_id) || !isTextOrNull(r.collection_name)) return false;
  if (typeof r.is_visible !== "boolean" || !Number.isSafeInteger(r.position)) return false;
  if (
    r.owning_user !== undefined &&
    r.owning_user !== null &&
    (typeof r.owning_user !== "object" || Array.isArray(r.owning_user))
  )
    return false;
  return r.shared_token === undefined || isText(r.shared_token);
}

/** Hand checks of schemas answered often (see {@link plainlyValidUdf}): the transport uses them before the schema. */
export const PLAIN_CHECKS: ReadonlyMap<z.ZodType, (v: unknown) => boolean> = new Map([[Udf, plainlyValidUdf]]);

const canvasBase = {
  id: z.string(),
  name: z.string(),
  access_scope: z.enum(["public", "team"]),
  username: nullableString,
  allow_public_read: z.boolean(),
  share_token: nullableString,
  passcode: nullableString,
  preview_image_url: nullableString,
  last_updated: z.string(),
};

/** 2.4 Canvas object (full) */
export const Canvas = z.looseObject({
  ...canvasBase,
  share_client_id: nullableString,
  dashboard_body: nullableString,
  udfs: z.array(Udf),
  owning_user: z.looseObject({}).nullable().optional(),
  owning_execution_environment: z.looseObject({}).nullable().optional(),
});
export type Canvas = z.infer<typeof Canvas>;

/**
 * 2.4 Canvas object, its own fields only: a full canvas whose `udfs` (and other fields) pass
 * through unchecked, for callers that use none of them (a listing of every canvas of a team
 * carries every UDF body; checking them all would cost more than the rest of the read).
 */
export const CanvasFields = z.looseObject({
  ...canvasBase,
  share_client_id: nullableString,
  dashboard_body: nullableString,
});
export type CanvasFields = z.infer<typeof CanvasFields>;

/** 2.4 Canvas object, lite variant: `udf_ids` instead of `udfs`. */
export const CanvasLite = z.looseObject({ ...canvasBase, udf_ids: z.array(z.string()) });
export type CanvasLite = z.infer<typeof CanvasLite>;

const jobCommon = {
  instance_id: nullableString,
  instance_type: nullableString,
  disk_size_gb: z.number().int().nullable().optional(),
  job_status: nullableString,
  job_status_date: nullableString,
  first_heartbeat: nullableString,
  last_heartbeat: nullableString,
};

/** 2.6 Batch job: run summary (submit, status, cancel). */
export const RunSummary = z.looseObject(jobCommon);
export type RunSummary = z.infer<typeof RunSummary>;

/** 2.6 Batch job: job record (listings, by-id). */
export const JobRecord = z.looseObject(jobCommon);
export type JobRecord = z.infer<typeof JobRecord>;

/** 2.6 Job status history entry */
export const JobEvent = z.looseObject({
  id: z.union([z.string(), z.number()]),
  job_id: z.string(),
  job_status: z.string(),
  job_status_description: nullableString,
  date_updated: z.string(),
});
export type JobEvent = z.infer<typeof JobEvent>;

/** 2.7 Execution environment */
export const ExecutionEnvironment = z.looseObject({
  id: z.string(),
  name: z.string(),
  users: z.array(z.unknown()),
  buckets: z.array(z.unknown()),
  github_repos: z.array(z.unknown()),
});
export type ExecutionEnvironment = z.infer<typeof ExecutionEnvironment>;

/** 2.8 Real-time usage counters */
export const UsageCounters = z.looseObject({
  calls_total: z.number().int(),
  calls_success: z.number().int(),
  calls_error: z.number().int(),
  calls_cached: z.number().int(),
  calls_total_time: z.number().int(),
  calls_success_time: z.number().int(),
  calls_error_time: z.number().int(),
  ai_calls: z.number().int(),
  date_prefix: z.string().nullable(),
});
export type UsageCounters = z.infer<typeof UsageCounters>;

/** 2.9 Service account (token only on creation) */
export const ServiceAccount = z.looseObject({
  id: z.string(),
  execution_environment_id: z.string(),
  name: z.string(),
  created_at: z.string(),
  token: z.string().optional(),
});
export type ServiceAccount = z.infer<typeof ServiceAccount>;

/** 2.10 User */
export const User = z.looseObject({
  id: z.string(),
  name: z.string(),
  email: nullableString,
  handle: nullableString,
  execution_environment_id: nullableString,
  signup_date: nullableString,
  handle_last_changed: nullableString,
});
export type User = z.infer<typeof User>;

/** 2.11 Real-time instance entry */
export const RealtimeInstance = z.looseObject({
  client_id: z.string(),
  name: z.string(),
  endpoint: z.string(),
  preference_rank: z.number(),
});
export type RealtimeInstance = z.infer<typeof RealtimeInstance>;

/** 2.12 File entry (detailed listing) */
export const FileEntry = z.looseObject({
  url: z.string(),
  file_name: z.string(),
  is_directory: z.boolean(),
  size: z.number().int(),
  last_modified: z.string(),
});
export type FileEntry = z.infer<typeof FileEntry>;
