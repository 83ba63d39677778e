/**
 * Typed reading of one YAML mapping with positions. Each accessor resolves variables, checks the
 * type and reports what was found and what was expected at the value's `file:line:column`;
 * unknown and duplicate keys are reported when the mapping is opened. A failed field reads as
 * `undefined`, so readers go on and every error of a file is reported.
 */
import { isMap, isScalar, isSeq, type Node, type Pair } from "yaml";
import { describeFound, didYouMean, listAlternatives, type Diagnostics } from "./diagnostics";
import type { ReferencedInput, SourceLocation } from "../model/desired";
import { unsendableValue } from "./json-values";
import { envNamesIn, firstReference, type Resolved, type Resolver } from "./variables";
import { formatCount, YAML_LIMITS } from "./yaml-limits";
import { locate, unalias, type SourceDoc } from "./yaml-source";

export interface ReadContext {
  src: SourceDoc;
  diag: Diagnostics;
  vars: Resolver;
  /** Where the document's values write a reference, in reading order (see {@link referencedInputs}). */
  written?: WrittenReference[];
  /** Characters the document's references have put into it so far (bounded by {@link YAML_LIMITS.referencedCharacters}). */
  referencedChars?: number;
}

/** A `${var.NAME}` / `${env.NAME}` reference written in a value; `path` is the value's path in the document. */
export interface WrittenReference extends SourceLocation {
  reference: string;
}

/** `share.rotate_every`, `headers[0].file`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

export function report(ctx: ReadContext, node: Node | null | undefined, path: string, message: string): void {
  ctx.diag.add({ ...locate(ctx.src, node, path), message });
}

const deref = (ctx: ReadContext, node: unknown): Node | null => unalias(ctx.src, node);

/**
 * A YAML node as plain data, with variables resolved in every string. Errors are reported, among
 * them values JSON cannot carry to the platform unchanged ({@link unsendableValue}).
 */
export function plainValue(ctx: ReadContext, node: Node | null, path: string): Resolved {
  node = deref(ctx, node);
  if (node === null) return { ok: true, value: null };
  const unsendable = unsendableValue(node);
  if (unsendable) {
    report(ctx, node, path, unsendable);
    return { ok: false };
  }
  if (isScalar(node)) {
    if (typeof node.value !== "string") return { ok: true, value: node.value };
    const r = ctx.vars.resolve(node.value);
    if (node.value.includes("${env."))
      for (const name of envNamesIn(node.value)) ctx.vars.plainEnvUses.push({ name, ...locate(ctx.src, node, path) });
    if (!r.ok && r.message) report(ctx, node, path, r.message);
    else if (!r.ok) ctx.vars.unresolvedIn.add(ctx.src.file);
    const reference = firstReference(node.value);
    if (reference) (ctx.written ??= []).push({ ...locate(ctx.src, node, path), reference });
    if (r.ok && r.value !== node.value && !chargeReference(ctx, node, path, reference ?? "${…}", r.value))
      return { ok: false };
    return r;
  }
  if (isSeq(node)) {
    const items = node.items.map((item, i) => plainValue(ctx, item as Node, joinPath(path, i)));
    return items.every((r) => r.ok)
      ? { ok: true, value: items.map((r) => (r as { value: unknown }).value) }
      : { ok: false };
  }
  if (isMap(node)) {
    const reader = new MapReader(ctx, node, path, "any");
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const e of reader.entries()) {
      const r = plainValue(ctx, e.valueNode, e.path);
      if (r.ok) out[e.name] = r.value;
      else ok = false;
    }
    return ok ? { ok: true, value: out } : { ok: false };
  }
  return { ok: true, value: null };
}

/** Counts what a reference put into the document; past the limit, reports it at the reference and returns false. */
function chargeReference(ctx: ReadContext, node: Node, path: string, reference: string, value: unknown): boolean {
  const added = ctx.vars.lengthOf(value);
  const before = ctx.referencedChars ?? 0;
  ctx.referencedChars = before + added;
  if (ctx.referencedChars <= YAML_LIMITS.referencedCharacters) return true;
  // Only the reference that passes the limit is reported; the ones after it are past it too.
  if (before <= YAML_LIMITS.referencedCharacters) {
    const limit = formatCount(YAML_LIMITS.referencedCharacters);
    report(
      ctx,
      node,
      path,
      `the reference ${reference} takes the text that references put into this file past the limit of ${limit} characters (it puts ${formatCount(added)}); use a shorter variable, or reference it fewer times`,
    );
  }
  return false;
}

