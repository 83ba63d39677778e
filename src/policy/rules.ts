/**
 * Reads and compiles a rules file (`policies.yaml`): `rules:`, a list of rules, each with `name`,
 * `description`, `match` and `rule` (CEL), `message` (with `{{ CEL }}` placeholders), `severity`
 * (`mandatory` | `advisory`), `scope` (`object` | `plan`) and `exempt` (`{address, reason}`).
 * Every error is located at `file:line:column`: YAML, unknown keys, CEL that does not parse, names
 * and fields no rule can read, functions CEL does not have. Pure (the text is given).
 */
import { createHash } from "node:crypto";
import type * as CelLibrary from "@bufbuild/cel";
import { isMap, isScalar, isSeq, type Node, type Pair } from "yaml";
import { SvcError } from "../errors";
import type { LoadError, SourceLocation } from "../model/desired";
import { Diagnostics, didYouMean, describeFound } from "../repository/diagnostics";
import { locate, parseYaml, unalias, type SourceDoc } from "../repository/yaml-source";
import { declaredFields, RULE_KINDS } from "./fields";
import { tick } from "./meter";
import type { CompiledExpression, CompiledRule, MessagePart, PolicySet, RuleScope, Severity } from "./model";

/** The CEL library (`@bufbuild/cel`), loaded by {@link loadCel} when rules are first compiled. */
export type Cel = typeof CelLibrary;
let celLoaded: Promise<Cel> | undefined;
/**
 * Loads the CEL library once. It is loaded lazily (`import()`), so that `require("svc-iac")` and
 * the commands of a repository without rules do not pay for it.
 */
export function loadCel(): Promise<Cel> {
  // Node loads the library's ES module build here and its CommonJS build for a static import
  // (pulumi-pack.ts): the two are alike, and know each other's values (Symbol.for).
  celLoaded ??= import("@bufbuild/cel") as unknown as Promise<Cel>;
  return celLoaded;
}

const RULE_KEYS = ["name", "description", "match", "rule", "message", "severity", "scope", "exempt"] as const;
/** The names an object rule reads; a plan rule reads `plan` only. */
export const OBJECT_NAMES = ["object", "current", "kind", "address", "action", "changed"] as const;
export const PLAN_NAMES = ["plan"] as const;
/** What `plan.totals` counts, and the other fields of `plan`. */
export const PLAN_TOTALS = [
  "create",
  "update",
  "replace",
  "delete",
  "rename",
  "adopt",
  "share",
  "unshare",
  "rotate",
  "forget",
];
const PLAN_FIELDS = ["totals", "actions"];
/** An expression longer than this is refused (cost bound), as is nesting comprehensions deeper than {@link MAX_NESTING}. */
export const MAX_EXPRESSION_CHARS = 4096;
export const MAX_NESTING = 2;
const MAX_RULES = 500;

/** The function {@link metered} calls at each step of a comprehension. */
const TICK = "__svc_tick";

const envs = new WeakMap<Cel, CelLibrary.CelEnv>();
/**
 * The CEL environment every rule runs in: the names above, all dynamic (checked by
 * {@link staticErrors}), and the meter's tick.
 */
export function ruleEnv(cel: Cel): CelLibrary.CelEnv {
  let env = envs.get(cel);
  if (!env) {
    env = cel.celEnv({
      variables: Object.fromEntries([...OBJECT_NAMES, ...PLAN_NAMES].map((n) => [n, cel.CelScalar.DYN])),
      funcs: [cel.celFunc(TICK, [], cel.CelScalar.BOOL, tick)],
    });
    envs.set(cel, env);
  }
  return env;
}

type Parsed = ReturnType<Cel["parse"]>;
type Expr = NonNullable<Parsed["expr"]>;

export type RulesRead = { ok: true; set: PolicySet } | { ok: false; errors: LoadError[] };

