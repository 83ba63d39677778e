/**
 * Spec 4.7: canvases (called `collection` in paths). Sharing, canvas tokens and session tokens
 * are in `sharing.ts`.
 */
import { z } from "zod";
import { listing, type Listing, type PageOptions } from "./paging";
import { Canvas, CanvasFields, CanvasLite } from "./schemas";
import type { Transport } from "./transport";

/**
 * One element of `udfs` on create and update. `udfs`, when given, becomes the canvas's complete
 * UDF set: UDFs of the canvas that no element names are deleted.
 * - `{id}`: a UDF of the caller's environment, kept in (or moved into) this canvas; `slug` and
 *   `udf_body` given alongside replace its own.
 * - `{slug, udf_body}`: the canvas's UDF with that slug gets the body; without one, a new UDF is
 *   created (udf_type `auto`).
 * `position` defaults to the element's index; `is_visible` to the UDF's current value (new: true).
 * `udf_body` is a JSON string (see platform facts).
 */
export type CanvasUdfInput =
  | { id: string; slug?: string; udf_body?: string; is_visible?: boolean; position?: number }
  | { id?: undefined; slug: string; udf_body: string; udf_type?: "auto"; is_visible?: boolean; position?: number };

/** Body of create and update. On update, fields left out keep their value; `null` clears. */
export interface CanvasInput {
  /** `[A-Za-z0-9_]` only (422 otherwise); unique within the team (409 otherwise). */
  name: string;
  /** @default "team" on create */
  access_scope?: "public" | "team";
  udfs?: CanvasUdfInput[];
  allow_public_read?: boolean;
  dashboard_body?: string | null;
  /** A secret: never shown in errors. */
  passcode?: string | null;
  preview_image_url?: string | null;
}

const secretsOf = (input: CanvasInput) => (input.passcode ? [input.passcode] : []);

