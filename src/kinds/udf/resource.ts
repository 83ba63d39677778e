/**
 * Udf: a saved UDF on a canvas. Natural key: `<canvasId>/<slug>` (a slug is unique on its canvas).
 * A UDF without a canvas (no `canvasId`: `collection_id` null, on its owner's default canvas) has
 * the key `/<slug>` (its slug is unique among its owner's UDFs without a canvas). No canvas answer
 * carries those: the engine reads them by id, or looks one up by slug (`observeOutside`).
 *
 * The code may come from a `.py` file (`codePath`): `check` reads it, relative to the working
 * directory (the Pulumi program's folder), and puts its content into `code`, so the diff sees
 * content changes and the file's location is not part of the state. The body is the JSON
 * `udf_body` of `udf-body.ts`, compared by content, never by assuming the server's hash.
 *
 * After a body change on a shared canvas, the UDF's real-time cache is invalidated, so shared
 * URLs serve the new code.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { referencedCanvas, unlessMissing } from "../missing";
import type { Canvas as ApiCanvas, Udf as ApiUdf } from "../../api/schemas";
import { teamCanvases } from "../canvas/resource";
import { checkWith } from "../check";
import { diffFields } from "../field-diff";
import { oversizeReason } from "../../api/request-limits";
import { canonicalJson } from "../../canonical-json";
import type { CheckFailure, Created, FieldChange, KindContext, Observed, ResourceKind } from "../kind";
import { NothingToAdopt, createUnlooked } from "../fresh-listings";
import type { ReconcileTraits } from "../reconcile-traits";
import type { DesiredObject } from "../../model/desired";
import { layoutCanvases } from "./udf-layout";
import { buildUdfBody, sameUdfBody, udfBodySentBytesAtMost, type UdfHeader } from "./udf-body";
import { udfState, type UdfInputs, type UdfState } from "./udf-state";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { udfDefinition } from "./definition";
import { VARIANT_PREFIXES, variantOf } from "./udf-variant";

/** The raw inputs, as a Pulumi program or a GitOps file gives them (the sources not yet read). */
type UdfArgs = CheckedInputs<typeof udfDefinition>;
export const UdfArgs = definitionCheck(udfDefinition, {
  fields: {
    headers: (list) =>
      list.superRefine((value, ctx) => {
        const seen = new Set<string>();
        (value as UdfArgs["headers"]).forEach((h, i) => {
          if (seen.has(h.moduleName))
            ctx.addIssue({
              code: "custom",
              path: [i, "moduleName"],
              message: "Module names must be unique within headers.",
            });
          seen.add(h.moduleName);
        });
      }),
  },
});

export type { UdfInputs, UdfState } from "./udf-state";

/** Resolves `code` / `codePath` of one module: the source, or a failure naming the property. */
function moduleSource(raw: unknown, at: string): { code?: string; failure?: CheckFailure } {
  const o = (raw ?? {}) as Record<string, unknown>;
  const { code, codePath } = o;
  if (code === undefined && codePath === undefined) {
    return {
      failure: {
        property: `${at}code`,
        reason: `${at}code is required: give the Python source in ${at}code, or the path of a .py file in ${at}codePath.`,
      },
    };
  }
  if (code !== undefined && codePath !== undefined) {
    return {
      failure: {
        property: `${at}codePath`,
        reason: `Invalid ${at}codePath ${JSON.stringify(codePath)}. Give either ${at}code or ${at}codePath, not both.`,
      },
    };
  }
  if (typeof code === "string") return { code };
  if (typeof codePath !== "string" || !codePath.endsWith(".py")) return {}; // the schema reports it
  const full = resolve(process.cwd(), codePath);
  try {
    return { code: readFileSync(full, "utf8") };
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? "unreadable";
    return {
      failure: {
        property: `${at}codePath`,
        reason: `Invalid ${at}codePath ${JSON.stringify(codePath)}. No readable file at ${full} (${why}); paths are relative to the Pulumi program folder.`,
      },
    };
  }
}

/** Reads every `codePath` and reports every missing or unreadable source. */
function resolveSources(raw: unknown): { code?: string; headers: (string | undefined)[]; failures: CheckFailure[] } {
  const o = (raw ?? {}) as Record<string, unknown>;
  const main = moduleSource(o, "");
  const headerList = Array.isArray(o.headers) ? o.headers : [];
  const headers = headerList.map((h, i) => moduleSource(h, `headers[${i}].`));
  const failures = [main, ...headers].flatMap((s) => (s.failure ? [s.failure] : []));
  return { code: main.code, headers: headers.map((h) => h.code), failures };
}

