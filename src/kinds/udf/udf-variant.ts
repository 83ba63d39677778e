/**
 * What a UDF record is on its canvas. The platform keeps canvas furniture as ordinary UDF records
 * told apart by their metadata: `isNodeTemplate: true` with `nodeTemplateType: "textbox"` is a
 * sticky note (its code is Markdown), with `"json_ui"` a widget (its code is a JSON document);
 * every other record is a UDF (Python). One kind, Udf, manages all three (the same CRUD, key and
 * observation); the variant decides the address prefix, the file a repository holds it in and
 * whether it can be checked as Python or run.
 */

export type UdfVariant = "udf" | "note" | "widget";

/** The `nodeTemplateType` of each variant that is canvas furniture. */
export const NODE_TEMPLATE_TYPES = { note: "textbox", widget: "json_ui" } as const;

/** The repository file of each variant's code, by extension. */
export const VARIANT_EXTENSIONS: Readonly<Record<UdfVariant, string>> = { udf: ".py", note: ".md", widget: ".json" };

/** Every address prefix a Udf object may have: `udf.`, `note.`, `widget.`. */
export const VARIANT_PREFIXES: readonly UdfVariant[] = ["udf", "note", "widget"];

/** The variant of a record with this metadata (the body's `metadata` object). */
export function variantOf(metadata: unknown): UdfVariant {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return "udf";
  const m = metadata as Record<string, unknown>;
  if (m.isNodeTemplate !== true) return "udf";
  if (m.nodeTemplateType === NODE_TEMPLATE_TYPES.note) return "note";
  if (m.nodeTemplateType === NODE_TEMPLATE_TYPES.widget) return "widget";
  return "udf";
}

/** The metadata keys a note's or widget's file extension implies, which its `<slug>.yaml` may leave out. */
export function impliedMetadata(variant: UdfVariant): Record<string, unknown> {
  if (variant === "udf") return {};
  return { isNodeTemplate: true, nodeTemplateType: NODE_TEMPLATE_TYPES[variant] };
}

/** The variant an address names by its prefix (`note.sales/intro`), or undefined. */
export function variantOfAddress(address: string): UdfVariant | undefined {
  const prefix = address.slice(0, address.indexOf("."));
  return (VARIANT_PREFIXES as readonly string[]).includes(prefix) ? (prefix as UdfVariant) : undefined;
}

/** What a variant is called in messages. */
export const VARIANT_NOUN: Readonly<Record<UdfVariant, string>> = { udf: "UDF", note: "note", widget: "widget" };
