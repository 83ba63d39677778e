/**
 * Values YAML can write but JSON cannot carry to the platform unchanged. Every value the
 * repository holds is sent as JSON, and the platform stores what arrives: `.nan` and `.inf` arrive
 * as `null`, `12345678901234567890` as another number, a lone surrogate as a replacement
 * character, `!!binary` and `!!timestamp` as something else again. A plan would then compare what
 * was written with what was stored and never settle, so such values are refused where they are
 * written.
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";

const CORE_TAG = "tag:yaml.org,2002:";
/** Collections the `yaml` library builds as JavaScript Sets and Maps, which JSON does not carry. */
const COLLECTION_TAGS = new Set([`${CORE_TAG}set`, `${CORE_TAG}omap`, `${CORE_TAG}pairs`]);
/** A whole number as YAML writes one: decimal, `0x`, `0o`. */
const WRITTEN_INTEGER = /^[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** `!!binary`, `!custom`. */
const tagText = (tag: string) => (tag.startsWith(CORE_TAG) ? `!!${tag.slice(CORE_TAG.length)}` : tag);

/**
 * Why `node`'s own value cannot be sent as JSON unchanged, as `found …, expected …`; undefined when
 * it can. Only the node itself is checked, not what a collection holds.
 */
export function unsendableValue(node: Node): string | undefined {
  if ((isMap(node) || isSeq(node)) && node.tag && COLLECTION_TAGS.has(node.tag)) {
    return `found a collection tagged ${tagText(node.tag)}, which JSON cannot carry; expected a plain list or mapping (without the tag)`;
  }
  if (!isScalar(node)) return undefined;
  const value = node.value;
  const written = node.source ?? String(value);
  if (typeof value === "number") return unsendableNumber(value, written);
  if (typeof value === "string") {
    const lone = LONE_SURROGATE.exec(value);
    if (lone) {
      const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
      return `found a string holding \\u${code}, half of a surrogate pair, which UTF-8 cannot carry (the platform would store a replacement character); expected whole characters`;
    }
    return undefined;
  }
  if (value === null || typeof value === "boolean") return undefined;
  const tag = node.tag ? ` tagged ${tagText(node.tag)}` : "";
  return `found a value${tag}, which JSON cannot carry as written; expected a string, a number, true or false, or an empty value (without the tag)`;
}

function unsendableNumber(value: number, written: string): string | undefined {
  if (Number.isNaN(value) || !Number.isFinite(value)) {
    const reads = Number.isNaN(value) ? "not a number" : value > 0 ? "infinity" : "minus infinity";
    return `found ${written} (${reads}), which JSON cannot carry: the platform would store null; expected a finite number, or "${written}" in quotes for the text`;
  }
  if (!Number.isSafeInteger(value) && Number.isInteger(value) && WRITTEN_INTEGER.test(written)) {
    return `found ${written}, a whole number beyond ${Number.MAX_SAFE_INTEGER} that JSON carries as ${value}, so the platform would store another number; expected a smaller number, or "${written}" in quotes for the text`;
  }
  return undefined;
}
