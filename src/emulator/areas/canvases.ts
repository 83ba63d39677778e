/**
 * Spec 4.7: canvases (listings, reads, create, update, delete, the public catalog). Sharing
 * (`/collection/share`, `/unshare`, `/by-token`) lives in `sharing.ts`; the TOML archive export and
 * import in `canvas-archive.ts`.
 *
 * Decisions where the spec is silent:
 * - `/collection/self*` and `/collection/by-name` mean canvases the signed-in user owns; writes
 *   (update, delete, import) are open to every member of the owning team (`ownCanvas`).
 * - Listings are ordered by creation (`created_at`, then insertion order). `skip`/`limit` apply to
 *   the `/self` listings (spec); the exec-env and public listings take no paging input and return
 *   everything.
 * - Update: `name` is required; other fields left out keep their value, `null` clears the nullable
 *   ones (`dashboard_body`, `passcode`, `preview_image_url`).
 * - Canvas names are unique per team: a duplicate on create or rename is 409.
 */
import { z } from "zod";
import type { Area } from "../area";
import {
  CANVAS_NAME,
  bodyHash,
  canReadCanvas,
  canvasById,
  canvasEdges,
  canvasJson,
  canvasUdfs,
  isPubliclyReadable,
  newId,
  ownCanvas,
  readableCanvas,
  udfById,
  jsonMemo,
  type CanvasRow,
  type UdfRow,
} from "../catalog";
import { conflict, invalid, notFound } from "../http-error";
import type { Principal } from "../principal";
import { caller, noContent, parseBody, parseQuery, q, type RequestContext, type RouteDef } from "../route";
import type { Param } from "../store";
import { archiveRoutes } from "./canvas-archive";

const Paging = z.object({ skip: q.int().min(0).default(0), limit: q.int().min(1).default(300) });

/**
 * One element of `udfs` on create and update. Either `{id}`: a UDF of the caller's environment,
 * kept (or moved) into this canvas, optionally with a new `slug`/`udf_body`; or `{slug, udf_body}`:
 * the canvas's UDF with that slug is updated, or a new UDF is created (udf_type `auto`). Optional
 * `is_visible` and `position` (default: the element's index) apply to both.
 */
const UdfElement = z.object({
  id: z.string().min(1).optional(),
  slug: z.string().min(1).optional(),
  udf_body: z.string().optional(),
  udf_type: z.literal("auto").optional(),
  is_visible: z.boolean().optional(),
  position: z.number().int().optional(),
});
type UdfElement = z.infer<typeof UdfElement>;

const CanvasInput = z.object({
  name: z.string(),
  access_scope: z.enum(["public", "team"]).optional(),
  udfs: z.array(UdfElement).optional(),
  allow_public_read: z.boolean().optional(),
  dashboard_body: z.string().nullable().optional(),
  passcode: z.string().nullable().optional(),
  preview_image_url: z.string().nullable().optional(),
});
type CanvasInput = z.infer<typeof CanvasInput>;

function checkName(name: string): void {
  if (!CANVAS_NAME.test(name)) {
    throw invalid(
      "body",
      "name",
      "Canvas names may only contain letters, digits and underscores ([A-Za-z0-9_]), and must not be empty",
      "string_pattern_mismatch",
    );
  }
}

function ensureNameFree(ctx: RequestContext, envId: string, name: string, exceptId?: string): void {
  const other = ctx.store.get<{ id: string }>("SELECT id FROM canvases WHERE env_id = ? AND name = ?", envId, name);
  if (other && other.id !== exceptId) throw conflict(`A canvas named "${name}" already exists in this team`);
}

