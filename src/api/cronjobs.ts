/** Spec 4.3: cronjobs (scheduled UDF runs on batch compute). */
import { z } from "zod";
import { JobRun } from "./jobs";
import { Cronjob } from "./schemas";
import type { Transport } from "./transport";

/** Body of `POST /cronjob/create`. Empty arrays mean "every"; `minute` holds exactly one value. */
export interface CreateCronjobInput {
  name: string;
  enabled: boolean;
  /** Exactly one value, 0-59. */
  minute: number[];
  /** 0-23; empty = every hour. */
  hour: number[];
  /** 1-31; empty = every day. */
  day_of_month: number[];
  /** 1-12; empty = every month. */
  month: number[];
  /** 0-6, 0 = Sunday; empty = every day. */
  day_of_week: number[];
  /** Id of the UDF to run. */
  udf: string;
  description?: string | null;
  udf_args?: Record<string, unknown> | null;
}

/** Body of `POST /cronjob/by-id/{cronjob_id}`: any subset of the create fields. */
export type UpdateCronjobInput = Partial<CreateCronjobInput>;

/** Answer of `POST /cronjob/user-run/by-id/{cronjob_id}`. */
export const CronjobRun = z.looseObject({ cronjob: Cronjob, run: JobRun });
export type CronjobRun = z.infer<typeof CronjobRun>;

export function cronjobsApi(t: Transport) {
  return {
    /** `GET /cronjob/get-self`: every cronjob of the caller's environment. 401 without credentials. */
    list: () => t.json("GET /cronjob/get-self", {}, z.array(Cronjob)),
    /** `GET /cronjob/by-udf-id/{udf_id}`: the environment's cronjobs that run this UDF (empty when none). */
    listByUdf: (udfId: string) =>
      t.json("GET /cronjob/by-udf-id/{udf_id}", { params: { udf_id: udfId } }, z.array(Cronjob)),
    /** `GET /cronjob/by-id/{cronjob_id}`. 404 when absent or another team's. */
    get: (id: string) => t.json("GET /cronjob/by-id/{cronjob_id}", { params: { cronjob_id: id } }, Cronjob),
    /**
     * `POST /cronjob/create`. 422 (with `loc`) for a missing field or a value out of range, 403 when
     * the team has no billing enabled, 404 when the UDF is not in the caller's environment.
     */
    create: (input: CreateCronjobInput) => t.json("POST /cronjob/create", { body: { json: input } }, Cronjob),
    /**
     * `POST /cronjob/by-id/{cronjob_id}`: changes the given fields (e.g. `{enabled: false}` pauses it).
     * Safe to retry. 422 for invalid values, 404 when the cronjob or a new UDF is not found.
     */
    update: (id: string, patch: UpdateCronjobInput) =>
      t.json(
        "POST /cronjob/by-id/{cronjob_id}",
        { params: { cronjob_id: id }, body: { json: patch }, idempotent: true },
        Cronjob,
      ),
    /** `DELETE /cronjob/by-id/{cronjob_id}`: unschedules and returns the deleted cronjob. 404 when not found. */
    delete: (id: string) => t.json("DELETE /cronjob/by-id/{cronjob_id}", { params: { cronjob_id: id } }, Cronjob),
    /**
     * `POST /cronjob/user-run/by-id/{cronjob_id}`: runs the UDF now as a batch job; follow the
     * returned `run.job_id` with the jobs API. 404 when the cronjob or its UDF is not found.
     */
    run: (id: string) =>
      t.json("POST /cronjob/user-run/by-id/{cronjob_id}", { params: { cronjob_id: id } }, CronjobRun),
  };
}
