/**
 * What a real-time run executes: the `step_config` of spec 4.4 (a JSON-serialized UDF
 * configuration), or a saved UDF named by the shared-UDF host.
 *
 * Accepted `step_config` shapes (the spec does not show one):
 * 1. a UDF body as in `notes/platform-facts.md`: `{"name", "entrypoint", "code", "headers", "parameters", ...}`;
 * 2. that body wrapped: `{"udf": <body>, "parameters": {...}}` (also with `"type": "udf"`);
 * 3. a saved UDF by id: `{"udf_id": "<id>", "parameters": {...}}` or `{"udf": {"id": "<id>"}}`.
 * Parameters are the body's `parameters` overlaid with the step config's `parameters`. A saved UDF
 * must be readable by the caller (its team's, or on a public canvas), else 404.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../canonical-json";
import { canReadUdf, udfById, type UdfRow } from "../catalog";
import { HttpError, notFound } from "../http-error";
import type { Principal } from "../principal";
import type { Store } from "../store";
import type { UdfBodyInput, UdfHeaderModule } from "../udf-runner";

export interface RunTarget {
  body: UdfBodyInput;
  /** The saved UDF run, when the run names one (its cache entries are cleared with it). */
  udfId: string | null;
  parameters: Record<string, unknown>;
  /** Hash of what determines the result's code: code, entrypoint and helper modules. */
  runHash: string;
}

const stepError = (msg: string, loc: (string | number)[] = []) =>
  new HttpError(422, [{ loc: ["body", "step_config", ...loc], msg, type: "value_error" }]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Hash of the parts of a body that decide what a run computes. */
export function runHash(body: UdfBodyInput): string {
  const headers = (body.headers ?? []).map((h) => ({ module_name: h.module_name, source_code: h.source_code ?? "" }));
  return createHash("sha256")
    .update(canonicalJson({ code: body.code, entrypoint: body.entrypoint ?? "udf", headers }))
    .digest("hex");
}

/** The runnable parts of a parsed body object, or a message saying what is wrong with it. */
function bodyFrom(raw: Record<string, unknown>): { body: UdfBodyInput; parameters: Record<string, unknown> } | string {
  if (typeof raw.code !== "string") return 'the UDF body has no "code" string';
  if (
    raw.entrypoint !== undefined &&
    raw.entrypoint !== null &&
    (typeof raw.entrypoint !== "string" || !/^[A-Za-z_]\w*$/.test(raw.entrypoint))
  ) {
    return '"entrypoint" must be the name of a Python function';
  }
  const headers: UdfHeaderModule[] = [];
  if (raw.headers !== undefined && raw.headers !== null) {
    if (!Array.isArray(raw.headers)) return '"headers" must be a list of {module_name, source_file, source_code}';
    for (const [i, h] of raw.headers.entries()) {
      if (!isObject(h) || typeof h.module_name !== "string" || !/^[A-Za-z_]\w*$/.test(h.module_name)) {
        return `headers[${i}] needs a "module_name" that is a Python module name`;
      }
      headers.push({
        module_name: h.module_name,
        source_file: typeof h.source_file === "string" ? h.source_file : undefined,
        source_code: typeof h.source_code === "string" ? h.source_code : "",
      });
    }
  }
  const body: UdfBodyInput = {
    code: raw.code,
    entrypoint: typeof raw.entrypoint === "string" ? raw.entrypoint : "udf",
    headers,
    name: typeof raw.name === "string" && /^[\w.-]+$/.test(raw.name) ? raw.name : undefined,
  };
  return { body, parameters: isObject(raw.parameters) ? raw.parameters : {} };
}

/** A saved UDF as a run target (its stored body parsed), or 422 when the stored body cannot run. */
export function savedUdfTarget(u: UdfRow, parameters: Record<string, unknown> = {}): RunTarget {
  let raw: unknown;
  try {
    raw = JSON.parse(u.udf_body);
  } catch {
    raw = undefined;
  }
  const parsed = isObject(raw) ? bodyFrom(raw) : "its udf_body is not a JSON object";
  if (typeof parsed === "string") throw new HttpError(422, `UDF "${u.slug}" cannot run: ${parsed}`);
  const body = { ...parsed.body, name: parsed.body.name ?? u.slug };
  return { body, udfId: u.id, parameters: { ...parsed.parameters, ...parameters }, runHash: runHash(body) };
}

/** Parses `step_config`; 422 at `body.step_config` naming what is wrong, 404 for an unreadable saved UDF. */
export function parseStepConfig(store: Store, p: Principal, text: string): RunTarget {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (e) {
    throw stepError(`step_config must be a JSON-serialized UDF configuration: ${(e as Error).message}`);
  }
  if (!isObject(config))
    throw stepError('step_config must be a JSON object: a UDF body, {"udf": <body>}, or {"udf_id": <id>}');
  if (config.parameters !== undefined && !isObject(config.parameters))
    throw stepError("parameters must be an object", ["parameters"]);
  const overlay = (config.parameters as Record<string, unknown> | undefined) ?? {};
  const inner = isObject(config.udf) ? config.udf : undefined;
  const id =
    typeof config.udf_id === "string"
      ? config.udf_id
      : inner && typeof inner.id === "string" && typeof inner.code !== "string"
        ? inner.id
        : undefined;
  if (id !== undefined) {
    const u = udfById(store, id);
    if (!u || !canReadUdf(store, u, p)) throw notFound("UDF not found");
    return savedUdfTarget(u, overlay);
  }
  const raw = inner ?? config;
  const parsed = bodyFrom(raw);
  if (typeof parsed === "string") throw stepError(parsed, inner ? ["udf"] : []);
  const parameters = inner ? { ...parsed.parameters, ...overlay } : parsed.parameters;
  return { body: parsed.body, udfId: null, parameters, runHash: runHash(parsed.body) };
}
