/**
 * Checks compiled rules on subjects (objects, or the plan): which rules do not hold, for what,
 * with their messages filled. Pure but for the clock. Cost-bounded: the rules of one object must
 * end within {@link OBJECT_BUDGET_MS} and the whole check within {@link CHECK_BUDGET_MS};
 * otherwise {@link PolicyCostError} names the rule that was running. CEL's only loops are
 * comprehensions over finite lists: rules.ts bounds their nesting and the expression's size, and
 * makes every step of one read the meter (meter.ts), so a rule running past its deadline is
 * stopped inside its evaluation, not only once it ends; the clock is read between rules too.
 */
import { SvcError } from "../errors";
import { arm, disarm } from "./meter";
import type {
  PolicyReport,
  PolicyResult,
  PolicySet,
  PolicyStage,
  PolicySubject,
  CompiledRule,
  MessagePart,
} from "./model";
import { PLAN_TOTALS } from "./rules";

export const OBJECT_BUDGET_MS = 1_000;
export const CHECK_BUDGET_MS = 10_000;
const MAX_MESSAGE_CHARS = 500;

/** A rule that took longer than its budget. */
export class PolicyCostError extends SvcError {
  override readonly name = "PolicyCostError";
  constructor(message: string, where: { file: string; line: number; column: number }) {
    super("policy_cost_exceeded", message, where);
  }
}

export interface EvaluateOptions {
  /** Milliseconds, monotonic. @default performance.now */
  clock?: () => number;
  /** The time the rules of one object may take, in milliseconds. @default {@link OBJECT_BUDGET_MS} */
  objectBudgetMs?: number;
  /** The time the whole check may take, in milliseconds. @default {@link CHECK_BUDGET_MS} */
  checkBudgetMs?: number;
}

// The CEL library's lists and maps, known by the symbols it registers (it is loaded lazily, see rules.ts `loadCel`).
const CEL_LIST = Symbol.for("@bufbuild/cel/list");
const CEL_MAP = Symbol.for("@bufbuild/cel/map");
const isCelList = (v: unknown): v is Iterable<unknown> => typeof v === "object" && v !== null && CEL_LIST in v;
const isCelMap = (v: unknown): boolean => typeof v === "object" && v !== null && CEL_MAP in v;

