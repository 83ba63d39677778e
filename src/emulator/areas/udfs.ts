/**
 * Spec 4.9: UDFs. Listing, lookups by id and by name, create, update and delete. The shared-token
 * lookup (`/udf/shared/by-token/{token}`) lives in the sharing area.
 *
 * A UDF without a canvas (`collection_id` NULL) sits on its owner's default canvas: its slug is
 * unique among the owner's canvas-less UDFs, and the by-name lookups without
 * `/by-collection/{canvas_name}` find it there. Cached real-time results are dropped by the
 * `udf_cache` table itself when a UDF is deleted or its body changes (see the realtime area).
 */
import { z } from "zod";
import type { Area } from "../area";
import {
  bodyHash,
  canvasById,
  canReadUdf,
  isPubliclyReadable,
  mintUdfSharedToken,
  newId,
  ownCanvas,
  udfById,
  udfJson,
  jsonMemo,
  type CanvasRow,
  type UdfRow,
} from "../catalog";
import { conflict, notFound } from "../http-error";
import type { Principal } from "../principal";
import { caller, parseBody, parseQuery, q, type RequestContext } from "../route";
import type { Store } from "../store";

/** Slugs appear in URLs: letters, digits, `_` and `-` only. */
export const UDF_SLUG = /^[A-Za-z0-9_-]+$/;
const SLUG_MESSAGE = "The slug may only contain letters, digits, '_' and '-'";
const slug = () => z.string().min(1).regex(UDF_SLUG, SLUG_MESSAGE);

const Paging = z.object({ skip: q.int().min(0).default(0), limit: q.int().min(1).default(300) });

const CreateUdf = z.object({
  slug: slug(),
  udf_body: z.string(),
  // A string first, so that a missing field reads "Field required" rather than a literal mismatch.
  udf_type: z.string().pipe(z.literal("auto")),
  collection_id: z.string().nullable().optional(),
  create_shared_token: z.boolean().default(false),
  shared_token_access_scope: z.enum(["public", "team"]).default("team"),
});

const UpdateUdf = z.object({
  slug: slug().optional(),
  udf_body: z.string().optional(),
  collection_id: z.string().nullable().optional(),
});

interface UserRow {
  id: string;
  env_id: string | null;
}

function page(ctx: RequestContext, where: string, param: string) {
  const { skip, limit } = parseQuery(ctx, Paging);
  const rows = ctx.store.all<UdfRow>(
    `SELECT * FROM udfs WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`,
    param,
    limit,
    skip,
  );
  const memo = jsonMemo();
  return rows.map((u) => udfJson(ctx.store, u, undefined, memo));
}

/** The UDF with `slug` on a canvas, or on an owner's default canvas when `canvasId` is null. */
function udfBySlug(
  store: Store,
  slugValue: string,
  canvasId: string | null,
  ownerUserId: string | null = null,
): UdfRow | undefined {
  if (canvasId)
    return store.get<UdfRow>("SELECT * FROM udfs WHERE collection_id = ? AND slug = ?", canvasId, slugValue);
  return store.get<UdfRow>(
    "SELECT * FROM udfs WHERE collection_id IS NULL AND owner_user_id IS ? AND slug = ?",
    ownerUserId,
    slugValue,
  );
}

/** 409 when `slugValue` is taken on the target canvas (or default canvas), other than by `exceptId`. */
function assertSlugFree(
  store: Store,
  slugValue: string,
  canvas: CanvasRow | null,
  ownerUserId: string | null,
  exceptId?: string,
): void {
  const clash = udfBySlug(store, slugValue, canvas?.id ?? null, ownerUserId);
  if (clash && clash.id !== exceptId) {
    const where = canvas ? `canvas "${canvas.name}"` : "the default canvas";
    throw conflict(`A UDF with slug "${slugValue}" already exists on ${where}`);
  }
}

/** The next free position on a canvas (or on an owner's default canvas). */
function nextPosition(store: Store, canvasId: string | null, ownerUserId: string | null): number {
  const row = canvasId
    ? store.get<{ p: number | null }>("SELECT MAX(position) AS p FROM udfs WHERE collection_id = ?", canvasId)
    : store.get<{ p: number | null }>(
        "SELECT MAX(position) AS p FROM udfs WHERE collection_id IS NULL AND owner_user_id IS ?",
        ownerUserId,
      );
  return row?.p === null || row?.p === undefined ? 0 : row.p + 1;
}