export interface Entry {
  name: string;
  keyNode: Node;
  valueNode: Node | null;
  path: string;
}

interface StringRule {
  required?: boolean;
  pattern?: RegExp;
  /** What is expected, for messages: `letters, digits and "_" ([A-Za-z0-9_]+)`. */
  expected?: string;
}

/**
 * One mapping of a document. `keys` lists the keys it accepts (or `"any"` for user-named
 * entries such as targets and secrets).
 */
export class MapReader {
  private readonly pairs = new Map<string, Pair<Node, Node | null>>();
  /** False when the node is not a mapping (already reported). */
  readonly isMapping: boolean;

  constructor(
    private readonly ctx: ReadContext,
    readonly node: Node | null | undefined,
    readonly path: string,
    private readonly keys: readonly string[] | "any",
  ) {
    const n = deref(ctx, node);
    // An empty value (`share:`, `reader:`) is an empty mapping: every key takes its default.
    this.isMapping = n === null || isMap(n) || (isScalar(n) && n.value === null);
    if (!this.isMapping) {
      const expected = keys === "any" ? "a mapping" : `a mapping with the keys ${keys.join(", ")}`;
      report(ctx, n, path, `found ${describeFound(isSeq(n) ? [] : isScalar(n) ? n.value : {})}, expected ${expected}`);
      return;
    }
    if (isMap(n)) this.collect(n.items as Pair<Node, Node | null>[]);
  }

  private collect(items: Pair<Node, Node | null>[]): void {
    for (const pair of items) {
      const key = pair.key;
      if (!isScalar(key) || key.value === null || typeof key.value === "object") {
        report(this.ctx, key, this.path, `found a key that is not a plain name, expected a name`);
        continue;
      }
      const name = String(key.value);
      const first = this.pairs.get(name);
      if (first) {
        const at = locate(this.ctx.src, first.key, "");
        report(
          this.ctx,
          key,
          this.path,
          `duplicate key "${name}" (first at line ${at.line}); each key may appear once`,
        );
        continue;
      }
      if (this.keys !== "any" && !this.keys.includes(name)) {
        report(
          this.ctx,
          key,
          this.path,
          `unknown key "${name}"; expected one of ${this.keys.join(", ")}${didYouMean(name, this.keys)}`,
        );
        continue;
      }
      this.pairs.set(name, pair);
    }
  }

  has(key: string): boolean {
    return this.pairs.has(key);
  }

  /** The key's node (for locations of whole entries). */
  keyNode(key: string): Node | undefined {
    return this.pairs.get(key)?.key;
  }

  valueNode(key: string): Node | null {
    const pair = this.pairs.get(key);
    return pair ? deref(this.ctx, pair.value) : null;
  }

  /** The node an error about `key` points at: its value, else its key, else the mapping. */
  nodeOf(key: string): Node | null | undefined {
    return this.valueNode(key) ?? this.keyNode(key) ?? this.node;
  }

  /** Every entry, in document order (for user-named mappings). */
  entries(): Entry[] {
    return [...this.pairs.entries()].map(([name, pair]) => ({
      name,
      keyNode: pair.key,
      valueNode: deref(this.ctx, pair.value),
      path: joinPath(this.path, name),
    }));
  }

  /** Reports an error about `key` at its value. */
  fail(key: string, message: string): undefined {
    report(this.ctx, this.nodeOf(key), joinPath(this.path, key), message);
    return undefined;
  }

  /** The value with variables resolved; `undefined` when absent or failed (reported). */
  value(key: string): { value: unknown } | undefined {
    if (!this.pairs.has(key)) return undefined;
    const r = plainValue(this.ctx, this.valueNode(key), joinPath(this.path, key));
    return r.ok ? { value: r.value } : undefined;
  }

  private missing(key: string, expected: string): undefined {
    report(this.ctx, this.node, joinPath(this.path, key), `required key "${key}" is missing; expected ${expected}`);
    return undefined;
  }

  string(key: string, rule: StringRule = {}): string | undefined {
    const expected = rule.expected ?? "a string";
    if (!this.pairs.has(key)) return rule.required ? this.missing(key, expected) : undefined;
    const r = this.value(key);
    if (!r) return undefined;
    if (typeof r.value !== "string" || (rule.pattern && !rule.pattern.test(r.value))) {
      return this.fail(key, `found ${describeFound(r.value)}, expected ${expected}`);
    }
    return r.value;
  }