/** A CEL value as a message shows it. */
export function shown(v: unknown, depth = 0): string {
  if (depth > 4) return "…";
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return "null";
  if (isCelList(v)) return `[${[...v].map((x) => shown(x, depth + 1)).join(", ")}]`;
  if (isCelMap(v))
    return `{${[...(v as unknown as Iterable<[unknown, unknown]>)].map(([k, x]) => `${shown(k, depth + 1)}: ${shown(x, depth + 1)}`).join(", ")}}`;
  if (Array.isArray(v)) return `[${v.map((x) => shown(x, depth + 1)).join(", ")}]`;
  if (typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${shown(x, depth + 1)}`)
      .join(", ")}}`;
  return String(v);
}

function fill(parts: MessagePart[], bindings: Record<string, unknown>): string {
  const text = parts
    .map((p) => {
      if ("text" in p) return p.text;
      try {
        return shown(p.run.eval(bindings));
      } catch {
        return `{{ ${p.expr} }}`;
      }
    })
    .join("")
    .trim();
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

const bindingsOf = (s: PolicySubject): Record<string, unknown> => ({
  object: s.object,
  current: s.current,
  kind: s.kind,
  address: s.address,
  action: s.action,
  changed: s.changed,
});

/** The `plan` a `scope: plan` rule sees. */
export function planBinding(subjects: PolicySubject[]): Record<string, unknown> {
  const totals: Record<string, bigint> = Object.fromEntries(PLAN_TOTALS.map((a) => [a, 0n]));
  for (const s of subjects) if (s.action in totals) totals[s.action]! += 1n;
  return {
    totals,
    actions: subjects
      .filter((s) => s.action !== "none")
      .map((s) => ({ address: s.address, kind: s.kind, action: s.action, changed: s.changed })),
  };
}

const ORDER = (a: PolicyResult, b: PolicyResult) =>
  (a.severity === b.severity ? 0 : a.severity === "mandatory" ? -1 : 1) ||
  (a.exempted ? 1 : 0) - (b.exempted ? 1 : 0) ||
  (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) ||
  ((a.address ?? "") < (b.address ?? "") ? -1 : (a.address ?? "") > (b.address ?? "") ? 1 : 0);

/**
 * Checks every rule of `set` on `subjects` at `stage`. At validate, `scope: plan` rules are
 * skipped (and listed as such). A rule whose evaluation fails (a field an object lacks, a wrong
 * type) does not hold: its result says why.
 */
export function evaluatePolicies(
  set: PolicySet,
  subjects: PolicySubject[],
  stage: PolicyStage,
  opts: EvaluateOptions = {},
): PolicyReport {
  const clock = opts.clock ?? (() => performance.now());
  const objectBudget = opts.objectBudgetMs ?? OBJECT_BUDGET_MS;
  const checkBudget = opts.checkBudgetMs ?? CHECK_BUDGET_MS;
  const started = clock();
  const results: PolicyResult[] = [];
  const objectRules = set.rules.filter((r) => r.scope === "object");
  const planRules = stage === "validate" || stage === "drift" ? [] : set.rules.filter((r) => r.scope === "plan");
  const skipped = set.rules.filter((r) => r.scope === "plan" && !planRules.includes(r)).map((r) => r.name);
  const seconds = (ms: number) => `${ms / 1000} s`;
  /** Throws when the rule that just ran took too long, or was stopped by the meter for it. */
  const budget = (rule: CompiledRule, since: number, what: string) => {
    const wasStopped = disarm();
    const now = clock();
    const verb = wasStopped ? "was stopped after" : "took";
    if (now - started > checkBudget)
      throw new PolicyCostError(
        `The policy check ${verb} more than ${seconds(checkBudget)} (the rule ${rule.name} of ${set.origin}:${rule.source.line} was running on ${what}). Simplify the rules.`,
        rule.source,
      );
    if (now - since > objectBudget || wasStopped)
      throw new PolicyCostError(
        `The policy rule ${rule.name} (${set.origin}:${rule.source.line}) ${verb} more than ${seconds(objectBudget)} on ${what}: rules must be cheap. Simplify the rule.`,
        rule.source,
      );
  };
  /** Meters the next evaluation: it must end within the object's time and the check's. */
  const meter = (since: number) => arm(Math.min(since + objectBudget, started + checkBudget), clock);
  const record = (rule: CompiledRule, s: PolicySubject | undefined, message: string) => {
    const exemption = s && rule.exempt.find((e) => e.address === s.address);
    results.push({
      rule: rule.name,
      severity: rule.severity,
      ...(s ? { address: s.address } : {}),
      message,
      ...(s?.source ? { source: s.source } : {}),
      rule_source: rule.source,
      ...(exemption ? { exempted: exemption.reason } : {}),
    });
  };
  const holds = (rule: CompiledRule, bindings: Record<string, unknown>): { ok: true } | { ok: false; why?: string } => {
    try {
      if (rule.match) {
        const m = rule.match.eval(bindings);
        if (m !== true) return { ok: true };
      }
      const r = rule.rule.eval(bindings);
      if (r === true) return { ok: true };
      if (r === false) return { ok: false };
      return { ok: false, why: `the rule gave ${shown(r).slice(0, 60)}, not true or false` };
    } catch (e) {
      // A deletion has no declared object (object is null): a rule that reads it says nothing about it.
      if (bindings.object === null && bindings.action === "delete") return { ok: true };
      return { ok: false, why: `the rule could not be evaluated: ${(e as Error).message.slice(0, 200)}` };
    }
  };
  for (const s of subjects) {
    if (s.object === null && s.current === null) continue;
    const since = clock();
    const bindings = bindingsOf(s);
    for (const rule of objectRules) {
      meter(since);
      const r = holds(rule, bindings);
      const message = r.ok ? "" : fill(rule.message, bindings);
      budget(rule, since, s.address);
      if (!r.ok) record(rule, s, r.why ? `${message} (${r.why})` : message);
    }
  }
  if (planRules.length) {
    const bindings = { plan: planBinding(subjects) };
    const since = clock();
    for (const rule of planRules) {
      meter(since);
      const r = holds(rule, bindings);
      const message = r.ok ? "" : fill(rule.message, bindings);
      budget(rule, since, "the plan");
      if (!r.ok) record(rule, undefined, r.why ? `${message} (${r.why})` : message);
    }
  }
  results.sort(ORDER);
  return {
    origin: set.origin,
    digest: set.digest,
    stage,
    rules: set.rules.length - skipped.length,
    skipped,
    results,
    violations: results.filter((r) => r.severity === "mandatory" && !r.exempted).length,
    warnings: results.filter((r) => r.severity === "advisory" && !r.exempted).length,
  };
}