export function canvasesApi(t: Transport) {
  const paged = <S extends z.ZodType>(route: string, schema: S, opts?: PageOptions): Listing<z.infer<S>> =>
    listing((skip, limit) => t.json(route, { query: { skip, limit } }, z.array(schema)), opts);
  const one = (route: string, params: Record<string, string>) => t.json(route, { params }, Canvas);
  const pub = { auth: "none" as const };

  return {
    /** `GET /collection/self`: the signed-in user's canvases, oldest first, paged. 401 without credentials; 403 for a service token. */
    listSelf: (opts?: PageOptions) => paged("GET /collection/self", Canvas, opts),
    /** `GET /collection/self/lite`: as {@link listSelf}, lite variant (`udf_ids` instead of `udfs`). */
    listSelfLite: (opts?: PageOptions) => paged("GET /collection/self/lite", CanvasLite, opts),
    /** `GET /collection/self/shared`: the user's canvases that have a share token. 401 / 403 as {@link listSelf}. */
    listSelfShared: (opts?: PageOptions) => paged("GET /collection/self/shared", Canvas, opts),
    /** `GET /collection/self/shared/lite`: as {@link listSelfShared}, lite variant. */
    listSelfSharedLite: (opts?: PageOptions) => paged("GET /collection/self/shared/lite", CanvasLite, opts),

    /**
     * `GET /collection/exec-env`: every canvas of the caller's team (user or service token). The
     * spec gives this listing no paging input, so it is one request returning everything. 401
     * without credentials.
     */
    listExecEnv: () => t.json("GET /collection/exec-env", {}, z.array(Canvas)),
    /** As {@link listExecEnv}, each canvas's own fields checked and its `udfs` left unchecked (see {@link CanvasFields}). */
    listExecEnvFields: () => t.json("GET /collection/exec-env", {}, z.array(CanvasFields)),
    /** `GET /collection/exec-env/lite`: as {@link listExecEnv}, lite variant. */
    listExecEnvLite: () => t.json("GET /collection/exec-env/lite", {}, z.array(CanvasLite)),
    /** `GET /collection/exec-env/shared`: the team's canvases that have a share token. */
    listExecEnvShared: () => t.json("GET /collection/exec-env/shared", {}, z.array(Canvas)),

    /**
     * `GET /collection/by-id/{id}`: a canvas readable by the caller: public ones need no
     * credentials, others need a member of the owning team. 404 when absent or not readable
     * (another team's private canvas is never 403).
     */
    getById: (id: string) => one("GET /collection/by-id/{collection_id}", { collection_id: id }),
    /** As {@link getById}, the canvas's own fields checked and its `udfs` left unchecked (see {@link CanvasFields}). */
    getFieldsById: (id: string) =>
      t.json("GET /collection/by-id/{collection_id}", { params: { collection_id: id } }, CanvasFields),
    /** `GET /collection/by-name/{name}`: one of the signed-in user's own canvases. 404 when the user has none of that name; 403 for a service token. */
    getByName: (name: string) => one("GET /collection/by-name/{canvas_name}", { canvas_name: name }),
    /** `GET /collection/exec-env/by-slug/{name}`: one of the team's canvases by name (user or service token). 404 when absent. */
    getExecEnvBySlug: (name: string) => one("GET /collection/exec-env/by-slug/{canvas_name}", { canvas_name: name }),
    /** `GET /collection/by-slug/{username}/{name}`: a canvas by its owner's handle and its name, under the read rules of {@link getById}. 404 otherwise. */
    getBySlug: (username: string, name: string) =>
      one("GET /collection/by-slug/{username}/{canvas_name}", { username, canvas_name: name }),

    /**
     * `POST /collection/new`: creates a canvas owned by the signed-in user and returns it in full.
     * 409 when the team already has a canvas of that name; 422 for an invalid name or body; 404
     * when a `udfs` element names a UDF id outside the team; 403 for a service token. Not retried.
     */
    create: (input: CanvasInput) =>
      t.json("POST /collection/new", { body: { json: input }, secrets: secretsOf(input) }, Canvas),
    /**
     * `POST /collection/by-id/{id}`: updates a canvas of the caller's team and returns it in full.
     * `udfs`, when given, replaces the UDF set (see {@link CanvasUdfInput}); when left out, UDFs
     * are untouched. 404 when the canvas is absent or another team's; 409 when renaming onto a
     * taken name; 422 for an invalid name or body. Safe to retry.
     */
    update: (id: string, input: CanvasInput) =>
      t.json(
        "POST /collection/by-id/{collection_id}",
        { params: { collection_id: id }, body: { json: input }, secrets: secretsOf(input), idempotent: true },
        Canvas,
      ),
    /** `DELETE /collection/by-id/{id}`: deletes a canvas of the caller's team and its UDFs. 404 when absent or another team's. */
    delete: async (id: string): Promise<void> => {
      await t.send("DELETE /collection/by-id/{collection_id}", { params: { collection_id: id } });
    },

    /**
     * `GET /collection/by-id/{id}/export-toml`: the canvas as a zip (`canvas.toml` version 2, one
     * `<slug>.py` per UDF, `_shared.fused` for shared or public canvases). Read rules of
     * {@link getById}; 404 otherwise.
     */
    exportToml: async (id: string): Promise<Uint8Array> => {
      const res = await t.send("GET /collection/by-id/{collection_id}/export-toml", { params: { collection_id: id } });
      return new Uint8Array(res.body);
    },
    /**
     * `POST /collection/by-id/{id}/import-toml`: uploads a zip (multipart field `file`) whose UDFs
     * become the canvas's complete UDF set; returns the updated canvas. 400 when the file is not a
     * .zip or the archive is malformed (no canvas.toml, bad TOML, a `.py` stem matching no node,
     * duplicate stems), 413 when too large, 404 when the canvas is absent or another team's.
     * Safe to retry (the archive describes a whole state).
     */
    importToml: (id: string, zip: Uint8Array, filename = "canvas.zip") => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(zip)], { type: "application/zip" }), filename);
      return t.json(
        "POST /collection/by-id/{collection_id}/import-toml",
        { params: { collection_id: id }, body: { form }, idempotent: true },
        Canvas,
      );
    },

    /** `GET /collection/public/lite`: every publicly readable canvas, lite variant. No credentials sent. */
    listPublicLite: () => t.json("GET /collection/public/lite", pub, z.array(CanvasLite)),
    /** `GET /collection/public`: every publicly readable canvas with its UDF sources. No credentials sent. */
    listPublic: () => t.json("GET /collection/public", pub, z.array(Canvas)),
    /** `GET /collection/public/by-id/{id}`: one publicly readable canvas; 404 otherwise (even for its own team). */
    getPublicById: (id: string) =>
      t.json("GET /collection/public/by-id/{collection_id}", { ...pub, params: { collection_id: id } }, Canvas),
    /** `GET /collection/public/by-user/{handle}/by-name/{name}`: one publicly readable canvas by owner handle and name; 404 otherwise. */
    getPublicByUserAndName: (handle: string, name: string) =>
      t.json(
        "GET /collection/public/by-user/{handle}/by-name/{canvas_name}",
        { ...pub, params: { handle, canvas_name: name } },
        Canvas,
      ),
  };
}
