/**
 * Spec 4.7: canvas export (`GET .../export-toml`) and import (`POST .../import-toml`) as a zip
 * holding `canvas.toml` (version 2), one `<slug>.py` per UDF and, for shared or public canvases,
 * `_shared.fused` (platform facts).
 *
 * Decisions where the spec is silent:
 * - A node's `udfName` is the UDF's slug; its file is `<slug>.py` holding the body's `code`.
 * - Export writes `_shared.fused` holding `access_scope = "public"` for public canvases, an empty
 *   one for shared team canvases, and none otherwise. Import sets `access_scope` to `public` when
 *   the file says so, else `team`; sharing itself (token, client id) is left alone.
 * - The archive is authoritative for the UDF set (created or updated by slug, absent ones deleted),
 *   node layout and visibility, edges and `previewImageUrl`; the canvas keeps its name, passcode
 *   and dashboard. Files other than `canvas.toml`, `_shared.fused` and `*.py` are ignored. The
 *   archive may sit inside one top-level folder.
 * - Checks in order: 404 canvas, 422 no `file` part, 413 larger than `importMaxBytes` (or
 *   unpacking to more than 20 times that), 400 not a `.zip` name or not a zip, 400 archive problems.
 *   The answer is the updated canvas (full variant).
 */
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { strFromU8, strToU8, unzipSync, zipSync, type Unzipped } from "fflate";
import {
  bodyHash,
  canvasEdges,
  canvasJson,
  canvasUdfs,
  newId,
  ownCanvas,
  readableCanvas,
  type CanvasRow,
  type UdfRow,
} from "../catalog";
import { badRequest, invalid, tooLarge } from "../http-error";
import { bytes, caller, type RequestContext, type RouteDef } from "../route";
import { parseJson } from "../store";

interface Layout {
  x: number;
  y: number;
  width: number;
  height: number;
}

const defaultLayout = (i: number): Layout => ({ x: i * 450, y: 0, width: 400, height: 300 });

/** The Python source of a body: its `code`, or the whole text when the body is not a JSON object. */
function codeOf(body: string): string {
  const parsed = parseJson<unknown>(body, undefined);
  if (parsed && typeof parsed === "object" && typeof (parsed as { code?: unknown }).code === "string")
    return (parsed as { code: string }).code;
  return body;
}

function exportCanvas(ctx: RequestContext) {
  const c = readableCanvas(ctx.store, ctx.params.collection_id, ctx.principal);
  const udfs = canvasUdfs(ctx.store, c.id);
  const slugs = new Set(udfs.map((u) => u.slug));
  const doc: Record<string, unknown> = { type: "canvas", version: 2, name: c.name };
  if (c.preview_image_url) doc.previewImageUrl = c.preview_image_url;
  doc.canvas = {
    edges: canvasEdges(c).filter(([a, b]) => slugs.has(a) && slugs.has(b)),
    nodes: udfs.map((u, i) => ({
      udfName: u.slug,
      ...{ ...defaultLayout(i), ...parseJson<Partial<Layout>>(u.node_layout, {}) },
      visible: u.is_visible === 1,
    })),
  };
  const files: Record<string, Uint8Array> = { "canvas.toml": strToU8(stringifyToml(doc)) };
  for (const u of udfs) files[`${u.slug}.py`] = strToU8(codeOf(u.udf_body));
  if (c.access_scope === "public") files["_shared.fused"] = strToU8('access_scope = "public"\n');
  else if (c.share_token) files["_shared.fused"] = new Uint8Array(0);
  const zip = zipSync(files, { mtime: new Date(c.last_updated) });
  return bytes(200, Buffer.from(zip), "application/zip", {
    "content-disposition": `attachment; filename="${c.name}.zip"`,
  });
}

interface Node {
  udfName: string;
  layout: Layout;
  visible: boolean;
}

