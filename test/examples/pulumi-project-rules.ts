/**
 * A Pulumi project file (`Pulumi.yaml`) checked as the Pulumi CLI checks it when it loads a project,
 * written here after reading Pulumi's project schema (`sdk/go/common/workspace/project.json`) and
 * the checks of `Project.Validate` (`sdk/go/common/workspace/project.go`) in the pulumi repository,
 * read with the project's search tool; not copied. The CLI refuses a file that breaks any of them,
 * so an example that breaks one would fail at the reader's first `pulumi up`.
 *
 * The schema's shape (types of the top-level keys, runtime, plugins, a config declaration's closed
 * set of keys) is checked with Ajv; the rules the schema cannot say are `configRules` below.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { isMap, isScalar, LineCounter, parseDocument, type Node } from "yaml";

const nullable = (type: string) => ({ type: [type, "null"] });
const SIMPLE_TYPES = ["string", "integer", "boolean", "array"];
const pluginOptions = {
  type: "object",
  properties: { name: { type: "string" }, path: { type: "string" }, version: { type: "string" } },
};
const PROJECT_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    description: nullable("string"),
    author: nullable("string"),
    website: nullable("string"),
    license: nullable("string"),
    runtime: {
      oneOf: [
        { type: "string", minLength: 1 },
        {
          type: "object",
          properties: { name: { type: "string", minLength: 1 }, options: { type: "object" } },
          additionalProperties: false,
        },
      ],
    },
    main: nullable("string"),
    config: {
      type: ["object", "null"],
      additionalProperties: {
        oneOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }, { $ref: "#/$defs/configDeclaration" }],
      },
    },
    stackConfigDir: nullable("string"),
    backend: {
      type: ["object", "null"],
      properties: { url: { type: "string" } },
      additionalProperties: false,
    },
    plugins: {
      type: "object",
      properties: {
        providers: { type: "array", items: pluginOptions },
        analyzers: { type: "array", items: pluginOptions },
        languages: { type: "array", items: pluginOptions },
      },
    },
  },
  $defs: {
    itemsType: {
      type: "object",
      required: ["type"],
      properties: {
        type: { oneOf: [{ enum: SIMPLE_TYPES }, { $ref: "#/$defs/itemsType" }] },
        items: { $ref: "#/$defs/itemsType" },
      },
    },
    configDeclaration: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: { enum: SIMPLE_TYPES },
        items: { $ref: "#/$defs/itemsType" },
        description: { type: "string" },
        secret: { type: "boolean" },
        default: {},
        value: {},
      },
    },
  },
};

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateShape = ajv.compile(PROJECT_SCHEMA);

export interface ProjectFinding {
  /** 1-based line in the file (or the page, for a fenced block). */
  line: number;
  /** Where in the document, e.g. `config.svc:baseUrl.type`. */
  path: string;
  message: string;
}

/** A key is the project's own when it has no namespace or the project's name as namespace. */
const ownKey = (project: string | undefined, key: string) =>
  !key.includes(":") || (project !== undefined && key.startsWith(`${project}:`));

const isTypeOf = (type: string, value: unknown): boolean =>
  type === "string"
    ? typeof value === "string"
    : type === "integer"
      ? Number.isInteger(value) || (typeof value === "string" && /^-?\d+$/.test(value))
      : type === "boolean"
        ? typeof value === "boolean" || value === "true" || value === "false"
        : Array.isArray(value);

/** `Project.Validate`'s rules for each config key. */
function configRules(project: string | undefined, config: Record<string, unknown>): Omit<ProjectFinding, "line">[] {
  const out: Omit<ProjectFinding, "line">[] = [];
  for (const [key, decl] of Object.entries(config)) {
    if (decl === null || typeof decl !== "object" || Array.isArray(decl)) continue; // a plain value
    const d = decl as { type?: string; items?: unknown; default?: unknown; value?: unknown };
    const at = `config.${key}`;
    if (d.default !== undefined && d.value !== undefined)
      out.push({ path: at, message: `config "${key}" has both "default" and "value"; expected one of them` });
    if (ownKey(project, key)) {
      if (d.type === "array" && d.items === undefined)
        out.push({ path: `${at}.type`, message: `config "${key}" declares an array without "items"` });
      if (d.type !== undefined && d.default !== undefined && !isTypeOf(d.type, d.default))
        out.push({
          path: `${at}.default`,
          message: `the default of config "${key}" is ${JSON.stringify(d.default)}; expected a value of type ${d.type}`,
        });
      continue;
    }
    const owner = key.slice(0, key.indexOf(":"));
    const whose = `config "${key}" belongs to package "${owner}", not to project "${project}"`;
    if (d.type !== undefined)
      out.push({
        path: `${at}.type`,
        message: `${whose}, so it must not declare a type (found type: ${d.type}); the package declares it`,
      });
    if (d.default !== undefined)
      out.push({ path: `${at}.default`, message: `${whose}, so it takes "value", not "default"` });
    if (d.value === undefined)
      out.push({
        path: at,
        message: `${whose}: declared here it needs a "value" (or leave it out and run pulumi config set ${key} …)`,
      });
  }
  return out;
}

/** The line of the node at `path` (keys of maps), or of the deepest node found on the way. */
function lineOf(doc: ReturnType<typeof parseDocument>, lines: LineCounter, path: string[]): number {
  let node: Node | null | undefined = doc.contents as Node;
  let offset = node?.range?.[0] ?? 0;
  for (const key of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (!pair) break;
    offset = (pair.key as Node).range?.[0] ?? offset;
    node = pair.value as Node;
  }
  return lines.linePos(offset).line;
}

/**
 * Every rule `text` breaks, as the CLI would refuse it. `fragment`: a part of a project file shown
 * in the documentation, where `name` and `runtime` may be left out.
 */
export function checkPulumiProject(text: string, opts: { fragment?: boolean } = {}): ProjectFinding[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length)
    return doc.errors.map((e) => ({ line: e.linePos?.[0].line ?? 1, path: "", message: `not YAML: ${e.message}` }));
  const data = doc.toJS() as Record<string, unknown>;
  const found: Omit<ProjectFinding, "line">[] = [];
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return [{ line: 1, path: "", message: "expected a mapping of project keys" }];
  if (!opts.fragment) {
    if (typeof data.name !== "string" || data.name === "") found.push({ path: "name", message: 'missing "name"' });
    else if (!/^[A-Za-z0-9_.-]+$/.test(data.name))
      found.push({
        path: "name",
        message: `name "${data.name}"; expected letters, digits, "-", "_" and "." only`,
      });
    if (data.runtime === undefined) found.push({ path: "runtime", message: 'missing "runtime"' });
  }
  if (!validateShape(data)) {
    for (const e of validateShape.errors ?? []) {
      if (e.keyword === "oneOf" || e.keyword === "if") continue; // the branch's own error says more
      const path = e.instancePath.split("/").slice(1).map(decodeURIComponent);
      found.push({ path: path.join("."), message: `${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}` });
    }
  }
  if (data.config && typeof data.config === "object")
    found.push(...configRules(typeof data.name === "string" ? data.name : undefined, data.config as never));
  return found.map((f) => ({ ...f, line: lineOf(doc, lines, f.path ? splitPath(f.path) : []) }));
}

/** `config.svc:baseUrl.type` → ["config", "svc:baseUrl", "type"] (a config key may hold a ":"; never a "."). */
const splitPath = (path: string) => path.split(".");
