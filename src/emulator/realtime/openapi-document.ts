/**
 * The OpenAPI 3.1 document of a shared canvas (spec 4.4, `{udf_base_url}/<canvas_token>.api.json`):
 * one operation per UDF at `/<slug>` on the server `{udf_base_url}/<canvas_token>`, and for a UDF
 * whose entrypoint takes a tile (`bounds`, `bbox`, `tile`, or `x`, `y` and `z`) one more at
 * `/<slug>/tiles/{z}/{x}/{y}`. Query parameters come from the entrypoint's signature as Python's
 * `ast` reads it: annotation → JSON type, literal default → default; lists and dicts are sent as
 * JSON text. Pure: the caller gathers the descriptions.
 */
import type { UdfDescription, UdfParameter, UdfRunFailure } from "../udf-runner";

export interface DocumentedUdf {
  id: string;
  slug: string;
  /** `fused:description` of the body's metadata, when set. */
  description?: string;
  /** The entrypoint as read by Python, or why it could not be read; undefined without Python. */
  entrypoint: UdfDescription | UdfRunFailure | undefined;
}

export interface CanvasDocumentInput {
  canvasName: string;
  lastUpdated: string;
  /** `{udf_base_url}/<URL-encoded canvas token>`. */
  serverUrl: string;
  /** The token carries team scope: runs need `svc_session_token`. */
  teamOnly: boolean;
  hasPasscode: boolean;
  udfs: DocumentedUdf[];
  /** Set when no Python was available to read signatures: why. */
  signaturesUnavailable?: string;
}

/** Names through which a tile run hands the UDF its tile. */
export const TILE_PARAMETERS = new Set(["bounds", "bbox", "tile", "x", "y", "z"]);

function takesTile(params: UdfParameter[]): boolean {
  const names = new Set(params.map((p) => p.name));
  return (
    names.has("bounds") ||
    names.has("bbox") ||
    names.has("tile") ||
    (names.has("x") && names.has("y") && names.has("z"))
  );
}

function queryParameter(p: UdfParameter): Record<string, unknown> {
  const type = p.type ?? "string";
  const schema: Record<string, unknown> = { type };
  if (p.default !== undefined && p.default !== null) schema.default = p.default;
  const base = { name: p.name, in: "query", required: p.required };
  // Lists and dicts travel as JSON text in the query (the runner decodes them per the annotation).
  if (type === "array" || type === "object") return { ...base, content: { "application/json": { schema } } };
  return { ...base, schema };
}

const FORMAT_PARAMETER = {
  name: "format",
  in: "query",
  required: false,
  description: "Output format: json (dicts, lists, scalars, DataFrames as records) or csv (tables)",
  schema: { type: "string", enum: ["json", "csv"], default: "json" },
};

const tileCoordinate = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "integer", minimum: 0 },
});

function responses(input: CanvasDocumentInput) {
  const error = (description: string) => ({
    description,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  });
  return {
    "200": {
      description:
        "The UDF's output in the requested format. Header X-Svc-Metadata holds stdout, stderr and whether the result was cached.",
      content: { "application/json": { schema: {} }, "text/csv": { schema: { type: "string" } } },
    },
    ...(input.teamOnly || input.hasPasscode
      ? { "401": error("Missing or wrong passcode, or no valid session token") }
      : {}),
    "404": error("Unknown, rotated or unshared token, or no such UDF on the canvas"),
    "422": error(
      "Invalid parameters, or the UDF failed (the detail holds the Python traceback) or passed the run time limit",
    ),
    "501": error("The server has no Python interpreter to run UDFs"),
  };
}

function operations(u: DocumentedUdf, input: CanvasDocumentInput): Record<string, unknown> {
  const entry = u.entrypoint?.ok ? u.entrypoint : undefined;
  const params = entry?.parameters ?? [];
  const description = u.description ?? entry?.doc ?? undefined;
  const common = { ...(description ? { description } : {}), "x-udf-id": u.id, responses: responses(input) };
  const out: Record<string, unknown> = {
    [`/${encodeURIComponent(u.slug)}`]: {
      get: {
        operationId: u.slug,
        summary: `Run ${u.slug}`,
        ...common,
        parameters: [...params.map(queryParameter), FORMAT_PARAMETER],
      },
    },
  };
  if (takesTile(params)) {
    out[`/${encodeURIComponent(u.slug)}/tiles/{z}/{x}/{y}`] = {
      get: {
        operationId: `${u.slug}_tile`,
        summary: `Run ${u.slug} for one web-mercator tile`,
        ...common,
        parameters: [
          tileCoordinate("z", "Zoom level, 0 to 30"),
          tileCoordinate("x", "Tile column, 0 to 2^z - 1"),
          tileCoordinate("y", "Tile row, 0 to 2^z - 1"),
          ...params.filter((p) => !TILE_PARAMETERS.has(p.name)).map(queryParameter),
          FORMAT_PARAMETER,
        ],
      },
    };
  }
  return out;
}

/** The document; deterministic for the same input. */
export function canvasOpenApiDocument(input: CanvasDocumentInput): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const u of input.udfs) Object.assign(paths, operations(u, input));
  const securitySchemes: Record<string, unknown> = {};
  if (input.teamOnly) {
    securitySchemes.sessionToken = {
      type: "apiKey",
      in: "query",
      name: "svc_session_token",
      description: "A session token minted for this canvas token (POST /session-token/by-access-token/{canvas_token})",
    };
  }
  if (input.hasPasscode) {
    securitySchemes.passcode = {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description: "The canvas passcode as: Svc-Canvas-Passcode <passcode>",
    };
  }
  const requirement = Object.fromEntries(Object.keys(securitySchemes).map((k) => [k, []]));
  const description = `UDFs shared on canvas ${input.canvasName}.${input.signaturesUnavailable ? ` Parameters are not listed: ${input.signaturesUnavailable}` : ""}`;
  return {
    openapi: "3.1.0",
    info: { title: input.canvasName, version: input.lastUpdated, description },
    servers: [{ url: input.serverUrl }],
    ...(Object.keys(requirement).length ? { security: [requirement] } : {}),
    paths,
    components: {
      schemas: {
        Error: { type: "object", properties: { detail: { type: ["string", "array"] } }, required: ["detail"] },
      },
      ...(Object.keys(securitySchemes).length ? { securitySchemes } : {}),
    },
  };
}
