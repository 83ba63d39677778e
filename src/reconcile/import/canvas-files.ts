/**
 * A platform canvas as repository files, the way `load/canvas-files.ts` reads them: `canvas.yaml`
 * (non-default settings, the passcode as an `${env.NAME}` placeholder, the share), one `<slug>.py`
 * per UDF with its code as is (`<slug>.md` per note, `<slug>.json` per widget), a `<slug>.yaml` only when the UDF has settings beyond its code, and
 * helper modules as `.py` files under `lib/`.
 */
import type { Canvas as ApiCanvas, Udf as ApiUdf } from "../../api/schemas";
import { UDF_BODY_TYPE, parseUdfBody } from "../../kinds/udf/udf-body";
import { tokenFingerprint } from "../../kinds/canvas-share/resource";
import type { FingerprintKey } from "../../kinds/fingerprint";
import { canvasDefinition } from "../../kinds/canvas/definition";
import { inputDefault } from "../../kinds/definition-views";
import { udfDefinition } from "../../kinds/udf/definition";
import { PATTERNS } from "../load/keys";
import { byString } from "../phases";
import type { DraftBuilder } from "./draft";
import { literal, literalData, yamlText } from "./yaml-text";
import { jsonProblem } from "../../repository/json-check";
import {
  impliedMetadata,
  VARIANT_EXTENSIONS,
  VARIANT_NOUN,
  variantOf,
  type UdfVariant,
} from "../../kinds/udf/udf-variant";

/** The UDFs of a canvas that became files: `<canvas>/<slug>` by UDF id (for cronjobs). */
export type ImportedUdfs = Map<string, string>;

const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");
const DEFAULT_ACCESS_SCOPE = inputDefault<string>(canvasDefinition, "accessScope");

/** Writes canvas `c` and its UDFs; records their bindings. */
export function importCanvas(
  c: ApiCanvas,
  preferredClientId: string | undefined,
  draft: DraftBuilder,
  udfs: ImportedUdfs,
  fingerprintKey?: FingerprintKey,
): void {
  const folder = `canvases/${c.name}`;
  if (skippedForItsName(c, draft)) return;
  draft.file(`${folder}/canvas.yaml`, canvasYaml(c, preferredClientId, draft), `canvas.${c.name}`);
  draft.bind({ address: `canvas.${c.name}`, kind: "Canvas", id: c.id, key: c.name });
  if (c.share_token) {
    const pinned = c.share_client_id && c.share_client_id !== preferredClientId ? c.share_client_id : undefined;
    draft.bind({
      address: `share.${c.name}`,
      kind: "CanvasShare",
      id: c.id,
      key: c.id,
      kept: {
        ...(pinned ? { clientId: pinned } : {}),
        accessScope: c.access_scope,
        mintedScope: c.access_scope,
        tokenFingerprint: tokenFingerprint(c.share_token, fingerprintKey),
      },
    });
  }
  const list = [...c.udfs].sort((a, b) => byString(a.slug, b.slug));
  const writePositions = !sameOrder(
    list,
    [...list].sort((a, b) => a.position - b.position || byString(a.slug, b.slug)),
  );
  const helpers = helperPaths(list);
  for (const u of list) {
    if (importUdf(c, u, { writePosition: writePositions, helpers }, draft) === "udf")
      udfs.set(u.id, `${c.name}/${u.slug}`);
  }
}

/** Whether canvas `c` is left out (listed under "Not imported") because no folder can bear its name; both layouts name canvases' folders after them. */
export function skippedForItsName(c: ApiCanvas, draft: DraftBuilder): boolean {
  if (PATTERNS.canvas.test(c.name)) return false;
  draft.skip(
    `canvas ${JSON.stringify(c.name)}`,
    c.id,
    `its name is not a folder name the repository format accepts ([A-Za-z0-9_]+)`,
  );
  return true;
}

