/**
 * A platform canvas written in the platform's own git layout, the way `load/platform-layout.ts`
 * reads it: `<Canvas>/collection.json`, and per record `<Canvas>/<slug>/meta.json` with its code in
 * a `source` file beside it (`<slug>.py`, `.md` for a note, `.json` for a widget; never inline) and
 * its helper modules as `<module>.py` files listed in `headers`. What the layout cannot hold (a
 * canvas's access, passcode and share; a record's visibility) is named in the report's notes.
 */
import type { Canvas as ApiCanvas, Udf as ApiUdf } from "../../api/schemas";
import { canvasDefinition } from "../../kinds/canvas/definition";
import { inputDefault } from "../../kinds/definition-views";
import { UDF_BODY_TYPE, parseUdfBody } from "../../kinds/udf/udf-body";
import { udfDefinition } from "../../kinds/udf/definition";
import { VARIANT_EXTENSIONS, VARIANT_NOUN, variantOf } from "../../kinds/udf/udf-variant";
import { jsonProblem } from "../../repository/json-check";
import { byString } from "../phases";
import { losses, skippedForItsName, unwritable, type ImportedUdfs } from "./canvas-files";
import type { DraftBuilder } from "./draft";

const DEFAULT_ACCESS_SCOPE = inputDefault<string>(canvasDefinition, "accessScope");
const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Writes canvas `c` and its records in the platform's layout; records their bindings. */
export function importCanvasPlatformLayout(c: ApiCanvas, draft: DraftBuilder, udfs: ImportedUdfs): void {
  if (skippedForItsName(c, draft)) return;
  const address = `canvas.${c.name}`;
  const collection: Record<string, unknown> = { version: "1.0.0", name: c.name };
  if (typeof c.dashboard_body === "string") collection.dashboard_body = c.dashboard_body;
  if (c.preview_image_url) collection.preview_image_url = c.preview_image_url;
  draft.file(`${c.name}/collection.json`, json(collection), address);
  draft.bind({ address, kind: "Canvas", id: c.id, key: c.name });
  const lost = [
    ...(c.access_scope !== DEFAULT_ACCESS_SCOPE ? [`access_scope ${JSON.stringify(c.access_scope)}`] : []),
    ...(c.allow_public_read ? ["allow_public_read"] : []),
    ...(c.passcode ? ["passcode"] : []),
    ...(c.share_token ? ["share"] : []),
  ];
  if (lost.length)
    draft.note(
      `${address}: the platform's layout (collection.json) does not keep its ${lost.join(", ")}; the first plan sets the defaults back (import without --layout platform keeps them)`,
    );
  const taken = new Set<string>();
  for (const u of [...c.udfs].sort((a, b) => byString(a.slug, b.slug))) {
    if (importRecord(c, u, draft, taken)) udfs.set(u.id, `${c.name}/${u.slug}`);
  }
}

/** One record as `<Canvas>/<slug>/meta.json` and its files; false when it is listed under "Not imported". */
function importRecord(c: ApiCanvas, u: ApiUdf, draft: DraftBuilder, taken: Set<string>): boolean {
  const early = unwritable(u);
  const parts = early ? undefined : parseUdfBody(u.udf_body);
  const variant = parts ? variantOf(parts.metadata) : "udf";
  const address = `${variant}.${c.name}/${u.slug}`;
  // Folders are told apart without regard to case on some file systems.
  const why =
    early ??
    (taken.has(u.slug.toLowerCase()) ? "another record's folder differs from its slug only in case" : undefined) ??
    (variant !== "udf" && parts!.headers.length
      ? `it is a ${VARIANT_NOUN[variant]} with helper modules, which the loader refuses`
      : undefined) ??
    (parts?.headers.some((h) => h.moduleName === u.slug)
      ? `its helper module ${JSON.stringify(u.slug)} would be written to its own code's file, ${u.slug}.py`
      : undefined) ??
    (variant === "widget" && jsonProblem(parts!.code)
      ? "its code is not a JSON document, and the platform's layout has no per-record check (import without --layout platform writes it with check: false)"
      : undefined);
  if (why || !parts) {
    draft.skip(`${variant} ${c.name}/${JSON.stringify(u.slug).slice(1, -1)}`, u.id, why ?? "");
    return false;
  }
  taken.add(u.slug.toLowerCase());
  const lost = [...losses(u), ...(u.is_visible ? [] : ["visible: false"])];
  if (lost.length)
    draft.note(
      `${address}: the platform's layout as svc-iac reads it does not keep its ${lost.join(", ")}; the next update of its code writes the defaults`,
    );
  writeRecordFolder(draft, `${c.name}/${u.slug}`, u.slug, VARIANT_EXTENSIONS[variant], parts, address);
  draft.bind({ address, kind: "Udf", id: u.id, key: `${c.id}/${u.slug}`, kept: { createSharedToken: false } });
  return true;
}

/**
 * One record's folder in the platform's layout: its code in `<slug><ext>` (never inline), its
 * helper modules beside it, and `meta.json` naming them. Shared by canvas records and UDFs without a canvas.
 */
export function writeRecordFolder(
  draft: DraftBuilder,
  folder: string,
  slug: string,
  ext: string,
  parts: ReturnType<typeof parseUdfBody>,
  address: string,
): void {
  const source = `${slug}${ext}`;
  draft.file(`${folder}/${source}`, parts.code, address);
  const headers = parts.headers.map((h) => {
    draft.file(`${folder}/${h.moduleName}.py`, h.code, address);
    return { module_name: h.moduleName, source_file: `${h.moduleName}.py` };
  });
  const udf = {
    type: UDF_BODY_TYPE,
    name: slug,
    entrypoint: parts.entrypoint || DEFAULT_ENTRYPOINT,
    parameters: {},
    metadata: parts.metadata,
    headers,
    source,
  };
  const meta = {
    version: "0.0.3",
    job_config: { version: "0.0.3", name: null, steps: [{ type: "udf", udf }], metadata: null },
  };
  draft.file(`${folder}/meta.json`, json(meta), address);
}