function touchCanvas(store: Store, canvasId: string | null, now: string): void {
  if (canvasId) store.run("UPDATE canvases SET last_updated = ? WHERE id = ?", now, canvasId);
}

/** A UDF the caller may change (same environment), or 404. */
function writableUdf(ctx: RequestContext, p: Principal): UdfRow {
  const u = udfById(ctx.store, ctx.params.udf_id);
  if (!u || u.env_id !== p.envId) throw notFound("UDF not found");
  return u;
}

function userBy(store: Store, column: "handle" | "email", value: string): UserRow {
  const u = store.get<UserRow>(`SELECT id, env_id FROM users WHERE lower(${column}) = lower(?)`, value);
  if (!u) throw notFound("User not found");
  return u;
}

/**
 * The by-owner lookups: the owner's canvas by name (readable when in the caller's environment or
 * publicly readable), then the slug on it; without a canvas name, the slug on the owner's default
 * canvas, which only the owner's own team can see.
 */
function udfOfOwner(ctx: RequestContext, owner: UserRow, canvasName: string | undefined): UdfRow {
  const p = caller(ctx);
  if (canvasName === undefined) {
    const u = udfBySlug(ctx.store, ctx.params.slug, null, owner.id);
    if (!u || u.env_id !== p.envId) throw notFound("UDF not found");
    return u;
  }
  const c = ctx.store.get<CanvasRow>(
    "SELECT * FROM canvases WHERE owner_user_id = ? AND name = ?",
    owner.id,
    canvasName,
  );
  if (!c || !(c.env_id === p.envId || isPubliclyReadable(c))) throw notFound("Canvas not found");
  const u = udfBySlug(ctx.store, ctx.params.slug, c.id);
  if (!u) throw notFound("UDF not found");
  return u;
}

/** The environment's UDF by canvas name and slug, or (without a canvas name) on a default canvas. */
function udfOfEnv(ctx: RequestContext, canvasName: string | undefined): UdfRow {
  const p = caller(ctx);
  let u: UdfRow | undefined;
  if (canvasName === undefined) {
    // Several members may each have the slug on their default canvas: the caller's own comes first.
    u = ctx.store.get<UdfRow>(
      "SELECT * FROM udfs WHERE env_id = ? AND collection_id IS NULL AND slug = ? ORDER BY owner_user_id IS ? DESC, created_at, id LIMIT 1",
      p.envId,
      ctx.params.slug,
      p.userId ?? null,
    );
  } else {
    const c = ctx.store.get<CanvasRow>("SELECT * FROM canvases WHERE env_id = ? AND name = ?", p.envId, canvasName);
    if (!c) throw notFound("Canvas not found");
    u = udfBySlug(ctx.store, ctx.params.slug, c.id);
  }
  if (!u) throw notFound("UDF not found");
  return u;
}

