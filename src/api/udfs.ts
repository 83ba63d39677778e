/**
 * Spec 4.9: saved UDFs. Listing, lookups by id and by name, create, update and delete. The
 * shared-token lookup lives in `sharing.ts`.
 */
import { z } from "zod";
import { listing, type Listing, type PageOptions } from "./paging";
import { Udf } from "./schemas";
import type { Transport } from "./transport";

export interface CreateUdfInput {
  /** URL-safe name (`[A-Za-z0-9_-]+`), unique within its canvas. */
  slug: string;
  /** The UDF body: a JSON string (serialize the object yourself). */
  udf_body: string;
  /** Only `"auto"` is accepted. @default "auto" */
  udf_type?: "auto";
  /** Canvas to put the UDF on; absent or null puts it on the owner's default canvas. */
  collection_id?: string | null;
  /** Also mint a per-UDF shared token (`fsh_...`), returned as `shared_token`. @default false */
  create_shared_token?: boolean;
  /** @default "team" */
  shared_token_access_scope?: "public" | "team";
}

export interface UpdateUdfInput {
  slug?: string;
  udf_body?: string;
  /** Moves the UDF to this canvas; null moves it to the owner's default canvas. */
  collection_id?: string | null;
}

/** Where a UDF is looked up by name: `canvasName` given, on that canvas; else on the default canvas. */
function byCanvas(prefix: string, canvasName: string | undefined): string {
  return canvasName === undefined
    ? `GET ${prefix}/by-slug/{slug}`
    : `GET ${prefix}/by-collection/{canvas_name}/by-slug/{slug}`;
}

export function udfsApi(t: Transport) {
  const one = (route: string, params: Record<string, string>) => t.json(route, { params }, Udf);
  return {
    /**
     * `GET /udf/self`: every UDF the signed-in user owns, page by page. A service token gets 403
     * (as an {@link ApiError} with code `forbidden`); no credentials give 401.
     */
    listSelf: (opts?: PageOptions): Listing<Udf> =>
      listing((skip, limit) => t.json("GET /udf/self", { query: { skip, limit } }, z.array(Udf)), opts),

    /** `GET /udf/exec-env/self`: every UDF of the caller's execution environment, page by page. 401 without credentials. */
    listExecEnv: (opts?: PageOptions): Listing<Udf> =>
      listing((skip, limit) => t.json("GET /udf/exec-env/self", { query: { skip, limit } }, z.array(Udf)), opts),

    /**
     * `GET /udf/by-id/{udf_id}`: a UDF of the caller's environment, or one on a publicly readable
     * canvas (no credentials needed then). 404 when absent or not visible.
     */
    getById: (id: string) => one("GET /udf/by-id/{udf_id}", { udf_id: id }),

    /**
     * `GET /udf/exec-env/self[/by-collection/{canvas_name}]/by-slug/{slug}`: the environment's UDF by
     * slug, on the named canvas or (without `canvasName`) on a default canvas. 404 when the canvas or
     * the UDF is absent.
     */
    getExecEnvBySlug: (slug: string, canvasName?: string) =>
      one(
        byCanvas("/udf/exec-env/self", canvasName),
        canvasName === undefined ? { slug } : { slug, canvas_name: canvasName },
      ),

    /**
     * `GET /udf/by-user-handle/{handle}[/by-collection/{canvas_name}]/by-slug/{slug}`: a user's UDF
     * by slug, on their canvas `canvasName` or on their default canvas. 404 when the user, canvas or
     * UDF is absent, or not visible to the caller (another team's private canvas).
     */
    getByUserHandle: (handle: string, slug: string, canvasName?: string) =>
      one(byCanvas("/udf/by-user-handle/{handle}", canvasName), {
        handle,
        slug,
        ...(canvasName === undefined ? {} : { canvas_name: canvasName }),
      }),

    /** Like {@link getByUserHandle}, with the owner named by email: `GET /udf/by-user-email/{email}/...`. */
    getByUserEmail: (email: string, slug: string, canvasName?: string) =>
      one(byCanvas("/udf/by-user-email/{email}", canvasName), {
        email,
        slug,
        ...(canvasName === undefined ? {} : { canvas_name: canvasName }),
      }),

    /**
     * `POST /udf/new`: creates a UDF owned by the signed-in user. Returns it, with `shared_token`
     * when `create_shared_token` is true. 409 when the slug is taken on the target canvas, 404 when
     * `collection_id` is not a canvas of the caller's environment, 422 for an invalid slug or a
     * `udf_type` other than `auto`, 403 for a service token. Not retried (a replay would conflict).
     */
    create: (input: CreateUdfInput) => t.json("POST /udf/new", { body: { json: { udf_type: "auto", ...input } } }, Udf),

    /**
     * `POST /udf/by-id/{udf_id}`: changes slug, body and/or canvas. `udf_body_hash` changes exactly
     * when the body does, and a body change drops the UDF's cached results. 404 when the UDF (or
     * the target canvas) is not in the caller's environment, 409 when the slug is taken on the target
     * canvas, 422 for an invalid slug. Safe to retry.
     */
    update: (id: string, patch: UpdateUdfInput) =>
      t.json("POST /udf/by-id/{udf_id}", { params: { udf_id: id }, body: { json: patch }, idempotent: true }, Udf),

    /**
     * `DELETE /udf/by-id/{udf_id}`: deletes the UDF. Its shared tokens stop working and its cached
     * results are no longer served. The spec leaves the answer open, so it is returned unparsed (the
     * emulator answers with the deleted record). 404 when it is not in the caller's environment, 403
     * for a service token.
     */
    delete: (id: string): Promise<unknown> =>
      t.json("DELETE /udf/by-id/{udf_id}", { params: { udf_id: id } }, z.unknown()),
  };
}