function canvasYaml(c: ApiCanvas, preferredClientId: string | undefined, draft: DraftBuilder): string {
  const doc: Record<string, unknown> = {};
  if (c.access_scope !== DEFAULT_ACCESS_SCOPE) doc.access_scope = c.access_scope;
  if (c.allow_public_read) doc.allow_public_read = true;
  if (c.passcode)
    doc.passcode = `\${env.${draft.envVar(`${c.name.toUpperCase()}_PASSCODE`, `the passcode of canvas ${c.name}`)}}`;
  if (typeof c.dashboard_body === "string") doc.dashboard_body = literal(c.dashboard_body);
  if (c.preview_image_url) doc.preview_image_url = literal(c.preview_image_url);
  if (c.share_token) {
    const pinned = c.share_client_id && c.share_client_id !== preferredClientId;
    doc.share = pinned ? { client_id: c.share_client_id } : {};
  }
  const comment = [`Canvas ${c.name}, imported by svc-iac import.`];
  if (c.share_token) comment.push("Shared: the share keeps its token; set share.rotation to rotate it.");
  return yamlText(doc, comment);
}

const sameOrder = (a: ApiUdf[], b: ApiUdf[]) => a.every((u, i) => u.id === b[i]!.id);

/**
 * Where each helper module is written: `lib/<module>.py` when every UDF of the canvas that uses the
 * module has the same source, else `lib/<slug>/<module>.py` per UDF. Keyed `<slug>/<module>`.
 */
function helperPaths(list: ApiUdf[]): Map<string, string> {
  const sources = new Map<string, Set<string>>();
  for (const u of list) {
    for (const h of parseUdfBody(u.udf_body).headers)
      sources.set(h.moduleName, (sources.get(h.moduleName) ?? new Set()).add(h.code));
  }
  const out = new Map<string, string>();
  for (const u of list) {
    for (const h of parseUdfBody(u.udf_body).headers) {
      out.set(
        `${u.slug}/${h.moduleName}`,
        sources.get(h.moduleName)!.size === 1 ? `lib/${h.moduleName}.py` : `lib/${u.slug}/${h.moduleName}.py`,
      );
    }
  }
  return out;
}

interface UdfLayout {
  writePosition: boolean;
  helpers: Map<string, string>;
}

/** Why a UDF cannot be written as files, or undefined. */
export function unwritable(u: ApiUdf): string | undefined {
  if (!PATTERNS.slug.test(u.slug)) return "its slug is not a file name the repository format accepts ([A-Za-z0-9_-]+)";
  if (u.slug === "canvas") return 'its slug is "canvas", which the repository format reserves for canvas.yaml';
  let body: unknown;
  try {
    body = JSON.parse(u.udf_body);
  } catch {
    return "its udf_body is not JSON, so its code cannot be read";
  }
  if (
    body === null ||
    typeof body !== "object" ||
    Array.isArray(body) ||
    typeof (body as { code?: unknown }).code !== "string"
  )
    return "its udf_body holds no code";
  const parts = parseUdfBody(u.udf_body);
  if (parts.entrypoint && !PATTERNS.module.test(parts.entrypoint))
    return `its entrypoint ${JSON.stringify(parts.entrypoint)} is not a Python function name`;
  const bad = parts.headers.find((h) => !PATTERNS.module.test(h.moduleName));
  if (bad) return `its helper module ${JSON.stringify(bad.moduleName)} is not a Python module name`;
  const names = parts.headers.map((h) => h.moduleName);
  if (new Set(names).size !== names.length) return "two of its helper modules have the same name";
  return undefined;
}

/** Body fields the format does not keep: they are rewritten to the defaults on the UDF's next update. */
export function losses(u: ApiUdf): string[] {
  const raw = JSON.parse(u.udf_body) as Record<string, unknown>;
  const out: string[] = [];
  if (raw.name !== undefined && raw.name !== u.slug) out.push(`name ${JSON.stringify(raw.name)} (written as the slug)`);
  if (typeof raw.entrypoint !== "string" || raw.entrypoint === "")
    out.push(`entrypoint (none set; written as ${DEFAULT_ENTRYPOINT}, which the first plan applies)`);
  if (raw.type !== undefined && raw.type !== UDF_BODY_TYPE)
    out.push(`type ${JSON.stringify(raw.type)} (written as ${UDF_BODY_TYPE})`);
  if (raw.parameters !== undefined && JSON.stringify(raw.parameters) !== "{}") out.push("parameters");
  if (raw.table_schema !== undefined && raw.table_schema !== null) out.push("table_schema");
  if (raw.original_headers !== undefined && raw.original_headers !== null) out.push("original_headers");
  const headers = Array.isArray(raw.headers) ? (raw.headers as Record<string, unknown>[]) : [];
  for (const h of headers) {
    if (h?.source_file !== undefined && h.source_file !== `${h.module_name}.py`)
      out.push(
        `source_file ${JSON.stringify(h.source_file)} of module ${JSON.stringify(h.module_name)} (written as ${h.module_name}.py)`,
      );
  }
  return out;
}

