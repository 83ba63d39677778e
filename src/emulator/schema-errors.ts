/**
 * Checks a parsed YAML document against a zod schema and reports every problem as the repository
 * loader does: at the value's `file:line:column`, with the path inside the document (`teams[0].billing`),
 * what was found and what was expected. Unknown and duplicate keys are reported by the loader's own
 * `MapReader`; zod's issues are worded from the schema, not from zod's messages.
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";
import type { z } from "zod";
import { describeFound, didYouMean, listAlternatives, Diagnostics } from "../repository/diagnostics";
import { joinPath, MapReader, type ReadContext } from "../repository/fields";
import { Resolver } from "../repository/variables";
import { locate, unalias, type SourceDoc } from "../repository/yaml-source";
import type { SourceLocation } from "../model/desired";

type Segment = string | number;
// zod's internal types differ between schema kinds; the walk only reads their public `def`.
type AnySchema = z.ZodType & { def: Record<string, any> } & Record<string, any>;

/** Paths of fields whose values are secrets: their values never appear in a message. */
const isSecretPath = (path: readonly Segment[]) => path[path.length - 1] === "token";

/** `teams[0].users[1].name`. */
export const pathText = (path: readonly Segment[]): string => path.reduce<string>((p, s) => joinPath(p, s), "");

/** Where a path points: its node, or (for a missing key) the deepest node along it. */
export function locatePath(src: SourceDoc, path: readonly Segment[]): SourceLocation {
  let node = deref(src, src.doc.contents as Node | null);
  for (const seg of path) {
    let next: Node | null | undefined;
    if (isMap(node))
      next = node.items.findLast((p) => isScalar(p.key) && String(p.key.value) === String(seg))?.value as Node | null;
    else if (isSeq(node) && typeof seg === "number") next = node.items[seg] as Node | null;
    next = deref(src, next ?? null);
    if (!next) break;
    node = next;
  }
  return locate(src, node, pathText(path));
}

const deref = (src: SourceDoc, node: Node | null): Node | null => unalias(src, node);

/** Every error of the document against `schema`; the parsed value when there are none. */
export function checkDocument<S extends z.ZodType>(
  src: SourceDoc,
  schema: S,
): { errors: Diagnostics; data: unknown; value?: z.output<S> } {
  const diag = new Diagnostics();
  const ctx: ReadContext = { src, diag, vars: new Resolver({ variables: {}, env: {}, target: "" }) };
  checkKeys(ctx, src.doc.contents as Node | null, schema as unknown as AnySchema, "");
  const data = src.doc.toJS({ maxAliasCount: 1000 }) as unknown;
  const r = schema.safeParse(data);
  if (!r.success)
    for (const issue of r.error.issues) reportIssue(src, diag, schema as unknown as AnySchema, data, issue, []);
  return { errors: diag, data, value: r.success && diag.count === 0 ? r.data : undefined };
}

/** Unknown and duplicate keys of every mapping the schema describes (zod sees neither duplicates nor positions). */
function checkKeys(ctx: ReadContext, node: Node | null, schema: AnySchema, path: string): void {
  node = deref(ctx.src, node);
  const s = unwrap(schema);
  if (s.def.type === "union") {
    const fit = s.def.options.map(unwrap).find((o: AnySchema) => (o.def.type === "object") === isMap(node));
    if (fit) checkKeys(ctx, node, fit, path);
  } else if (s.def.type === "object" && isMap(node)) {
    const shape = s.def.shape as Record<string, AnySchema>;
    const reader = new MapReader(ctx, node, path, Object.keys(shape));
    for (const e of reader.entries()) checkKeys(ctx, e.valueNode, shape[e.name], e.path);
  } else if ((s.def.type === "record" || s.def.type === "unknown") && isMap(node)) {
    new MapReader(ctx, node, path, "any"); // duplicates only
  } else if (s.def.type === "array" && isSeq(node)) {
    node.items.forEach((item, i) => checkKeys(ctx, item as Node | null, s.def.element, joinPath(path, i)));
  }
}

const unwrap = (s: AnySchema): AnySchema =>
  ["default", "optional", "nullable", "prefault", "readonly"].includes(s.def.type) ? unwrap(s.def.innerType) : s;

