/**
 * Canvases and UDFs are read by several areas (canvases, sharing, UDFs, cache, cronjobs), so their
 * tables, JSON shapes (spec 2.4, 2.5) and read rules live here once.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { notFound } from "./http-error";
import type { Principal } from "./principal";
import { parseJson, type Store } from "./store";

export const CATALOG_DDL = `
CREATE TABLE IF NOT EXISTS canvases (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), owner_user_id TEXT REFERENCES users(id),
  name TEXT NOT NULL, access_scope TEXT NOT NULL DEFAULT 'team', allow_public_read INTEGER NOT NULL DEFAULT 0,
  share_token TEXT UNIQUE, share_client_id TEXT, passcode TEXT, dashboard_body TEXT, preview_image_url TEXT,
  edges TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL, last_updated TEXT NOT NULL,
  UNIQUE (env_id, name)
);
CREATE TABLE IF NOT EXISTS udfs (
  id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES envs(id), owner_user_id TEXT REFERENCES users(id),
  collection_id TEXT REFERENCES canvases(id) ON DELETE CASCADE, slug TEXT NOT NULL, udf_body TEXT NOT NULL,
  udf_body_hash TEXT NOT NULL, is_visible INTEGER NOT NULL DEFAULT 1, position INTEGER NOT NULL DEFAULT 0,
  node_layout TEXT, created_at TEXT NOT NULL, last_updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS udfs_collection ON udfs(collection_id, position);
-- A slug is looked up on every create and rename (409 when taken): without these, each scanned the
-- canvas's UDFs, or the owner's for a UDF without a canvas.
CREATE INDEX IF NOT EXISTS udfs_slug ON udfs(collection_id, slug);
CREATE INDEX IF NOT EXISTS udfs_owner_slug ON udfs(owner_user_id, slug);
CREATE INDEX IF NOT EXISTS udfs_env ON udfs(env_id, created_at, id);
CREATE INDEX IF NOT EXISTS udfs_owner ON udfs(owner_user_id, created_at, id);
CREATE INDEX IF NOT EXISTS canvases_owner ON canvases(owner_user_id, created_at, id);
-- Per-UDF shared tokens (prefix fsh_); they die with their UDF.
CREATE TABLE IF NOT EXISTS udf_shared_tokens (
  token TEXT PRIMARY KEY, udf_id TEXT NOT NULL REFERENCES udfs(id) ON DELETE CASCADE,
  access_scope TEXT NOT NULL DEFAULT 'team', created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS udf_shared_tokens_udf ON udf_shared_tokens(udf_id);
`;

/** Mints a per-UDF shared token (`fsh_...`). */
export function mintUdfSharedToken(store: Store, udfId: string, accessScope: string, now: Date): string {
  const token = `fsh_${randomBytes(18).toString("base64url")}`;
  store.run(
    "INSERT INTO udf_shared_tokens (token, udf_id, access_scope, created_at) VALUES (?, ?, ?, ?)",
    token,
    udfId,
    accessScope,
    now.toISOString(),
  );
  return token;
}

export interface CanvasRow {
  id: string;
  env_id: string;
  owner_user_id: string | null;
  name: string;
  access_scope: string;
  allow_public_read: number;
  share_token: string | null;
  share_client_id: string | null;
  passcode: string | null;
  dashboard_body: string | null;
  preview_image_url: string | null;
  edges: string;
  created_at: string;
  last_updated: string;
}

export interface UdfRow {
  id: string;
  env_id: string;
  owner_user_id: string | null;
  collection_id: string | null;
  slug: string;
  udf_body: string;
  udf_body_hash: string;
  is_visible: number;
  position: number;
  node_layout: string | null;
  created_at: string;
  last_updated: string;
}

export const newId = () => randomUUID();

/** `udf_body_hash`: SHA-256 of the body text, so it changes exactly when the body changes. */
export function bodyHash(body: string): string {
  return createHash("sha256").update(body).digest("hex");
}

/** Canvas names use `[A-Za-z0-9_]` only (platform facts). */
export const CANVAS_NAME = /^[A-Za-z0-9_]+$/;

export function canvasById(store: Store, id: string): CanvasRow | undefined {
  return store.get<CanvasRow>("SELECT * FROM canvases WHERE id = ?", id);
}

export function udfById(store: Store, id: string): UdfRow | undefined {
  return store.get<UdfRow>("SELECT * FROM udfs WHERE id = ?", id);
}

/** Anyone may read a canvas whose scope is public or that allows public read. */
export function isPubliclyReadable(c: CanvasRow): boolean {
  return c.access_scope === "public" || c.allow_public_read === 1;
}

/** The canvas read rule: public, or the caller belongs to the owning environment. */
export function canReadCanvas(c: CanvasRow, p: Principal | undefined): boolean {
  return isPubliclyReadable(c) || (p !== undefined && p.envId === c.env_id);
}

