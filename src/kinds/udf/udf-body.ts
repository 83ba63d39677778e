/**
 * The JSON `udf_body` of a UDF (see platform facts): built from a Udf's inputs and parsed back
 * from the platform. Building is pure and deterministic: keys are sorted at every level, so equal
 * inputs give byte-identical bodies and a body only changes when its content does.
 */
import { canonicalJson } from "../../canonical-json";

export { canonicalJson };

/** A helper module importable by the UDF's code (`import utils`). */
export interface UdfHeader {
  /** Python module name, e.g. `utils` (its file is `utils.py`). */
  moduleName: string;
  /** The module's Python source. */
  code: string;
}

/** The parts of a body a Udf manages. */
export interface UdfBodyParts {
  /** The UDF name; the slug. */
  name: string;
  entrypoint: string;
  code: string;
  headers: UdfHeader[];
  metadata: Record<string, unknown>;
}

/** Every body is of this type today (platform facts). */
export const UDF_BODY_TYPE = "geopandas_v2";

/**
 * The `udf_body` string for these parts.
 *
 * @example
 * buildUdfBody({ name: "hello", entrypoint: "udf", code: "def udf(): ...", headers: [], metadata: {} })
 * // '{"code":"def udf(): ...","entrypoint":"udf","headers":[],"metadata":{},"name":"hello",...}'
 */
export function buildUdfBody(p: UdfBodyParts): string {
  // The same text, put together in the keys' sorted order (an apply builds one per UDF it sends).
  if (
    typeof p.name === "string" &&
    typeof p.entrypoint === "string" &&
    typeof p.code === "string" &&
    Array.isArray(p.headers) &&
    p.headers.every((h) => typeof h?.moduleName === "string" && typeof h.code === "string") &&
    p.metadata !== null &&
    typeof p.metadata === "object" &&
    !Array.isArray(p.metadata)
  ) {
    const headers = p.headers.map(
      (h) =>
        `{"module_name":${JSON.stringify(h.moduleName)},"source_code":${JSON.stringify(h.code)},"source_file":${JSON.stringify(`${h.moduleName}.py`)}}`,
    );
    return `{"code":${JSON.stringify(p.code)},"entrypoint":${JSON.stringify(p.entrypoint)},"headers":[${headers.join(",")}],"metadata":${canonicalJson(p.metadata)},"name":${JSON.stringify(p.name)},"original_headers":null,"parameters":{},"table_schema":null,"type":${JSON.stringify(UDF_BODY_TYPE)}}`;
  }
  return canonicalBody(p);
}

/** {@link buildUdfBody} by the general rule: the canonical JSON of the body's object. */
export function canonicalBody(p: UdfBodyParts): string {
  return canonicalJson({
    name: p.name,
    type: UDF_BODY_TYPE,
    entrypoint: p.entrypoint,
    code: p.code,
    headers: p.headers.map((h) => ({
      module_name: h.moduleName,
      source_file: `${h.moduleName}.py`,
      source_code: h.code,
    })),
    metadata: p.metadata,
    parameters: {},
    table_schema: null,
    original_headers: null,
  });
}

/** The body of empty parts: its keys, punctuation and fixed values, the metadata's `{}` aside. */
const EMPTY_BODY_UNITS =
  buildUdfBody({ name: "", entrypoint: "", code: "", headers: [], metadata: {} }).length - "{}".length;
/** What each helper module adds besides its name (twice: `module_name` and `source_file`) and code, with its comma. */
const EMPTY_HEADER_UNITS = canonicalJson({ module_name: "", source_file: ".py", source_code: "" }).length + ",".length;

/**
 * At least the bytes of the body as a request sends it (`JSON.stringify(buildUdfBody(p))`: the
 * body is a JSON string inside the request's JSON), without building it: the request-size check
 * of every UDF a repository loads builds nothing when this is within the limit. Each UTF-16 unit
 * of a string part becomes at most 7 bytes through both encodings (a control character is
 * `\u00XX` in the body, whose backslash the request escapes again; a non-ASCII character is at
 * most 3 bytes of UTF-8), and each unit of the metadata's JSON and of the keys and punctuation at
 * most 3 (a quote or backslash escaped again, or a character's UTF-8).
 */
export function udfBodySentBytesAtMost(p: UdfBodyParts): number {
  let units = p.name.length + p.entrypoint.length + p.code.length;
  for (const h of p.headers) units += 2 * h.moduleName.length + h.code.length;
  const fixed = EMPTY_BODY_UNITS + p.headers.length * EMPTY_HEADER_UNITS + canonicalJson(p.metadata).length;
  return 7 * units + 3 * fixed + 2;
}

/**
 * The managed parts of a body as the platform holds it. Tolerant: a body that is not a JSON object
 * (plain code saved by hand, or by another tool) is taken as all code, with the other parts empty,
 * so a diff against desired inputs shows that code and the next update rewrites the body.
 */
export function parseUdfBody(text: string): UdfBodyParts {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const isObject = raw !== null && typeof raw === "object" && !Array.isArray(raw);
  // A body that is not a JSON object (plain code saved by hand) is all code: diffs and drift show it.
  const o: Record<string, unknown> = isObject ? (raw as Record<string, unknown>) : { code: text };
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const headers = Array.isArray(o.headers) ? o.headers : [];
  return {
    name: str(o.name),
    entrypoint: str(o.entrypoint),
    code: str(o.code),
    headers: headers.map((h: any) => ({ moduleName: str(h?.module_name), code: str(h?.source_code) })),
    metadata:
      o.metadata !== null && typeof o.metadata === "object" && !Array.isArray(o.metadata)
        ? (o.metadata as Record<string, unknown>)
        : {},
  };
}

/** Whether two body strings hold the same content, whatever their key order or spacing. */
export function sameUdfBody(a: string, b: string): boolean {
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return a === b;
  }
}
