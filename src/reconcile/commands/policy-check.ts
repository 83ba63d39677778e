/**
 * The policy rules (`src/policy`) at each command: validate checks the declared objects, plan and
 * apply every planned change (and the unchanged objects, as `none`), drift what the platform
 * holds. A mandatory rule not met becomes a plan block (rule `policy`), which stops plan and apply.
 */
import type { PolicyOptions, RepositoryOptions } from "./command-types";
import type { LoadedProject, LoadError } from "../../model/desired";
import {
  declaredSubjects,
  desiredView,
  evaluatePolicies,
  loadPolicies,
  ruleFieldName,
  ruleKindOf,
  ruleObject,
  type PolicyReport,
  type PolicySet,
  type PolicyStage,
  type PolicySubject,
} from "../../policy";
import type { PlanOutcome } from "../plan";
import type { Observation } from "../observe";
import type { PlanBlock } from "../plan/plan-model";

/** The block rule of mandatory policy violations. */
export const POLICY_RULE = "policy";

export interface LoadedRules {
  set?: PolicySet;
  errors: LoadError[];
  notes: string[];
}

/** The rules this run checks (`--policies`, `--policies-ref`, else the repository's `policies.yaml`). */
export function rulesFor(opts: PolicyOptions & Pick<RepositoryOptions, "dir">, dir = opts.dir): Promise<LoadedRules> {
  return loadPolicies(dir, {
    ...(opts.policies !== undefined ? { policies: opts.policies } : {}),
    ...(opts.policiesRef !== undefined ? { policiesRef: opts.policiesRef } : {}),
  });
}

/** Validate: the declared objects, nothing known of the platform. */
export function checkDeclared(set: PolicySet, project: LoadedProject): PolicyReport {
  return evaluatePolicies(set, declaredSubjects(project.objects), "validate");
}

/** Plan and apply: each planned change, and each declared object left as it is (`none`). */
export function checkPlanned(
  set: PolicySet,
  project: LoadedProject,
  outcome: PlanOutcome & { observation: Observation },
  stage: PolicyStage,
): PolicyReport {
  const subjects: PolicySubject[] = [];
  const stepped = new Set<string>();
  for (const s of outcome.steps) {
    const kind = ruleKindOf(s.action.kind);
    stepped.add(s.action.address);
    const state = (s.observed?.state ?? undefined) as Record<string, unknown> | undefined;
    subjects.push({
      address: s.action.address,
      kind,
      object: s.desired && s.action.action !== "delete" ? desiredView(s.desired) : null,
      current: state ? ruleObject(kind, state) : null,
      action: s.action.action,
      changed: [...new Set(s.action.fields.map((f) => ruleFieldName(kind, f.field)))].sort(),
      ...(s.action.source ? { source: s.action.source } : {}),
    });
  }
  for (const o of project.objects) {
    if (stepped.has(o.address)) continue;
    const id = outcome.ids.get(o.address);
    const state = id ? outcome.observation.kinds[o.kind]?.byId.get(id)?.state : undefined;
    const kind = ruleKindOf(o.kind);
    subjects.push({
      address: o.address,
      kind,
      object: desiredView(o),
      current: state ? ruleObject(kind, state as Record<string, unknown>) : null,
      action: "none",
      changed: [],
      source: o.source,
    });
  }
  return evaluatePolicies(set, subjects, stage);
}

/** Drift: what the platform holds of each declared object (`object` and `current` both the platform's). */
export function checkObserved(
  set: PolicySet,
  project: LoadedProject,
  outcome: PlanOutcome & { observation: Observation },
): PolicyReport {
  const subjects: PolicySubject[] = [];
  for (const o of project.objects) {
    const id = outcome.ids.get(o.address);
    const state = id ? outcome.observation.kinds[o.kind]?.byId.get(id)?.state : undefined;
    if (!state) continue;
    const kind = ruleKindOf(o.kind);
    const seen = ruleObject(kind, state as Record<string, unknown>);
    subjects.push({
      address: o.address,
      kind,
      object: seen,
      current: seen,
      action: "none",
      changed: [],
      source: o.source,
    });
  }
  return evaluatePolicies(set, subjects, "drift");
}

/** `policies.yaml:3` for a message. */
const ruleAt = (r: PolicyReport["results"][number]) => `${r.rule_source.file}:${r.rule_source.line}`;
const objectAt = (r: PolicyReport["results"][number]) =>
  r.source ? ` (${r.source.file}:${r.source.line}:${r.source.column})` : "";

/** One line per result: `policy public-canvas-needs-passcode (policies.yaml:3): canvas.x (canvases/x/canvas.yaml:1:1): message`. */
export function resultLine(r: PolicyReport["results"][number]): string {
  const what = r.address ? `${r.address}${objectAt(r)}: ` : "the plan: ";
  const tag = r.exempted ? ` exempted (${r.exempted})` : r.severity === "advisory" ? " (advisory)" : "";
  return `Policy rule ${r.rule} (${ruleAt(r)})${tag}: ${what}${r.message}`;
}

/** The plan block of a report's mandatory violations, when there are any. */
export function policyBlock(report: PolicyReport): PlanBlock | undefined {
  const stops = report.results.filter((r) => r.severity === "mandatory" && !r.exempted);
  if (!stops.length) return undefined;
  return {
    rule: POLICY_RULE,
    message: `${stops.map(resultLine).join("\n")}\n${stops.length} mandatory policy rule${stops.length > 1 ? "s are" : " is"} not met (rules of ${report.origin}).`,
  };
}

/**
 * Checks `rules` on a plan at `stage`: the report goes into the plan, mandatory violations into
 * its blocks, notes (the pull request's own rule changes) into its warnings.
 */
export function withPolicy(
  outcome: PlanOutcome & { observation: Observation },
  rules: LoadedRules,
  project: LoadedProject,
  stage: "plan" | "apply",
): void {
  outcome.plan.warnings.push(...rules.notes);
  if (!rules.set) return;
  const report = checkPlanned(rules.set, project, outcome, stage);
  outcome.plan.policy = report;
  const block = policyBlock(report);
  if (block) outcome.plan.blocks.push(block);
}