  /** A string, or a number taken as its text (trigger values such as `rotation: 1`). */
  text(key: string, expected: string): string | undefined {
    const r = this.value(key);
    if (!r) return undefined;
    if (typeof r.value === "number") return String(r.value);
    if (typeof r.value !== "string") return this.fail(key, `found ${describeFound(r.value)}, expected ${expected}`);
    return r.value;
  }

  boolean(key: string): boolean | undefined {
    const r = this.value(key);
    if (!r) return undefined;
    if (typeof r.value !== "boolean") return this.fail(key, `found ${describeFound(r.value)}, expected true or false`);
    return r.value;
  }

  integer(key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const r = this.value(key);
    if (!r) return undefined;
    const v = r.value;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      const range =
        max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
      return this.fail(key, `found ${describeFound(v)}, expected ${range}`);
    }
    return v;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const r = this.value(key);
    if (!r) return undefined;
    if (typeof r.value !== "string" || !values.includes(r.value as T)) {
      return this.fail(
        key,
        `found ${describeFound(r.value)}, expected ${listAlternatives(values)}${typeof r.value === "string" ? didYouMean(r.value, values) : ""}`,
      );
    }
    return r.value as T;
  }

  /** A plain mapping (free-form, e.g. metadata, args). */
  object(key: string, expected: string): Record<string, unknown> | undefined {
    const r = this.value(key);
    if (!r) return undefined;
    if (r.value === null || typeof r.value !== "object" || Array.isArray(r.value))
      return this.fail(key, `found ${describeFound(r.value)}, expected ${expected}`);
    return r.value as Record<string, unknown>;
  }

  /** A secret field: exactly one `${env.NAME}`; the value never appears in messages. */
  secret(key: string, label: string, opts: { allowEmpty: boolean }): string | undefined {
    if (!this.pairs.has(key)) return undefined;
    const node = this.valueNode(key);
    const raw = isScalar(node) ? node.value : node;
    const r = this.ctx.vars.resolveSecret(raw, label);
    if (!r.ok) return this.fail(key, r.message);
    if (r.value === "" && !opts.allowEmpty)
      return this.fail(key, `the value of ${r.envName} is empty; ${label} must not be empty (omit it for none)`);
    return r.value;
  }

  /** A nested mapping with fixed keys; an empty value (`share:`) reads as an empty mapping. */
  map(key: string, keys: readonly string[]): MapReader | undefined {
    if (!this.pairs.has(key)) return undefined;
    const m = new MapReader(this.ctx, this.valueNode(key), joinPath(this.path, key), keys);
    return m.isMapping ? m : undefined;
  }

  /** A list's items as nodes with their paths. */
  list(key: string, expected: string): { node: Node | null; path: string }[] | undefined {
    if (!this.pairs.has(key)) return undefined;
    const node = this.valueNode(key);
    if (node === null) return [];
    if (!isSeq(node))
      return this.fail(
        key,
        `found ${describeFound(isMap(node) ? {} : isScalar(node) ? node.value : null)}, expected ${expected}`,
      );
    return node.items.map((item, i) => ({ node: deref(this.ctx, item), path: joinPath(joinPath(this.path, key), i) }));
  }
}

/**
 * The inputs of one object whose values the document writes with a reference. `keys` maps each
 * input, named as plans and drift name it (`dashboardBody`), to the path it is read from
 * (`dashboard_body`, `share.client_id`); a reference anywhere inside that value counts, and the
 * first one read is named. Sorted by input, so the data is the same whatever the reading order.
 * Only values already read are seen: call it after reading the object's fields.
 */
export function referencedInputs(ctx: ReadContext, keys: Readonly<Record<string, string>>): ReferencedInput[] {
  const written = ctx.written ?? [];
  const within = (path: string, key: string) =>
    path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);
  const out: ReferencedInput[] = [];
  for (const field of Object.keys(keys).sort()) {
    const w = written.find((r) => within(r.path, keys[field]!));
    if (w)
      out.push({
        field,
        key: keys[field]!,
        reference: w.reference,
        source: { file: w.file, line: w.line, column: w.column, path: w.path },
      });
  }
  return out;
}

/** The document's root mapping. */
export function rootReader(ctx: ReadContext, keys: readonly string[] | "any"): MapReader {
  return new MapReader(ctx, ctx.src.doc.contents as Node | null, "", keys);
}
