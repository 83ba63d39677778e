/**
 * Repository files as the loader reads them back, byte for byte the same on every run: keys in
 * the order given (callers sort user-named keys), no line folding, and every `${` in a value from
 * the platform written as `$${`, so the loader takes it literally instead of as a reference.
 */
import { stringify } from "yaml";
import { sortKeysDeep } from "../../canonical-json";

/** A value from the platform, with `${` escaped at every level (strings only; keys are never resolved). */
export function literal(value: unknown): unknown {
  if (typeof value === "string") return value.split("${").join("$${");
  if (Array.isArray(value)) return value.map(literal);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, literal(v)]));
  }
  return value;
}

/** Free-form data from the platform (metadata, arguments): keys sorted at every level, references escaped. */
export const literalData = (value: unknown): unknown => literal(sortKeysDeep(value));

/**
 * YAML text for `doc`, after `comment` lines (each prefixed with `# `). An empty document is
 * written as `{}` so the file still reads as a mapping.
 */
export function yamlText(doc: Record<string, unknown>, comment: readonly string[] = []): string {
  const head = comment.map((l) => (l ? `# ${l}` : "#")).join("\n");
  const body = stringify(doc, {
    lineWidth: 0,
    minContentWidth: 0,
    indent: 2,
    indentSeq: true,
    aliasDuplicateObjects: false,
  });
  return `${head ? `${head}\n` : ""}${body}`;
}
