/**
 * The JSON `udf_body` of a UDF (see platform facts): built from a Udf's inputs and parsed back
 * from the platform. Building is pure and deterministic: keys are sorted at every level, so equal
 * inputs give byte-identical bodies and a body only changes when its content does.
 */
import { canonicalJson } from "../canonical-json";

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
  return canonicalJson({
    name: p.name,
    type: UDF_BODY_TYPE,
    entrypoint: p.entrypoint,
    code: p.code,
    headers: p.headers.map((h) => ({ module_name: h.moduleName, source_file: `${h.moduleName}.py`, source_code: h.code })),
    metadata: p.metadata,
    parameters: {},
    table_schema: null,
    original_headers: null,
  });
}

/**
 * The managed parts of a body as the platform holds it. Tolerant: a body that is not a JSON object
 * (written by another tool) gives empty parts, so a diff against desired inputs shows a change
 * and the next update rewrites it.
 */
export function parseUdfBody(text: string): UdfBodyParts {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const o = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const headers = Array.isArray(o.headers) ? o.headers : [];
  return {
    name: str(o.name),
    entrypoint: str(o.entrypoint),
    code: str(o.code),
    headers: headers.map((h: any) => ({ moduleName: str(h?.module_name), code: str(h?.source_code) })),
    metadata: o.metadata !== null && typeof o.metadata === "object" && !Array.isArray(o.metadata) ? (o.metadata as Record<string, unknown>) : {},
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