/** A canvas the caller may read, or 404 (another team's private canvas is invisible, never 403). */
export function readableCanvas(store: Store, id: string, p: Principal | undefined): CanvasRow {
  const c = canvasById(store, id);
  if (!c || !canReadCanvas(c, p)) throw notFound("Canvas not found");
  return c;
}

/** A canvas of the caller's environment (for writes), or 404. */
export function ownCanvas(store: Store, id: string, p: Principal): CanvasRow {
  const c = canvasById(store, id);
  if (!c || c.env_id !== p.envId) throw notFound("Canvas not found");
  return c;
}

export function canReadUdf(store: Store, u: UdfRow, p: Principal | undefined): boolean {
  if (p && p.envId === u.env_id) return true;
  if (!u.collection_id) return false;
  const c = canvasById(store, u.collection_id);
  return c !== undefined && isPubliclyReadable(c);
}

type OwnerSummary = { id: string; name: string; handle: string | null } | null;

/**
 * Lookups shared by the records of one answer (a listing of thousands of UDFs has a few owners
 * and canvases): one query per owner and canvas instead of two per UDF. Made per answer, so a
 * renamed user or canvas shows in the next one.
 */
export interface JsonMemo {
  owners: Map<string, OwnerSummary>;
  canvasNames: Map<string, string | null>;
}

export const jsonMemo = (): JsonMemo => ({ owners: new Map(), canvasNames: new Map() });

function ownerSummary(store: Store, userId: string | null, memo?: JsonMemo): OwnerSummary {
  if (!userId) return null;
  const known = memo?.owners.get(userId);
  if (known !== undefined) return known;
  const u =
    store.get<{ id: string; name: string; handle: string | null }>(
      "SELECT id, name, handle FROM users WHERE id = ?",
      userId,
    ) ?? null;
  memo?.owners.set(userId, u);
  return u;
}

function canvasName(store: Store, id: string, memo?: JsonMemo): string | null {
  const known = memo?.canvasNames.get(id);
  if (known !== undefined) return known;
  const name = store.get<{ name: string }>("SELECT name FROM canvases WHERE id = ?", id)?.name ?? null;
  memo?.canvasNames.set(id, name);
  return name;
}

/** Spec 2.5. `shared_token` is added by the create handler only. */
export function udfJson(
  store: Store,
  u: UdfRow,
  canvasNameGiven?: string | null,
  memo?: JsonMemo,
): Record<string, unknown> {
  const name =
    canvasNameGiven !== undefined ? canvasNameGiven : u.collection_id ? canvasName(store, u.collection_id, memo) : null;
  return {
    id: u.id,
    slug: u.slug,
    udf_body: u.udf_body,
    collection_id: u.collection_id,
    collection_name: name,
    is_visible: u.is_visible === 1,
    position: u.position,
    udf_body_hash: u.udf_body_hash,
    last_updated: u.last_updated,
    owning_user: ownerSummary(store, u.owner_user_id, memo),
  };
}

export function canvasUdfs(store: Store, canvasId: string): UdfRow[] {
  return store.all<UdfRow>("SELECT * FROM udfs WHERE collection_id = ? ORDER BY position, created_at, id", canvasId);
}

/**
 * Spec 2.4, full or lite. The passcode is shown only to the owning environment; public readers
 * see `null`.
 */
export function canvasJson(
  store: Store,
  c: CanvasRow,
  variant: "full" | "lite",
  viewer: Principal | undefined,
  memo: JsonMemo = jsonMemo(),
): Record<string, unknown> {
  const owner = ownerSummary(store, c.owner_user_id, memo);
  const own = viewer !== undefined && viewer.envId === c.env_id;
  const base: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    access_scope: c.access_scope,
    username: owner?.handle ?? null,
    allow_public_read: c.allow_public_read === 1,
    share_token: own || isPubliclyReadable(c) ? c.share_token : null,
    passcode: own ? c.passcode : null,
    preview_image_url: c.preview_image_url,
    last_updated: c.last_updated,
  };
  const udfs = canvasUdfs(store, c.id);
  if (variant === "lite") return { ...base, udf_ids: udfs.map((u) => u.id) };
  const env = store.get<{ id: string; name: string }>("SELECT id, name FROM envs WHERE id = ?", c.env_id);
  return {
    ...base,
    share_client_id: c.share_client_id,
    dashboard_body: c.dashboard_body,
    udfs: udfs.map((u) => udfJson(store, u, c.name, memo)),
    owning_user: owner,
    owning_execution_environment: env ?? null,
  };
}

/** Parsed `edges` of a canvas (used by the TOML export/import). */
export function canvasEdges(c: CanvasRow): [string, string][] {
  return parseJson<[string, string][]>(c.edges, []);
}