export function checkUdf(raw: unknown) {
  const base = checkWith(UdfArgs, raw);
  const sources = resolveSources(raw);
  const failures = [...base.failures, ...sources.failures];
  if (failures.length) return { inputs: base.inputs as unknown as UdfInputs, failures };
  const a = base.inputs;
  const inputs: UdfInputs = {
    ...(a.canvasId === null ? {} : { canvasId: a.canvasId }),
    slug: a.slug,
    code: sources.code!,
    entrypoint: a.entrypoint,
    headers: a.headers.map((h, i) => ({ moduleName: h.moduleName, code: sources.headers[i]! })),
    metadata: a.metadata,
    createSharedToken: a.createSharedToken,
  };
  // The body as it is sent (a JSON string inside the request): known now, refused now, not by a 413 half-way through an apply.
  // Built and measured only when a bound on its size does not already show it fits.
  const what = `The UDF body (its code, ${inputs.headers.length} helper module${inputs.headers.length === 1 ? "" : "s"} and metadata)`;
  const parts = {
    name: inputs.slug,
    entrypoint: inputs.entrypoint,
    code: inputs.code,
    headers: inputs.headers,
    metadata: inputs.metadata,
  };
  const tooLarge =
    oversizeReason(what, udfBodySentBytesAtMost(parts)) &&
    oversizeReason(what, Buffer.byteLength(JSON.stringify(udfBodyOf(inputs))));
  if (tooLarge) failures.push({ property: "code", reason: tooLarge });
  return { inputs, failures };
}

/** The `udf_body` for the desired (or kept) state: the UDF's name is its slug. */
export function udfBodyOf(s: Pick<UdfInputs, "slug" | "entrypoint" | "code" | "headers" | "metadata">): string {
  return buildUdfBody({
    name: s.slug,
    entrypoint: s.entrypoint,
    code: s.code,
    headers: s.headers,
    metadata: s.metadata,
  });
}

export { udfState };

/** Drops the UDF's real-time cache when its canvas is shared, so shared URLs serve the new code. */
async function invalidateIfShared(ctx: KindContext, canvas: ApiCanvas, udfId: string): Promise<void> {
  if (canvas.share_token && canvas.share_client_id)
    await ctx.client.realtime.deleteCache(canvas.share_client_id, udfId);
}

/** Adopts `existing` on `canvas`: its body is made the desired one. A per-UDF shared token cannot be obtained for an existing UDF. */
async function adoptUdf(
  ctx: KindContext,
  canvas: ApiCanvas,
  existing: ApiUdf,
  inputs: UdfInputs,
): Promise<Created<UdfState>> {
  let u = existing;
  const body = udfBodyOf(inputs);
  if (!sameUdfBody(existing.udf_body, body)) {
    u = await ctx.client.udfs.update(existing.id, { udf_body: body });
    await invalidateIfShared(ctx, canvas, u.id);
  }
  return { id: u.id, state: udfState(u, { createSharedToken: inputs.createSharedToken }), adopted: true };
}

/** The natural key: `<canvasId>/<slug>`, or `/<slug>` for a UDF without a canvas. */
export function udfKey(i: { canvasId?: string | null; slug: string }): string {
  return `${i.canvasId ?? ""}/${i.slug}`;
}

/** The caller's UDF without a canvas with this slug (`GET /udf/exec-env/self/by-slug/{slug}`), if any. */
async function canvaslessBySlug(ctx: KindContext, slug: string): Promise<ApiUdf | undefined> {
  const u = await unlessMissing(ctx.client.udfs.getExecEnvBySlug(slug));
  return u && !u.collection_id ? u : undefined;
}

/** Adopts a UDF without a canvas: its body is made the desired one. */
async function adoptCanvasless(ctx: KindContext, existing: ApiUdf, inputs: UdfInputs): Promise<Created<UdfState>> {
  const body = udfBodyOf(inputs);
  const u = sameUdfBody(existing.udf_body, body)
    ? existing
    : await ctx.client.udfs.update(existing.id, { udf_body: body });
  return { id: u.id, state: udfState(u, { createSharedToken: inputs.createSharedToken }), adopted: true };
}

/**
 * The UDFs without a canvas a project names, which no canvas answer carries: those the inventory
 * records read by id (`GET /udf/by-id`), those only declared looked up by slug (one request each,
 * until the first apply records them). Nothing is listed: a project without such UDFs reads nothing.
 */
async function observeCanvasless(
  ctx: KindContext,
  named: { recorded: readonly { id: string }[]; declared: readonly { slug: string }[] },
): Promise<Observed<UdfState>[]> {
  const byId = named.recorded.map(async ({ id }) => {
    const u = await unlessMissing(ctx.client.udfs.getById(id));
    return u && { id: u.id, key: udfKey({ canvasId: u.collection_id, slug: u.slug }), state: udfState(u) };
  });
  const bySlug = named.declared.map(async ({ slug }) => {
    const u = await canvaslessBySlug(ctx, slug);
    return u && { id: u.id, key: udfKey({ slug: u.slug }), state: udfState(u) };
  });
  return (await Promise.all([...byId, ...bySlug])).filter((o): o is Observed<UdfState> => !!o);
}

