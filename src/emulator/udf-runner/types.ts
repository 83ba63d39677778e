/** Inputs and answers of the UDF runner (`runUdf`, `describeUdf`). */

/** A helper module of a UDF body, importable by `module_name` from the UDF's code. */
export interface UdfHeaderModule {
  module_name: string;
  /** @default `<module_name>.py` (shown in tracebacks) */
  source_file?: string;
  source_code?: string;
}

/**
 * The parts of a parsed UDF body (`notes/platform-facts.md`) that a run needs. Other body fields
 * (metadata, type, ...) may be present and are ignored.
 */
export interface UdfBodyInput {
  /** Python source of the main module; the entrypoint is decorated with `@fused.udf(...)`. */
  code: string;
  /** Function to call. @default "udf" */
  entrypoint?: string;
  headers?: readonly UdfHeaderModule[];
  /** Names the main module's file in tracebacks (`<name>.py`). @default "udf" */
  name?: string;
}

/** A web-mercator tile with its lon/lat bounds `[west, south, east, north]`. */
export interface RunTile {
  z: number;
  x: number;
  y: number;
  bounds: [number, number, number, number];
}

export interface UdfRunRequest {
  body: UdfBodyInput;
  /**
   * Keyword arguments of the entrypoint. A string value is converted to the parameter's annotated
   * type (`int`, `float`, `bool`, `list`, `dict`), as query strings of the shared host give strings.
   * @default {}
   */
  parameters?: Record<string, unknown>;
  /**
   * For a tile run: passed to the entrypoint as `bounds` (list), `tile` / `bbox` (object with
   * z, x, y, bounds) and `z`, `x`, `y`, each only when the signature names it.
   */
  tile?: RunTile;
  /** `json` (dicts, lists, scalars, DataFrames as records) or `csv` (DataFrames, lists of objects or rows). @default "json" */
  format?: "json" | "csv";
  /** Run time limit; the process and its children are killed when it passes. @default 60000 */
  timeoutMs?: number;
  /** Interpreter command or path. @default "python3" */
  python?: string;
  /** Working directory of the UDF process. @default the emulator's */
  cwd?: string;
  /** Extra environment variables for the UDF process (the emulator's own are not passed on). */
  env?: Record<string, string>;
  /** Aborting it kills the process and its children; the run then fails with kind `stopped`. */
  signal?: AbortSignal;
}

export interface UdfRunSuccess {
  ok: true;
  /** `outputText` decoded when it is JSON, else the text itself. */
  value: unknown;
  /** The serialized output, as an HTTP answer carries it. */
  outputText: string;
  contentType: string;
  /** `cache_max_age` of the entrypoint's decorator in seconds; null when it declares none. */
  cacheMaxAgeSeconds: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface UdfRunFailure {
  ok: false;
  /**
   * `exception`: the UDF (or its output's serialization) raised; `timeout`: killed at the limit;
   * `stopped`: killed through the abort signal; `no-python`: no interpreter (or, in a single-file
   * bundle, no runner script).
   */
  kind: "exception" | "timeout" | "stopped" | "no-python";
  /** One line, for an error detail. */
  message: string;
  /** Python traceback starting in the UDF's code (exceptions only). */
  traceback?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export type UdfRunResult = UdfRunSuccess | UdfRunFailure;

export interface UdfDescribeRequest {
  bodies: readonly Pick<UdfBodyInput, "code" | "entrypoint" | "name">[];
  timeoutMs?: number;
  python?: string;
  signal?: AbortSignal;
}

/** A parameter of the entrypoint, as its signature declares it. */
export interface UdfParameter {
  name: string;
  /** The annotation's source text, e.g. `int` or `fused.types.Bounds`; null when unannotated. */
  annotation: string | null;
  /** JSON Schema type the annotation maps to, when it maps to one. */
  type: "integer" | "number" | "boolean" | "string" | "array" | "object" | null;
  /** True when the parameter has no default. */
  required: boolean;
  /** The default, when it is a literal. */
  default?: unknown;
}

export interface UdfDescription {
  ok: true;
  parameters: UdfParameter[];
  /** The entrypoint's docstring. */
  doc: string | null;
  cacheMaxAgeSeconds: number | null;
}

/** One description per body (in order), or the failure of the Python process as a whole. */
export type UdfDescribeResult = { ok: true; descriptions: (UdfDescription | UdfRunFailure)[] } | UdfRunFailure;