/** Why a note or widget cannot be written as files its plan accepts, or undefined. */
function unwritableFurniture(variant: UdfVariant, parts: ReturnType<typeof parseUdfBody>): string | undefined {
  if (parts.headers.length)
    return `it is a ${VARIANT_NOUN[variant]} with helper modules, which a ${VARIANT_NOUN[variant]}'s files cannot hold`;
  if (parts.entrypoint && parts.entrypoint !== DEFAULT_ENTRYPOINT)
    return `it is a ${VARIANT_NOUN[variant]} with entrypoint ${JSON.stringify(parts.entrypoint)}, which a ${VARIANT_NOUN[variant]}'s files cannot hold`;
  return undefined;
}

/** Writes one UDF record as files; its variant, or undefined when it is listed under "Not imported". */
function importUdf(c: ApiCanvas, u: ApiUdf, layout: UdfLayout, draft: DraftBuilder): UdfVariant | undefined {
  const early = unwritable(u);
  const variant = early ? "udf" : variantOf(parseUdfBody(u.udf_body).metadata);
  const address = `${variant}.${c.name}/${u.slug}`;
  const why = early ?? (variant === "udf" ? undefined : unwritableFurniture(variant, parseUdfBody(u.udf_body)));
  if (why) {
    draft.skip(`${variant} ${c.name}/${JSON.stringify(u.slug).slice(1, -1)}`, u.id, why);
    return undefined;
  }
  const lost = losses(u);
  if (lost.length)
    draft.note(
      `${address}: the repository format does not keep its ${lost.join(", ")}; the next update of its code writes the defaults`,
    );
  const parts = parseUdfBody(u.udf_body);
  const folder = `canvases/${c.name}`;
  draft.file(`${folder}/${u.slug}${VARIANT_EXTENSIONS[variant]}`, parts.code, address);
  const settings: Record<string, unknown> = {};
  if (parts.entrypoint && parts.entrypoint !== DEFAULT_ENTRYPOINT) settings.entrypoint = parts.entrypoint;
  // A note's or widget's extension implies isNodeTemplate and nodeTemplateType: left out.
  const metadata = Object.fromEntries(Object.entries(parts.metadata).filter(([k]) => !(k in impliedMetadata(variant))));
  if (Object.keys(metadata).length) settings.metadata = literalData(metadata);
  if (parts.headers.length) {
    settings.headers = parts.headers.map((h) => {
      const file = layout.helpers.get(`${u.slug}/${h.moduleName}`)!;
      draft.file(`${folder}/${file}`, h.code, address);
      return { module: h.moduleName, file };
    });
  }
  // A widget whose code is no JSON document is kept as the platform holds it, its check off.
  const problem = variant === "widget" ? jsonProblem(parts.code) : undefined;
  if (problem) {
    settings.check = false;
    draft.note(
      `${address}: its code is not a JSON document (line ${problem.line}, column ${problem.column}: ${problem.message}); written with check: false in ${u.slug}.yaml, so plans deploy it as it is`,
    );
  }
  if (!u.is_visible) settings.visible = false;
  if (layout.writePosition) settings.position = u.position;
  if (Object.keys(settings).length) draft.file(`${folder}/${u.slug}.yaml`, yamlText(settings), address);
  draft.bind({ address, kind: "Udf", id: u.id, key: `${c.id}/${u.slug}`, kept: { createSharedToken: false } });
  return variant;
}
