/**
 * UDFs without a canvas (`collection_id` null) as repository files, the way the loader reads them:
 * in svc-iac's layout `udfs/<slug>.py` with a `udfs/<slug>.yaml` only when the UDF has settings
 * beyond its code (helper modules under `udfs/lib/<slug>/`); in the platform's layout
 * `udfs/<slug>/meta.json` with the code in a `source` file beside it and its helper modules listed
 * in `headers`. Bound under `udf.<slug>`, key `/<slug>`.
 */
import type { Udf as ApiUdf } from "../../api/schemas";
import { parseUdfBody } from "../../kinds/udf/udf-body";
import { inputDefault } from "../../kinds/definition-views";
import { udfDefinition } from "../../kinds/udf/definition";
import { udfKey } from "../../kinds/udf/resource";
import { VARIANT_NOUN, variantOf } from "../../kinds/udf/udf-variant";
import { CANVASLESS } from "../load/canvas-files";
import { byString } from "../phases";
import { losses, unwritable } from "./canvas-files";
import type { DraftBuilder } from "./draft";
import { writeRecordFolder } from "./platform-layout-files";
import { literalData, yamlText } from "./yaml-text";

const DEFAULT_ENTRYPOINT = inputDefault<string>(udfDefinition, "entrypoint");

/** Writes the UDFs without a canvas `list` in `layout`; records their bindings. */
export function importCanvaslessUdfs(
  list: readonly ApiUdf[],
  draft: DraftBuilder,
  layout: "svc-iac" | "platform",
): void {
  // Folders and files are told apart without regard to case on some file systems.
  const taken = new Set<string>();
  for (const u of [...list].sort((a, b) => byString(a.slug, b.slug) || byString(a.id, b.id))) {
    const early = unwritable(u);
    const parts = early ? undefined : parseUdfBody(u.udf_body);
    const variant = parts ? variantOf(parts.metadata) : "udf";
    const why =
      early ??
      (variant !== "udf"
        ? `it is a ${VARIANT_NOUN[variant]} without a canvas, which the repository format keeps only on a canvas`
        : undefined) ??
      (taken.has(u.slug.toLowerCase())
        ? "another UDF without a canvas has the same slug, or one differing only in case"
        : undefined) ??
      (layout === "platform" && parts?.headers.some((h) => h.moduleName === u.slug)
        ? `its helper module ${JSON.stringify(u.slug)} would be written to its own code's file, ${u.slug}.py`
        : undefined);
    if (why || !parts) {
      draft.skip(`udf ${JSON.stringify(u.slug).slice(1, -1)} (without a canvas)`, u.id, why ?? "");
      continue;
    }
    taken.add(u.slug.toLowerCase());
    const address = `udf.${u.slug}`;
    const lost = losses(u);
    if (lost.length)
      draft.note(
        `${address}: the repository format does not keep its ${lost.join(", ")}; the next update of its code writes the defaults`,
      );
    if (layout === "platform") writePlatformLayout(u, parts, address, draft);
    else writeSvcLayout(u, parts, address, draft);
    draft.bind({ address, kind: "Udf", id: u.id, key: udfKey({ slug: u.slug }), kept: { createSharedToken: false } });
  }
}

function writeSvcLayout(u: ApiUdf, parts: ReturnType<typeof parseUdfBody>, address: string, draft: DraftBuilder) {
  draft.file(`${CANVASLESS}/${u.slug}.py`, parts.code, address);
  const settings: Record<string, unknown> = {};
  if (parts.entrypoint && parts.entrypoint !== DEFAULT_ENTRYPOINT) settings.entrypoint = parts.entrypoint;
  if (Object.keys(parts.metadata).length) settings.metadata = literalData(parts.metadata);
  if (parts.headers.length)
    settings.headers = parts.headers.map((h) => {
      const file = `lib/${u.slug}/${h.moduleName}.py`;
      draft.file(`${CANVASLESS}/${file}`, h.code, address);
      return { module: h.moduleName, file };
    });
  if (Object.keys(settings).length) draft.file(`${CANVASLESS}/${u.slug}.yaml`, yamlText(settings), address);
}

function writePlatformLayout(u: ApiUdf, parts: ReturnType<typeof parseUdfBody>, address: string, draft: DraftBuilder) {
  writeRecordFolder(draft, `${CANVASLESS}/${u.slug}`, u.slug, ".py", parts, address);
}