function schemaAt(schema: AnySchema, path: readonly Segment[]): AnySchema | undefined {
  let s: AnySchema | undefined = schema;
  for (const seg of path) {
    if (!s) return undefined;
    s = unwrap(s);
    // In a union, the branch that has this kind of member (a mapping for a key, a list for an index).
    if (s.def.type === "union")
      s = (s.def.options as AnySchema[])
        .map(unwrap)
        .find((o) => o.def.type === (typeof seg === "number" ? "array" : "object"));
    if (!s) return undefined;
    if (s.def.type === "object") s = s.def.shape[seg];
    else if (s.def.type === "array") s = s.def.element;
    else return undefined;
  }
  return s;
}

function valueAt(data: unknown, path: readonly Segment[]): unknown {
  let v = data;
  for (const seg of path) v = v !== null && typeof v === "object" ? (v as Record<Segment, unknown>)[seg] : undefined;
  return v;
}

function reportIssue(
  src: SourceDoc,
  diag: Diagnostics,
  root: AnySchema,
  data: unknown,
  issue: z.core.$ZodIssue,
  prefix: readonly Segment[],
): void {
  const path = [...prefix, ...(issue.path as Segment[])];
  if (issue.code === "unrecognized_keys") return; // reported by checkKeys, with the allowed keys
  if (issue.code === "invalid_union") {
    // A branch whose type matched holds the real problem (a bad `period` in a partition mapping).
    const matched = issue.errors.find((branch) => branch.some((i) => i.code !== "invalid_type" || i.path.length > 0));
    if (matched) {
      for (const i of matched) reportIssue(src, diag, root, data, i, path);
      return;
    }
  }
  const schema = schemaAt(root, path);
  const found = valueAt(data, path);
  const expected = expectedOf(issue, schema);
  const key = path[path.length - 1];
  const message =
    found === undefined && typeof key === "string"
      ? `required key "${key}" is missing; expected ${expected}`
      : `found ${describeValue(found, path)}, expected ${expected}${issue.code === "invalid_value" && typeof found === "string" ? didYouMean(found, issue.values.map(String)) : ""}`;
  diag.add({ ...locatePath(src, path), message });
}

function describeValue(v: unknown, path: readonly Segment[]): string {
  if (isSecretPath(path)) return describeSecret(v);
  if (Array.isArray(v) && v.length === 0) return "an empty list";
  return describeFound(v);
}

/** A secret as a message may show it: its kind and length, never its text. */
function describeSecret(v: unknown): string {
  if (typeof v === "string") return `a string of ${v.length} character${v.length === 1 ? "" : "s"}`;
  if (typeof v === "number" || typeof v === "boolean") return `a ${typeof v}`;
  return describeFound(v);
}

/** What the schema expects, in words: `true or false`, `a whole number from 0 to 15`, `"paid" or "basic"`. */
function expectedOf(issue: z.core.$ZodIssue, schema: AnySchema | undefined): string {
  if (issue.code === "invalid_format")
    return issue.message.startsWith("Invalid")
      ? `a string matching ${(issue as { pattern?: string }).pattern ?? issue.format}`
      : issue.message;
  if (issue.code === "too_small" && issue.origin === "array")
    return `a list of at least ${issue.minimum} entr${issue.minimum === 1 ? "y" : "ies"}`;
  return schema ? describeSchema(schema) : issue.message;
}

export function describeSchema(schema: AnySchema): string {
  const s = unwrap(schema);
  switch (s.def.type) {
    case "boolean":
      return "true or false";
    case "number":
      return describeNumber(s);
    case "string":
      return s.minLength > 1
        ? `a string of at least ${s.minLength} characters`
        : s.minLength === 1
          ? "a non-empty string"
          : "a string";
    case "enum":
      return listAlternatives(Object.values(s.def.entries).map(String));
    case "array":
      return "a list";
    case "object":
      return `a mapping with the keys ${Object.keys(s.def.shape).join(", ")}`;
    case "record":
      return "a mapping";
    case "union":
      return listAlternatives(s.def.options.map(describeSchema), false);
    default:
      return `a ${s.def.type}`;
  }
}

function describeNumber(s: AnySchema): string {
  const whole = s.isInt === true;
  const min = Number.isFinite(s.minValue) && Math.abs(s.minValue) < Number.MAX_SAFE_INTEGER ? s.minValue : undefined;
  const max = Number.isFinite(s.maxValue) && Math.abs(s.maxValue) < Number.MAX_SAFE_INTEGER ? s.maxValue : undefined;
  const kind = whole ? "a whole number" : "a number";
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} of at least ${min}`;
  if (max !== undefined) return `${kind} of at most ${max}`;
  return kind;
}