function createUdf(ctx: RequestContext) {
  const p = caller(ctx);
  const input = parseBody(ctx, CreateUdf);
  const canvas = input.collection_id ? ownCanvas(ctx.store, input.collection_id, p) : null;
  const owner = p.userId ?? null;
  assertSlugFree(ctx.store, input.slug, canvas, owner);
  const now = ctx.now().toISOString();
  const id = newId();
  ctx.store.run(
    `INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, is_visible, position, created_at, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
    id,
    p.envId,
    owner,
    canvas?.id ?? null,
    input.slug,
    input.udf_body,
    bodyHash(input.udf_body),
    nextPosition(ctx.store, canvas?.id ?? null, owner),
    now,
    now,
  );
  touchCanvas(ctx.store, canvas?.id ?? null, now);
  const out = udfJson(ctx.store, udfById(ctx.store, id)!, canvas?.name ?? null);
  if (input.create_shared_token)
    out.shared_token = mintUdfSharedToken(ctx.store, id, input.shared_token_access_scope, ctx.now());
  return out;
}

function updateUdf(ctx: RequestContext) {
  const p = caller(ctx);
  const input = parseBody(ctx, UpdateUdf);
  const u = writableUdf(ctx, p);
  const moving = input.collection_id !== undefined && input.collection_id !== u.collection_id;
  const targetId = moving ? (input.collection_id ?? null) : u.collection_id;
  const target = targetId
    ? moving
      ? ownCanvas(ctx.store, targetId, p)
      : (canvasById(ctx.store, targetId) ?? null)
    : null;
  const newSlug = input.slug ?? u.slug;
  if (moving || newSlug !== u.slug) assertSlugFree(ctx.store, newSlug, target, u.owner_user_id, u.id);
  const newBody = input.udf_body ?? u.udf_body;
  if (!moving && newSlug === u.slug && newBody === u.udf_body) return udfJson(ctx.store, u);
  const now = ctx.now().toISOString();
  const position = moving ? nextPosition(ctx.store, targetId, u.owner_user_id) : u.position;
  ctx.store.run(
    "UPDATE udfs SET slug = ?, udf_body = ?, udf_body_hash = ?, collection_id = ?, position = ?, last_updated = ? WHERE id = ?",
    newSlug,
    newBody,
    bodyHash(newBody),
    targetId,
    position,
    now,
    u.id,
  );
  touchCanvas(ctx.store, u.collection_id, now);
  if (moving) touchCanvas(ctx.store, targetId, now);
  return udfJson(ctx.store, udfById(ctx.store, u.id)!);
}

/** DELETE answers with the record as it was; its shared tokens and cached results go with it. */
function deleteUdf(ctx: RequestContext) {
  const u = writableUdf(ctx, caller(ctx));
  const out = udfJson(ctx.store, u);
  ctx.store.run("DELETE FROM udf_shared_tokens WHERE udf_id = ?", u.id);
  ctx.store.run("DELETE FROM udfs WHERE id = ?", u.id);
  touchCanvas(ctx.store, u.collection_id, ctx.now().toISOString());
  return out;
}

export const udfsArea: Area = {
  name: "udfs",
  routes: [
    {
      method: "GET",
      path: "/udf/self",
      scope: "user",
      handler: (ctx) => page(ctx, "owner_user_id = ?", caller(ctx).userId!),
    },
    {
      method: "GET",
      path: "/udf/exec-env/self",
      scope: "environment",
      handler: (ctx) => page(ctx, "env_id = ?", caller(ctx).envId),
    },
    {
      method: "GET",
      path: "/udf/by-id/:udf_id",
      scope: "public_or_authorized",
      handler: (ctx) => {
        const u = udfById(ctx.store, ctx.params.udf_id);
        if (!u || !canReadUdf(ctx.store, u, ctx.principal)) throw notFound("UDF not found");
        return udfJson(ctx.store, u);
      },
    },
    {
      method: "GET",
      path: "/udf/exec-env/self/by-collection/:canvas_name/by-slug/:slug",
      scope: "environment",
      handler: (ctx) => udfJson(ctx.store, udfOfEnv(ctx, ctx.params.canvas_name)),
    },
    {
      method: "GET",
      path: "/udf/exec-env/self/by-slug/:slug",
      scope: "environment",
      handler: (ctx) => udfJson(ctx.store, udfOfEnv(ctx, undefined)),
    },
    ...(["handle", "email"] as const).flatMap((column) => [
      {
        method: "GET",
        path: `/udf/by-user-${column}/:owner/by-collection/:canvas_name/by-slug/:slug`,
        scope: "user_or_environment" as const,
        handler: (ctx: RequestContext) =>
          udfJson(ctx.store, udfOfOwner(ctx, userBy(ctx.store, column, ctx.params.owner), ctx.params.canvas_name)),
      },
      {
        method: "GET",
        path: `/udf/by-user-${column}/:owner/by-slug/:slug`,
        scope: "user_or_environment" as const,
        handler: (ctx: RequestContext) =>
          udfJson(ctx.store, udfOfOwner(ctx, userBy(ctx.store, column, ctx.params.owner), undefined)),
      },
    ]),
    { method: "POST", path: "/udf/new", scope: "user", handler: createUdf },
    { method: "POST", path: "/udf/by-id/:udf_id", scope: "user", handler: updateUdf },
    { method: "DELETE", path: "/udf/by-id/:udf_id", scope: "user", handler: deleteUdf },
  ],
};