/** `POST /udf/new`, without looking for an existing one. */
async function postUdf(ctx: KindContext, inputs: UdfInputs): Promise<Created<UdfState>> {
  const u = await ctx.client.udfs.create({
    slug: inputs.slug,
    udf_body: udfBodyOf(inputs),
    ...(inputs.canvasId === undefined ? {} : { collection_id: inputs.canvasId }),
    create_shared_token: inputs.createSharedToken,
  });
  return {
    id: u.id,
    state: udfState(u, { createSharedToken: inputs.createSharedToken, sharedToken: u.shared_token }),
    adopted: false,
  };
}

const NOTES: Record<string, string> = {
  canvasId: "moves the UDF to the other canvas (collection_id)",
  createSharedToken: "a per-UDF shared token can only be minted when the UDF is created",
};

/** The note on a changed field; a move off a canvas, or onto one, says so. */
function noteOf(
  field: string,
  olds: { canvasId?: string | null },
  news: { canvasId?: string | null },
): string | undefined {
  if (field === "canvasId" && !news.canvasId)
    return "takes the UDF off its canvas (collection_id null): a UDF without a canvas";
  if (field === "canvasId" && !olds.canvasId) return "puts the UDF without a canvas on the canvas (collection_id)";
  return NOTES[field];
}

export const udfKind: ResourceKind<UdfInputs, UdfState> = {
  kind: "Udf",
  secretInputs: [],
  secretOutputs: ["sharedToken"],
  check: checkUdf,
  key: udfKey,
  diff(olds, news) {
    // A UDF found by a listing has no known createSharedToken: never replace it for that.
    const kept = { ...olds, createSharedToken: olds.createSharedToken ?? news.createSharedToken };
    // Without a canvas is a place too: a UDF moved onto a canvas out of band is moved back off it.
    const d = diffFields(kept, { ...news, canvasId: news.canvasId ?? null }, { replaceOn: ["createSharedToken"] });
    const fields = d.fields.map((f) => (NOTES[f.field] ? { ...f, note: noteOf(f.field, olds, news) } : f));
    // The slug is unique on its canvas: the new UDF can only be made once the old one is gone
    // (made first, it would adopt the old one, which the delete would then remove).
    return { ...d, fields, deleteBeforeReplace: d.replaces.length > 0 };
  },
  async create(ctx, inputs, opts) {
    const lookup = opts?.lookup ?? "first";
    if (lookup === "never") return createUnlooked(() => postUdf(ctx, inputs));
    if (inputs.canvasId === undefined) {
      // Without a canvas: the caller's own UDF with the slug, on its default canvas.
      const existing = await canvaslessBySlug(ctx, inputs.slug);
      if (existing) return adoptCanvasless(ctx, existing, inputs);
      if (lookup === "only") throw new NothingToAdopt(udfKey(inputs));
      return postUdf(ctx, inputs);
    }
    const canvasId = inputs.canvasId;
    const canvas = await (ctx.reads?.read(`canvas ${canvasId}`, () => referencedCanvas(ctx, canvasId)) ??
      referencedCanvas(ctx, canvasId));
    const existing = canvas.udfs.find((u) => u.slug === inputs.slug);
    if (existing) return adoptUdf(ctx, canvas, existing, inputs);
    if (lookup === "only") throw new NothingToAdopt(`${inputs.canvasId}/${inputs.slug}`);
    return postUdf(ctx, inputs);
  },
  async read(ctx, id, olds) {
    const u = await unlessMissing(ctx.client.udfs.getById(id));
    return u && udfState(u, olds);
  },
  async update(ctx, id, olds, news) {
    // The body is always sent (an unchanged body changes nothing); whether it changed is told by
    // the hash the server returns, compared with the one it returned for the body last written.
    const u = await ctx.client.udfs.update(id, {
      udf_body: udfBodyOf(news),
      ...(news.slug !== olds.slug ? { slug: news.slug } : {}),
      ...((news.canvasId ?? null) !== (olds.canvasId ?? null) ? { collection_id: news.canvasId ?? null } : {}),
    });
    if (u.udf_body_hash !== olds.udfBodyHash && news.canvasId !== undefined)
      await invalidateIfShared(ctx, await referencedCanvas(ctx, news.canvasId), id);
    return udfState(u, { createSharedToken: news.createSharedToken, sharedToken: olds.sharedToken });
  },
  async delete(ctx, id) {
    await unlessMissing(ctx.client.udfs.delete(id));
  },
  async observeAll(ctx) {
    // Every UDF a Udf can manage is on one of the team's canvases (those on an owner's default
    // canvas are not), and each canvas's answer carries them in full: the same answers the Canvas
    // kind reads, instead of paging through every UDF of the environment.
    // (Made into states as each canvas's answer arrives: see `team-canvases.ts`.)
    return (await teamCanvases(ctx)).flatMap((c) => c.udfs);
  },
};