/** Canvases matching `where`, in creation order, optionally paged by `skip`/`limit`. */
function list(ctx: RequestContext, where: string, params: Param[], variant: "full" | "lite", paged: boolean) {
  let sql = `SELECT * FROM canvases WHERE ${where} ORDER BY created_at, rowid`;
  const args = [...params];
  if (paged) {
    const { skip, limit } = parseQuery(ctx, Paging);
    sql += " LIMIT ? OFFSET ?";
    args.push(limit, skip);
  }
  const memo = jsonMemo();
  return ctx.store.all<CanvasRow>(sql, ...args).map((c) => canvasJson(ctx.store, c, variant, ctx.principal, memo));
}

const userId = (ctx: RequestContext) => caller(ctx).userId!;
const envId = (ctx: RequestContext) => caller(ctx).envId;
const PUBLIC = "(access_scope = 'public' OR allow_public_read = 1)";

/** Makes `elements` the complete UDF set of canvas `c` (see {@link UdfElement}); absent UDFs are deleted. */
function replaceUdfs(ctx: RequestContext, c: CanvasRow, elements: UdfElement[], p: Principal): void {
  const { store } = ctx;
  const now = ctx.now().toISOString();
  const existing = canvasUdfs(store, c.id);
  const plan: { i: number; el: UdfElement; row?: UdfRow; slug: string }[] = [];
  const claimed = new Set<string>();
  elements.forEach((el, i) => {
    if (el.id !== undefined) {
      const row = udfById(store, el.id);
      if (!row || row.env_id !== p.envId) throw notFound(`UDF "${el.id}" not found`);
      if (claimed.has(row.id)) throw invalid("body", ["udfs", i, "id"], `UDF "${el.id}" is listed more than once`);
      claimed.add(row.id);
      plan.push({ i, el, row, slug: el.slug ?? row.slug });
      return;
    }
    if (el.slug === undefined)
      throw invalid("body", ["udfs", i, "slug"], "Field required (or give the id of an existing UDF)", "missing");
    if (el.udf_body === undefined)
      throw invalid("body", ["udfs", i, "udf_body"], "Field required (or give the id of an existing UDF)", "missing");
    plan.push({ i, el, slug: el.slug });
  });
  // Slug elements update the canvas's UDF of that slug unless an `{id}` element already took it.
  for (const entry of plan) {
    if (entry.row) continue;
    const match = existing.find((u) => u.slug === entry.slug && !claimed.has(u.id));
    if (match) {
      entry.row = match;
      claimed.add(match.id);
    }
  }
  const seen = new Set<string>();
  for (const entry of plan) {
    if (seen.has(entry.slug))
      throw invalid(
        "body",
        ["udfs", entry.i, "slug"],
        `Duplicate slug "${entry.slug}": slugs are unique within a canvas`,
      );
    seen.add(entry.slug);
  }

  for (const u of existing) if (!claimed.has(u.id)) store.run("DELETE FROM udfs WHERE id = ?", u.id);

  const renamed = new Map<string, string>();
  for (const { i, el, row, slug } of plan) {
    const position = el.position ?? i;
    if (!row) {
      const body = el.udf_body!;
      store.run(
        `INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, is_visible, position, created_at, last_updated)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        newId(),
        p.envId,
        p.userId ?? null,
        c.id,
        slug,
        body,
        bodyHash(body),
        el.is_visible ?? true,
        position,
        now,
        now,
      );
      continue;
    }
    if (row.collection_id === c.id && row.slug !== slug) renamed.set(row.slug, slug);
    const body = el.udf_body ?? row.udf_body;
    const visible = el.is_visible === undefined ? row.is_visible : el.is_visible ? 1 : 0;
    const changed =
      body !== row.udf_body ||
      slug !== row.slug ||
      row.collection_id !== c.id ||
      visible !== row.is_visible ||
      position !== row.position;
    if (!changed) continue;
    store.run(
      "UPDATE udfs SET collection_id = ?, slug = ?, udf_body = ?, udf_body_hash = ?, is_visible = ?, position = ?, last_updated = ? WHERE id = ?",
      c.id,
      slug,
      body,
      bodyHash(body),
      visible,
      position,
      now,
      row.id,
    );
  }

  // Edges follow renamed UDFs and drop removed ones.
  const edges = canvasEdges(c)
    .map(([a, b]) => [renamed.get(a) ?? a, renamed.get(b) ?? b] as [string, string])
    .filter(([a, b]) => seen.has(a) && seen.has(b));
  store.run("UPDATE canvases SET edges = ? WHERE id = ?", JSON.stringify(edges), c.id);
}

function create(ctx: RequestContext) {
  const p = caller(ctx);
  const input = parseBody(ctx, CanvasInput);
  checkName(input.name);
  ensureNameFree(ctx, p.envId, input.name);
  const id = newId();
  const now = ctx.now().toISOString();
  ctx.store.run(
    `INSERT INTO canvases (id, env_id, owner_user_id, name, access_scope, allow_public_read, passcode, dashboard_body, preview_image_url, created_at, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    p.envId,
    p.userId ?? null,
    input.name,
    input.access_scope ?? "team",
    input.allow_public_read ?? false,
    input.passcode ?? null,
    input.dashboard_body ?? null,
    input.preview_image_url ?? null,
    now,
    now,
  );
  if (input.udfs) replaceUdfs(ctx, canvasById(ctx.store, id)!, input.udfs, p);
  return canvasJson(ctx.store, canvasById(ctx.store, id)!, "full", p);
}

function update(ctx: RequestContext) {
  const p = caller(ctx);
  const c = ownCanvas(ctx.store, ctx.params.collection_id, p);
  const input: CanvasInput = parseBody(ctx, CanvasInput);
  checkName(input.name);
  if (input.name !== c.name) ensureNameFree(ctx, p.envId, input.name, c.id);
  const keep = <T>(v: T | undefined, old: T) => (v === undefined ? old : v);
  ctx.store.run(
    `UPDATE canvases SET name = ?, access_scope = ?, allow_public_read = ?, passcode = ?, dashboard_body = ?, preview_image_url = ?, last_updated = ?
     WHERE id = ?`,
    input.name,
    keep(input.access_scope, c.access_scope),
    input.allow_public_read === undefined ? c.allow_public_read : input.allow_public_read,
    keep(input.passcode, c.passcode),
    keep(input.dashboard_body, c.dashboard_body),
    keep(input.preview_image_url, c.preview_image_url),
    ctx.now().toISOString(),
    c.id,
  );
  if (input.udfs) replaceUdfs(ctx, canvasById(ctx.store, c.id)!, input.udfs, p);
  return canvasJson(ctx.store, canvasById(ctx.store, c.id)!, "full", p);
}

function remove(ctx: RequestContext) {
  const c = ownCanvas(ctx.store, ctx.params.collection_id, caller(ctx));
  ctx.store.run("DELETE FROM udfs WHERE collection_id = ?", c.id);
  ctx.store.run("DELETE FROM canvases WHERE id = ?", c.id);
  return noContent();
}

function byOwnerHandle(ctx: RequestContext, handle: string, name: string): CanvasRow | undefined {
  return ctx.store.get<CanvasRow>(
    "SELECT c.* FROM canvases c JOIN users u ON u.id = c.owner_user_id WHERE lower(u.handle) = lower(?) AND c.name = ?",
    handle,
    name,
  );
}

const full = (ctx: RequestContext, c: CanvasRow) => canvasJson(ctx.store, c, "full", ctx.principal);

const routes: RouteDef[] = [
  {
    method: "GET",
    path: "/collection/self",
    scope: "user",
    handler: (ctx) => list(ctx, "owner_user_id = ?", [userId(ctx)], "full", true),
  },
  {
    method: "GET",
    path: "/collection/self/lite",
    scope: "user",
    handler: (ctx) => list(ctx, "owner_user_id = ?", [userId(ctx)], "lite", true),
  },
  {
    method: "GET",
    path: "/collection/self/shared",
    scope: "user",
    handler: (ctx) => list(ctx, "owner_user_id = ? AND share_token IS NOT NULL", [userId(ctx)], "full", true),
  },
  {
    method: "GET",
    path: "/collection/self/shared/lite",
    scope: "user",
    handler: (ctx) => list(ctx, "owner_user_id = ? AND share_token IS NOT NULL", [userId(ctx)], "lite", true),
  },
  {
    method: "GET",
    path: "/collection/exec-env",
    scope: "environment",
    handler: (ctx) => list(ctx, "env_id = ?", [envId(ctx)], "full", false),
  },
  {
    method: "GET",
    path: "/collection/exec-env/lite",
    scope: "environment",
    handler: (ctx) => list(ctx, "env_id = ?", [envId(ctx)], "lite", false),
  },
  {
    method: "GET",
    path: "/collection/exec-env/shared",
    scope: "environment",
    handler: (ctx) => list(ctx, "env_id = ? AND share_token IS NOT NULL", [envId(ctx)], "full", false),
  },
  {
    method: "GET",
    path: "/collection/by-id/:collection_id",
    scope: "public_or_authorized",
    handler: (ctx) => full(ctx, readableCanvas(ctx.store, ctx.params.collection_id, ctx.principal)),
  },
  {
    method: "GET",
    path: "/collection/by-name/:canvas_name",
    scope: "user",
    handler: (ctx) => {
      const c = ctx.store.get<CanvasRow>(
        "SELECT * FROM canvases WHERE owner_user_id = ? AND name = ?",
        userId(ctx),
        ctx.params.canvas_name,
      );
      if (!c) throw notFound(`You have no canvas named "${ctx.params.canvas_name}"`);
      return full(ctx, c);
    },
  },
  {
    method: "GET",
    path: "/collection/exec-env/by-slug/:canvas_name",
    scope: "environment",
    handler: (ctx) => {
      const c = ctx.store.get<CanvasRow>(
        "SELECT * FROM canvases WHERE env_id = ? AND name = ?",
        envId(ctx),
        ctx.params.canvas_name,
      );
      if (!c) throw notFound(`The team has no canvas named "${ctx.params.canvas_name}"`);
      return full(ctx, c);
    },
  },
  {
    method: "GET",
    path: "/collection/by-slug/:username/:canvas_name",
    scope: "public_or_authorized",
    handler: (ctx) => {
      const c = byOwnerHandle(ctx, ctx.params.username, ctx.params.canvas_name);
      if (!c || !canReadCanvas(c, ctx.principal)) throw notFound("Canvas not found");
      return full(ctx, c);
    },
  },
  { method: "POST", path: "/collection/new", scope: "user", handler: create },
  { method: "POST", path: "/collection/by-id/:collection_id", scope: "user", handler: update },
  { method: "DELETE", path: "/collection/by-id/:collection_id", scope: "user", handler: remove },
  {
    method: "GET",
    path: "/collection/public/lite",
    scope: "public",
    handler: (ctx) => list(ctx, PUBLIC, [], "lite", false),
  },
  {
    method: "GET",
    path: "/collection/public",
    scope: "public",
    handler: (ctx) => list(ctx, PUBLIC, [], "full", false),
  },
  {
    method: "GET",
    path: "/collection/public/by-id/:collection_id",
    scope: "public",
    handler: (ctx) => {
      const c = canvasById(ctx.store, ctx.params.collection_id);
      if (!c || !isPubliclyReadable(c)) throw notFound("Public canvas not found");
      return canvasJson(ctx.store, c, "full", undefined);
    },
  },
  {
    method: "GET",
    path: "/collection/public/by-user/:handle/by-name/:canvas_name",
    scope: "public",
    handler: (ctx) => {
      const c = byOwnerHandle(ctx, ctx.params.handle, ctx.params.canvas_name);
      if (!c || !isPubliclyReadable(c)) throw notFound("Public canvas not found");
      return canvasJson(ctx.store, c, "full", undefined);
    },
  },
  ...archiveRoutes,
];

export const canvasesArea: Area = { name: "canvases", routes };
