/**
 * What a rule sees of an object: the object's fields by the names the repository writes them
 * (snake_case: `access_scope`, `passcode`), secret fields as the text `(sensitive)` (so neither a
 * rule nor a message can read a secret value), integers as CEL ints. Each kind's declared field
 * names come from its definition (`src/kinds/<kind>/definition.ts`), so a rule naming a field no
 * kind declares is an error at compile time, not a silent false. Pure.
 */
import { KIND_DEFINITIONS } from "../kinds/definitions";
import type { KindDefinition } from "../kinds/kind-definition";

/** How a secret field's value reads in a rule and in a message. */
export const SENSITIVE = "(sensitive)";

/** The kind names rules use (`kind == 'canvas'`), as addresses write them, by the definition's kind. */
export const RULE_KIND_NAMES: Readonly<Record<string, string>> = {
  Canvas: "canvas",
  Udf: "udf",
  CanvasShare: "share",
  Cronjob: "cronjob",
  Secret: "secret",
  ServiceAccount: "service_account",
  BucketPolicy: "bucket_policy",
  SessionToken: "session_token",
};

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

interface KindView {
  /** Field (camelCase, as inputs and states name it) → the name rules use. */
  names: Map<string, string>;
  secrets: Set<string>;
  /** Every name a rule may use for this kind. */
  declared: Set<string>;
}

function viewOf(d: KindDefinition): KindView {
  const names = new Map<string, string>();
  const declared = new Set<string>(["name", "protect"]);
  for (const [key, k] of Object.entries(d.repository?.keys ?? {})) {
    const field = k.field ?? k.input;
    if (field) names.set(field, key);
    declared.add(key);
  }
  const secrets = new Set<string>();
  for (const [field, f] of [...Object.entries(d.inputs), ...Object.entries(d.outputs)]) {
    const name = names.get(field) ?? snake(field);
    names.set(field, name);
    declared.add(name);
    if (f.secret) secrets.add(field);
  }
  return { names, secrets, declared };
}

const VIEWS: ReadonlyMap<string, KindView> = new Map(
  KIND_DEFINITIONS.flatMap((d) => (RULE_KIND_NAMES[d.kind] ? [[RULE_KIND_NAMES[d.kind]!, viewOf(d)] as const] : [])),
);

/** Every kind name rules may compare `kind` with. */
export const RULE_KINDS: readonly string[] = [...VIEWS.keys()].sort();

/** The field names a rule may read on objects of `kinds` (every kind when none is named), sorted. */
export function declaredFields(kinds?: readonly string[]): string[] {
  const out = new Set<string>();
  for (const k of kinds?.length ? kinds : RULE_KINDS) for (const f of VIEWS.get(k)?.declared ?? []) out.add(f);
  return [...out].sort();
}

/** A JSON-like value as CEL takes it: whole numbers as ints, `undefined` dropped, depth bounded. */
export function celValue(v: unknown, depth = 0): unknown {
  if (depth > 32) return null;
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === "bigint" || typeof v === "string" || typeof v === "boolean" || v === null) return v;
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map((x) => celValue(x, depth + 1));
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>))
      if (x !== undefined) out[k] = celValue(x, depth + 1);
    return out;
  }
  return null;
}

/**
 * The object as rules see it: `fields` (inputs or an observed state, camelCase) renamed to the
 * repository's names, secrets (and fingerprints of them) as {@link SENSITIVE}. `extra` adds fields
 * the engine keeps beside the inputs (`protect`).
 */
export function ruleObject(
  kind: string,
  fields: Readonly<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const view = VIEWS.get(kind);
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const name = view?.names.get(field) ?? snake(field);
    const secret = view?.secrets.has(field) || /fingerprint$/i.test(field);
    out[name] = secret ? SENSITIVE : celValue(value);
    // A platform's object holds a secret as its fingerprint: the secret is set (`has(object.passcode)`).
    const of = /^(.+)Fingerprint$/.exec(field)?.[1];
    if (of && view?.secrets.has(of) && value) out[view.names.get(of) ?? snake(of)] = SENSITIVE;
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = celValue(v);
  return out;
}

/** The rule name of a fields change (`accessScope` → `access_scope`). */
export function ruleFieldName(kind: string, field: string): string {
  return VIEWS.get(kind)?.names.get(field) ?? snake(field);
}