interface Archive {
  nodes: Node[];
  edges: [string, string][];
  previewImageUrl: string | null;
  accessScope: "public" | "team";
  code: Map<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function unpack(ctx: RequestContext): Unzipped {
  const file = ctx.files.get("file");
  if (!file) {
    if (typeof ctx.form?.get("file") === "string")
      throw badRequest("The field file must be a .zip file upload, not text");
    throw invalid("body", "file", "Field required", "missing");
  }
  const max = ctx.env.importMaxBytes;
  if (file.bytes.length > max)
    throw tooLarge(`The archive is ${file.bytes.length} bytes; at most ${max} bytes are accepted`);
  if (!/\.zip$/i.test(file.filename)) throw badRequest(`The uploaded file "${file.filename}" is not a .zip archive`);
  let unpacked = 0;
  let bomb = false;
  let entries: Unzipped;
  try {
    entries = unzipSync(new Uint8Array(file.bytes), {
      filter: (f) => {
        unpacked += f.originalSize;
        if (unpacked > max * 20) bomb = true;
        return !bomb;
      },
    });
  } catch {
    throw badRequest(`The uploaded file "${file.filename}" is not a valid zip archive`);
  }
  if (bomb) throw tooLarge(`The archive unpacks to more than ${max * 20} bytes`);
  return entries;
}

function readArchive(entries: Unzipped): Archive {
  const names = Object.keys(entries).filter((n) => !n.endsWith("/") && !n.startsWith("__MACOSX/"));
  let prefix = "";
  if (!names.includes("canvas.toml")) {
    const nested = names.filter((n) => n.endsWith("/canvas.toml") && n.split("/").length === 2);
    if (nested.length === 0) throw badRequest("The archive holds no canvas.toml");
    if (nested.length > 1) throw badRequest("The archive holds several canvas.toml files; put exactly one at its root");
    prefix = nested[0].slice(0, -"canvas.toml".length);
  }
  const rel = new Map(names.filter((n) => n.startsWith(prefix)).map((n) => [n.slice(prefix.length), entries[n]]));

  let doc: Record<string, unknown>;
  try {
    doc = parseToml(strFromU8(rel.get("canvas.toml")!));
  } catch (e) {
    throw badRequest(`canvas.toml is not valid TOML: ${(e as Error).message.split("\n")[0]}`);
  }
  if (doc.type !== undefined && doc.type !== "canvas")
    throw badRequest(`canvas.toml: type must be "canvas", not ${JSON.stringify(doc.type)}`);
  if (doc.version !== 2) throw badRequest(`canvas.toml: version must be 2, not ${JSON.stringify(doc.version ?? null)}`);
  if (doc.previewImageUrl !== undefined && typeof doc.previewImageUrl !== "string")
    throw badRequest("canvas.toml: previewImageUrl must be a string");
  const canvas = doc.canvas ?? {};
  if (!isObject(canvas)) throw badRequest("canvas.toml: canvas must be a table");
  const rawNodes = canvas.nodes ?? [];
  if (!Array.isArray(rawNodes)) throw badRequest("canvas.toml: canvas.nodes must be an array of tables");

  const nodes: Node[] = rawNodes.map((n: unknown, i: number) => {
    const where = `canvas.toml: canvas.nodes[${i}]`;
    if (!isObject(n)) throw badRequest(`${where} must be a table`);
    if (typeof n.udfName !== "string" || !/^[^/\\]+$/.test(n.udfName))
      throw badRequest(`${where}.udfName must be a non-empty name without slashes`);
    const layout = defaultLayout(i);
    for (const k of ["x", "y", "width", "height"] as const) {
      if (n[k] === undefined) continue;
      if (typeof n[k] !== "number") throw badRequest(`${where}.${k} must be a number`);
      layout[k] = n[k];
    }
    if (n.visible !== undefined && typeof n.visible !== "boolean")
      throw badRequest(`${where}.visible must be true or false`);
    return { udfName: n.udfName, layout, visible: n.visible !== false };
  });
  const nodeNames = new Set<string>();
  for (const n of nodes) {
    if (nodeNames.has(n.udfName)) throw badRequest(`canvas.toml: more than one node has udfName "${n.udfName}"`);
    nodeNames.add(n.udfName);
  }

  const rawEdges = canvas.edges ?? [];
  if (!Array.isArray(rawEdges)) throw badRequest("canvas.toml: canvas.edges must be an array of [from, to] pairs");
  const edges = rawEdges.map((e: unknown, i: number) => {
    if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== "string" || typeof e[1] !== "string") {
      throw badRequest(`canvas.toml: canvas.edges[${i}] must be a pair of udfNames`);
    }
    for (const end of e)
      if (!nodeNames.has(end))
        throw badRequest(`canvas.toml: canvas.edges[${i}] names "${end}", which is not a node's udfName`);
    return [e[0], e[1]] as [string, string];
  });