/** The kinds a `match` names (`kind == 'canvas'`, `kind in ['udf', 'cronjob']`): the fields a rule may read are theirs. */
function matchedKinds(e: Expr | undefined): string[] {
  const out = new Set<string>();
  const walk = (x: Expr | undefined): void => {
    if (!x) return;
    const k = x.exprKind;
    if (k.case === "callExpr") {
      const [a, b] = k.value.args;
      const isKind = (n: Expr | undefined) => n?.exprKind.case === "identExpr" && n.exprKind.value.name === "kind";
      const str = (n: Expr | undefined): string[] =>
        n?.exprKind.case === "constExpr" && n.exprKind.value.constantKind.case === "stringValue"
          ? [n.exprKind.value.constantKind.value]
          : n?.exprKind.case === "listExpr"
            ? n.exprKind.value.elements.flatMap(str)
            : [];
      if ((k.value.function === "_==_" || k.value.function === "@in") && (isKind(a) || isKind(b)))
        for (const s of [...str(a), ...str(b)]) out.add(s);
      for (const arg of k.value.args) walk(arg);
      walk(k.value.target);
    }
  };
  walk(e);
  return [...out];
}

/**
 * Names, fields and functions an expression uses that no rule could read: each a message with
 * the offset in the expression it is at. `kinds` narrows the fields of `object` and `current`.
 */
function staticErrors(
  env: CelLibrary.CelEnv,
  expr: Expr,
  offsets: Record<string, number>,
  scope: RuleScope,
  kinds: readonly string[],
): { offset: number; message: string }[] {
  const errors: { offset: number; message: string }[] = [];
  const names: readonly string[] = scope === "plan" ? PLAN_NAMES : OBJECT_NAMES;
  const fields = declaredFields(kinds);
  const at = (x: Expr) => offsets[String(x.id)] ?? 0;
  const kindWords = kinds.length ? `of ${kinds.join(", ")}` : "of any kind";
  const walk = (x: Expr | undefined, locals: readonly string[], depth: number): void => {
    if (!x) return;
    const k = x.exprKind;
    switch (k.case) {
      case "identExpr": {
        const n = k.value.name;
        if (!locals.includes(n) && !names.includes(n)) {
          const other = scope === "plan" ? OBJECT_NAMES.includes(n as never) : n === "plan";
          errors.push({
            offset: at(x),
            message: other
              ? `"${n}" is not available in a scope: ${scope} rule; it reads ${names.join(", ")}`
              : `unknown name "${n}"; a scope: ${scope} rule reads ${names.join(", ")}${didYouMean(n, names)}`,
          });
        }
        return;
      }
      case "selectExpr": {
        const operand = k.value.operand;
        const field = k.value.field;
        const root = operand?.exprKind.case === "identExpr" ? operand.exprKind.value.name : undefined;
        if (root && !locals.includes(root)) {
          if ((root === "object" || root === "current") && !fields.includes(field))
            errors.push({
              offset: at(x),
              message: `unknown field "${field}" of ${root}: no object ${kindWords} has it${didYouMean(field, fields)}; fields: ${fields.join(", ")}`,
            });
          if (root === "plan" && !PLAN_FIELDS.includes(field))
            errors.push({
              offset: at(x),
              message: `unknown field "${field}" of plan; expected ${PLAN_FIELDS.join(" or ")}`,
            });
        }
        const inner = operand?.exprKind.case === "selectExpr" ? operand.exprKind.value : undefined;
        const innerRoot = inner?.operand?.exprKind.case === "identExpr" ? inner.operand.exprKind.value.name : undefined;
        if (
          innerRoot === "plan" &&
          !locals.includes("plan") &&
          inner?.field === "totals" &&
          !PLAN_TOTALS.includes(field)
        )
          errors.push({
            offset: at(x),
            message: `unknown field "${field}" of plan.totals; expected one of ${PLAN_TOTALS.join(", ")}${didYouMean(field, PLAN_TOTALS)}`,
          });
        walk(operand, locals, depth);
        return;
      }
      case "callExpr": {
        if (!/^[_@]/.test(k.value.function) && !env.funcs.find(k.value.function))
          errors.push({ offset: at(x), message: `unknown function "${k.value.function}"` });
        walk(k.value.target, locals, depth);
        for (const a of k.value.args) walk(a, locals, depth);
        return;
      }
      case "listExpr":
        for (const a of k.value.elements) walk(a, locals, depth);
        return;
      case "structExpr":
        for (const e of k.value.entries) {
          if (e.keyKind.case === "mapKey") walk(e.keyKind.value, locals, depth);
          walk(e.value, locals, depth);
        }
        return;
      case "comprehensionExpr": {
        const c = k.value;
        if (depth + 1 > MAX_NESTING)
          errors.push({
            offset: at(x),
            message: `comprehensions (all, exists, map, filter) nested ${depth + 1} deep; at most ${MAX_NESTING} (a rule's cost is bounded)`,
          });
        walk(c.iterRange, locals, depth);
        walk(c.accuInit, locals, depth);
        const inner = [...locals, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean);
        walk(c.loopCondition, inner, depth + 1);
        walk(c.loopStep, inner, depth + 1);
        walk(c.result, inner, depth + 1);
        return;
      }
      default:
        return;
    }
  };
  walk(expr, [], 0);
  return errors;
}