/** Visibility and order on the canvas that differ from the observed state. */
function layoutChanges(d: DesiredObject, state: Record<string, unknown> | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  const { isVisible, position } = d.options;
  if (isVisible !== undefined && state?.isVisible !== isVisible)
    out.push({ field: "isVisible", action: "update", secret: false, from: state?.isVisible, to: isVisible });
  if (position !== undefined && state?.position !== position)
    out.push({ field: "position", action: "update", secret: false, from: state?.position, to: position });
  return out;
}

/** What a UDF is besides where it stands: a renamed or moved file with the same content is the same UDF. */
function udfIdentity(values: Record<string, unknown>): string | undefined {
  if (typeof values.code !== "string") return undefined;
  return canonicalJson({
    code: values.code,
    entrypoint: values.entrypoint,
    headers: values.headers,
    metadata: values.metadata,
  });
}

/**
 * The secrets a UDF reads (`fused.secrets["KEY"]`, `secrets['KEY']`, `secrets.KEY`) in its code or
 * its helper modules, as secret addresses: a targeted plan of the UDF takes them along.
 */
export function secretsRead(d: DesiredObject): string[] {
  const code = [
    d.inputs.code,
    ...((d.inputs.headers as { code?: unknown }[] | undefined) ?? []).map((h) => h.code),
  ].filter((c): c is string => typeof c === "string");
  const keys = new Set<string>();
  for (const text of code)
    for (const m of text.matchAll(/\bsecrets(?:\[\s*["']([^"'\]]+)["']\s*\]|\.([A-Za-z_][A-Za-z0-9_]*))/g))
      keys.add((m[1] ?? m[2])!);
  return [...keys].sort().map((k) => `secret.${k}`);
}

/** Helper modules as one text, each under a `# module <name>.py` line, for a line diff. */
function modulesText(value: unknown): string {
  const list = Array.isArray(value) ? (value as Partial<UdfHeader>[]) : [];
  return list
    .map((h) => `# module ${h.moduleName}.py\n${h.code ?? ""}${(h.code ?? "").endsWith("\n") || !h.code ? "" : "\n"}`)
    .join("");
}

export const udfTraits: ReconcileTraits = {
  phase: 3,
  addressPrefix: "udf",
  // A UDF without a canvas is named by its slug alone: a preview target's name_prefix wraps it
  // (one on a canvas is apart already, its canvas's name wrapped).
  nameInput: (address) => (address.startsWith("udf.") && !address.includes("/") ? "slug" : undefined),
  // Notes and widgets are UDF records too, told apart by their metadata (udf-variant.ts).
  variantPrefixes: VARIANT_PREFIXES.filter((p) => p !== "udf"),
  // The slug and collection_id change in place.
  renames: { identity: udfIdentity },
  references: [{ field: "canvasId", ref: "canvas" }],
  textFields: { code: "text", headers: modulesText, metadata: "json" },
  observeGroup: "canvas",
  // UDFs without a canvas (`udf.<slug>`): no canvas answer carries them.
  observeOutside: {
    wants: (address) => address.startsWith("udf.") && !address.includes("/"),
    read: (ctx, named) =>
      observeCanvasless(ctx, {
        recorded: named.recorded,
        declared: named.declared.map((d) => ({ slug: String(d.inputs.slug) })),
      }),
  },
  layout: { ref: "canvas", changes: layoutChanges, apply: layoutCanvases },
  // A listing cannot tell whether a per-UDF shared token was asked for: the inventory can.
  keep: ({ state }) => ({ createSharedToken: state.createSharedToken }),
  readKept: (state, kept) =>
    typeof kept.createSharedToken === "boolean" ? { ...state, createSharedToken: kept.createSharedToken } : state,
  tokenOf: (state) => state.sharedToken,
  uses: secretsRead,
  cascade: { effect: "deleted", why: "the platform deletes a canvas's UDFs with it" },
  // UDFs on this project's canvases.
  unmanaged: {
    within: "Canvas",
    parents: "declared",
    parentId: (o) => String(o.state.canvasId),
    address: (o, canvas) => `${variantOf(o.state.metadata)}.${canvas}/${o.state.slug}`,
  },
};