  const code = new Map<string, string>();
  for (const [path, data] of rel) {
    if (!path.endsWith(".py")) continue;
    const stem = path.slice(path.lastIndexOf("/") + 1, -3);
    if (code.has(stem))
      throw badRequest(`The archive holds more than one file named "${stem}.py"; file stems must be unique`);
    if (!nodeNames.has(stem)) throw badRequest(`"${path}" does not match any node's udfName in canvas.toml`);
    code.set(stem, strFromU8(data));
  }
  for (const n of nodes)
    if (!code.has(n.udfName))
      throw badRequest(`Node "${n.udfName}" has no source file "${n.udfName}.py" in the archive`);

  let accessScope: "public" | "team" = "team";
  const shared = rel.get("_shared.fused");
  if (shared) {
    let s: Record<string, unknown>;
    try {
      s = parseToml(strFromU8(shared));
    } catch (e) {
      throw badRequest(`_shared.fused is not valid TOML: ${(e as Error).message.split("\n")[0]}`);
    }
    if (s.access_scope !== undefined && s.access_scope !== "public" && s.access_scope !== "team") {
      throw badRequest(`_shared.fused: access_scope must be "public" or "team", not ${JSON.stringify(s.access_scope)}`);
    }
    if (s.access_scope === "public") accessScope = "public";
  }
  return { nodes, edges, previewImageUrl: (doc.previewImageUrl as string | undefined) ?? null, accessScope, code };
}

/** A new UDF's body (platform facts), or an existing body with only `code` replaced. */
function bodyWithCode(old: string | undefined, name: string, code: string): string {
  const parsed = old === undefined ? undefined : parseJson<unknown>(old, undefined);
  if (isObject(parsed)) return parsed.code === code ? old! : JSON.stringify({ ...parsed, code });
  return JSON.stringify({
    name,
    type: "geopandas_v2",
    entrypoint: "udf",
    code,
    headers: [],
    metadata: {},
    parameters: {},
    table_schema: null,
    original_headers: null,
  });
}

function importCanvas(ctx: RequestContext) {
  const p = caller(ctx);
  const c: CanvasRow = ownCanvas(ctx.store, ctx.params.collection_id, p);
  const archive = readArchive(unpack(ctx));
  const { store } = ctx;
  const now = ctx.now().toISOString();
  const existing = new Map<string, UdfRow>(canvasUdfs(store, c.id).map((u) => [u.slug, u]));
  for (const u of existing.values()) if (!archive.code.has(u.slug)) store.run("DELETE FROM udfs WHERE id = ?", u.id);
  archive.nodes.forEach((n, position) => {
    const old = existing.get(n.udfName);
    const body = bodyWithCode(old?.udf_body, n.udfName, archive.code.get(n.udfName)!);
    const layout = JSON.stringify(n.layout);
    if (!old) {
      store.run(
        `INSERT INTO udfs (id, env_id, owner_user_id, collection_id, slug, udf_body, udf_body_hash, is_visible, position, node_layout, created_at, last_updated)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        newId(),
        c.env_id,
        p.userId ?? null,
        c.id,
        n.udfName,
        body,
        bodyHash(body),
        n.visible,
        position,
        layout,
        now,
        now,
      );
    } else if (
      body !== old.udf_body ||
      (n.visible ? 1 : 0) !== old.is_visible ||
      position !== old.position ||
      layout !== old.node_layout
    ) {
      store.run(
        "UPDATE udfs SET udf_body = ?, udf_body_hash = ?, is_visible = ?, position = ?, node_layout = ?, last_updated = ? WHERE id = ?",
        body,
        bodyHash(body),
        n.visible,
        position,
        layout,
        now,
        old.id,
      );
    }
  });
  store.run(
    "UPDATE canvases SET edges = ?, preview_image_url = ?, access_scope = ?, last_updated = ? WHERE id = ?",
    JSON.stringify(archive.edges),
    archive.previewImageUrl,
    archive.accessScope,
    now,
    c.id,
  );
  return canvasJson(store, ownCanvas(store, c.id, p), "full", p);
}

export const archiveRoutes: RouteDef[] = [
  {
    method: "GET",
    path: "/collection/by-id/:collection_id/export-toml",
    scope: "public_or_authorized",
    handler: exportCanvas,
  },
  {
    method: "POST",
    path: "/collection/by-id/:collection_id/import-toml",
    scope: "user",
    body: "multipart",
    handler: importCanvas,
  },
];