/** Where offset `offset` of a scalar's text is in the file (exact for one-line plain and quoted scalars). */
function positionIn(src: SourceDoc, node: Node, offset: number, path: string): SourceLocation {
  const base = locate(src, node, path);
  const quoted = isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE");
  const text = isScalar(node) ? String(node.value) : "";
  if (!isScalar(node) || node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED" || text.includes("\n"))
    return isScalar(node) && node.type?.startsWith("BLOCK") ? { ...base, line: base.line + 1 } : base;
  return { ...base, column: base.column + offset + (quoted ? 1 : 0) };
}

/**
 * `expr` with each comprehension's loop condition `c` made `__svc_tick() && c`: every step of
 * `all`, `exists`, `map`, `filter` reads the meter, which ends the evaluation once its time is
 * up (see meter.ts). Comprehensions are the only loops CEL has; the rest of an expression costs
 * in proportion to its size (bounded) and its data, and `matches` is RE2 (linear time).
 */
function metered(expr: Expr): Expr {
  let next = 1n << 40n;
  const node = (exprKind: Expr["exprKind"]): Expr => ({ $typeName: "cel.expr.Expr", id: next++, exprKind }) as Expr;
  const call = (fn: string, args: Expr[]): Expr =>
    node({ case: "callExpr", value: { $typeName: "cel.expr.Expr.Call", function: fn, args } as never });
  const walk = (x: Expr | undefined): void => {
    if (!x) return;
    const k = x.exprKind;
    switch (k.case) {
      case "selectExpr":
        walk(k.value.operand);
        return;
      case "callExpr":
        walk(k.value.target);
        for (const a of k.value.args) walk(a);
        return;
      case "listExpr":
        for (const a of k.value.elements) walk(a);
        return;
      case "structExpr":
        for (const e of k.value.entries) {
          if (e.keyKind.case === "mapKey") walk(e.keyKind.value);
          walk(e.value);
        }
        return;
      case "comprehensionExpr": {
        const c = k.value;
        for (const part of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) walk(part);
        if (c.loopCondition) c.loopCondition = call("_&&_", [call(TICK, []), c.loopCondition]);
        return;
      }
      default:
        return;
    }
  };
  walk(expr);
  return expr;
}

/** Compiles one CEL expression at `node`; reports its errors there. */
function compile(
  cel: Cel,
  src: SourceDoc,
  diag: Diagnostics,
  node: Node,
  path: string,
  text: string,
  scope: RuleScope,
  kinds: readonly string[],
  /** Where `text` starts in the scalar's value (a message's placeholder). */
  base = 0,
): CompiledExpression | undefined {
  if (text.length > MAX_EXPRESSION_CHARS) {
    diag.add({
      ...locate(src, node, path),
      message: `the expression has ${text.length} characters; at most ${MAX_EXPRESSION_CHARS}`,
    });
    return undefined;
  }
  let parsed: Parsed;
  try {
    parsed = cel.parse(text);
  } catch (e) {
    const loc = (e as { location?: { start?: { offset?: number } } }).location?.start?.offset ?? 0;
    const why = (e as Error).message.replace(/^<input>:\d+:\d+:\s*/, "");
    diag.add({ ...positionIn(src, node, base + loc, path), message: `CEL does not parse: ${why}` });
    return undefined;
  }
  const offsets = Object.fromEntries(
    Object.entries(parsed.sourceInfo?.positions ?? {}).map(([id, o]) => [String(id), Number(o)]),
  );
  const env = ruleEnv(cel);
  const problems = staticErrors(env, parsed.expr!, offsets, scope, kinds);
  for (const p of problems) diag.add({ ...positionIn(src, node, base + p.offset, path), message: p.message });
  if (problems.length) return undefined;
  const run = cel.plan(env, metered(parsed.expr!));
  return {
    source: text,
    eval: (bindings) => {
      const r = run(bindings as never);
      if (cel.isCelError(r)) throw new SvcError("policy_evaluation_failed", r.message);
      return r;
    },
  };
}

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;

/** Reads and compiles the rules in `text` (the file `file`, shown as `origin`) with `cel` (see {@link loadCel}). */
export function readRules(cel: Cel, file: string, text: string, origin = file): RulesRead {
  const diag = new Diagnostics();
  const src = parseYaml(file, text, diag);
  if (!src) return { ok: false, errors: diag.errors };
  const rules: CompiledRule[] = [];
  const top = unalias(src, src.doc.contents);
  const fail = (node: Node | null | undefined, path: string, message: string) =>
    diag.add({ ...locate(src, node, path), message });
  const entriesOf = (node: Node | null, path: string): Map<string, Pair<Node, Node | null>> | undefined => {
    if (!isMap(node)) {
      fail(
        node,
        path,
        `found ${describeFound(isSeq(node) ? [] : isScalar(node) ? node.value : undefined)}, expected a mapping`,
      );
      return undefined;
    }
    const out = new Map<string, Pair<Node, Node | null>>();
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "";
      if (out.has(key)) fail(pair.key, path, `duplicate key "${key}"; each key may appear once`);
      else out.set(key, pair);
    }
    return out;
  };
  const topKeys = entriesOf(top, "");
  if (!topKeys) return { ok: false, errors: diag.errors };
  for (const [key, pair] of topKeys)
    if (key !== "rules")
      fail(pair.key, key, `unknown key "${key}"; a rules file holds rules:${didYouMean(key, ["rules"])}`);
  const list = unalias(src, topKeys.get("rules")?.value);
  if (!topKeys.has("rules")) fail(top, "", "no rules: key; expected rules: with a list of rules");
  else if (list !== null && !isSeq(list)) fail(list, "rules", "expected a list of rules");
  const items = isSeq(list) ? (list.items as Node[]) : [];
  if (items.length > MAX_RULES) fail(list, "rules", `${items.length} rules; at most ${MAX_RULES}`);
  const names = new Map<string, SourceLocation>();
  for (const [i, item] of items.slice(0, MAX_RULES).entries()) {
    const path = `rules[${i}]`;
    const node = unalias(src, item);
    const keys = entriesOf(node, path);
    if (!keys) continue;
    for (const [key, pair] of keys)
      if (!RULE_KEYS.includes(key as never))
        fail(
          pair.key,
          `${path}.${key}`,
          `unknown key "${key}"; a rule has ${RULE_KEYS.join(", ")}${didYouMean(key, RULE_KEYS)}`,
        );
    const value = (key: string) => unalias(src, keys.get(key)?.value);
    const string = (key: string, required: boolean): { text: string; node: Node } | undefined => {
      const v = value(key);
      if (!keys.has(key)) {
        if (required) fail(node, path, `the rule has no ${key}:; ${key} is required`);
        return undefined;
      }
      if (!isScalar(v) || typeof v.value !== "string" || !v.value.trim()) {
        fail(
          v ?? keys.get(key)?.key,
          `${path}.${key}`,
          `found ${describeFound(isScalar(v) ? v.value : v ? {} : null)}, expected a text`,
        );
        return undefined;
      }
      return { text: v.value, node: v };
    };
    const name = string("name", true);
    const nameText = name?.text.trim();
    const ruleSource = locate(src, name?.node ?? node, `${path}.name`);
    if (nameText && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(nameText))
      fail(
        name!.node,
        `${path}.name`,
        `the rule name "${nameText.slice(0, 100)}" is not a name: letters, digits, _ . - (at most 100)`,
      );
    else if (nameText && names.has(nameText))
      fail(
        name!.node,
        `${path}.name`,
        `a second rule named "${nameText}" (the first at line ${names.get(nameText)!.line}); names are unique`,
      );
    else if (nameText) names.set(nameText, ruleSource);
    const word = <T extends string>(key: string, words: readonly T[], fallback: T): T | undefined => {
      const v = string(key, false);
      if (!v) return keys.has(key) ? undefined : fallback;
      if (!words.includes(v.text as T)) {
        fail(
          v.node,
          `${path}.${key}`,
          `found "${v.text.slice(0, 60)}", expected ${words.join(" or ")}${didYouMean(v.text, words)}`,
        );
        return undefined;
      }
      return v.text as T;
    };
    const severity = word<Severity>("severity", ["mandatory", "advisory"], "mandatory");
    const scope = word<RuleScope>("scope", ["object", "plan"], "object");
    const description = string("description", false);
    const matchText = string("match", false);
    const ruleText = string("rule", true);
    const messageText = string("message", true);
    if (scope === "plan" && matchText)
      fail(matchText.node, `${path}.match`, "a scope: plan rule runs once per plan and has no match:; remove it");
    const effectiveScope = scope ?? "object";
    let kinds: string[] = [];
    let match: CompiledExpression | undefined;
    if (matchText && effectiveScope === "object") {
      match = compile(cel, src, diag, matchText.node, `${path}.match`, matchText.text, "object", []);
      try {
        kinds = matchedKinds(cel.parse(matchText.text).expr);
      } catch {
        kinds = [];
      }
      for (const k of kinds)
        if (!RULE_KINDS.includes(k))
          fail(
            matchText.node,
            `${path}.match`,
            `unknown kind "${k}"; kinds are ${RULE_KINDS.join(", ")}${didYouMean(k, RULE_KINDS)}`,
          );
    }
    const rule =
      ruleText && compile(cel, src, diag, ruleText.node, `${path}.rule`, ruleText.text, effectiveScope, kinds);
    const message: MessagePart[] = [];
    if (messageText) {
      let last = 0;
      for (const m of messageText.text.matchAll(PLACEHOLDER)) {
        if (m.index! > last) message.push({ text: messageText.text.slice(last, m.index) });
        const expr = m[1]!.trim();
        const start = m.index! + 2 + (m[1]!.length - m[1]!.trimStart().length);
        const run = compile(cel, src, diag, messageText.node, `${path}.message`, expr, effectiveScope, kinds, start);
        if (run) message.push({ expr, run });
        last = m.index! + m[0].length;
      }
      if (last < messageText.text.length) message.push({ text: messageText.text.slice(last) });
    }
    const exempt: { address: string; reason: string }[] = [];
    const exemptNode = value("exempt");
    if (keys.has("exempt") && exemptNode !== null) {
      if (!isSeq(exemptNode)) fail(exemptNode, `${path}.exempt`, "expected a list of {address, reason}");
      else
        for (const [j, e] of (exemptNode.items as Node[]).entries()) {
          const ePath = `${path}.exempt[${j}]`;
          const eKeys = entriesOf(unalias(src, e), ePath);
          if (!eKeys) continue;
          for (const [key, pair] of eKeys)
            if (key !== "address" && key !== "reason")
              fail(pair.key, `${ePath}.${key}`, `unknown key "${key}"; an exemption has address and reason`);
          const get = (k: string) => {
            const v = unalias(src, eKeys.get(k)?.value);
            return isScalar(v) && typeof v.value === "string" && v.value.trim() ? v.value.trim() : undefined;
          };
          const address = get("address");
          const reason = get("reason");
          if (!address)
            fail(unalias(src, e), ePath, "the exemption has no address: (the object's address, e.g. canvas.sales)");
          if (!reason) fail(unalias(src, e), ePath, "the exemption has no reason: (why the rule does not apply to it)");
          if (address && reason) exempt.push({ address, reason });
        }
    }
    if (nameText && severity && scope && rule && messageText && (!matchText || match || effectiveScope === "plan"))
      rules.push({
        name: nameText,
        ...(description ? { description: description.text.trim() } : {}),
        severity,
        scope,
        ...(match ? { match } : {}),
        rule,
        message,
        exempt,
        source: ruleSource,
      });
  }
  if (diag.count) return { ok: false, errors: diag.errors };
  const digest = `sha256:${createHash("sha256").update(text).digest("hex")}`;
  return { ok: true, set: { origin, digest, rules } };
}
