/**
 * Policy as code: the rules of `policies.yaml` and what checking them finds. Pure types.
 *
 * Folder `src/policy/`: rules in CEL (the Common Expression Language) over the objects a command
 * sees: `rules.ts` reads and compiles a rules file (with `file:line` for every error),
 * `fields.ts` what a rule sees of an object, `evaluate.ts` checks compiled rules on subjects
 * (pure, cost-bounded), `render.ts` the results as text and Markdown, `source.ts` reads the rules
 * (the repository's file, `--policies PATH`, `--policies-ref REF`: the only I/O), `pulumi-pack.ts`
 * the same rules as a Pulumi policy pack. May import `src/model`, `src/kinds` (definitions only),
 * `src/repository` and the error family; never the engine.
 */
import type { SourceLocation } from "../model/desired";

export type Severity = "mandatory" | "advisory";
export type RuleScope = "object" | "plan";

/** A `{{ expression }}` of a message, or its literal text between. */
export type MessagePart = { text: string } | { expr: string; run: CompiledExpression };

/** A compiled CEL expression with the names it reads. */
export interface CompiledExpression {
  source: string;
  eval: (bindings: Record<string, unknown>) => unknown;
}

export interface Exemption {
  address: string;
  reason: string;
}

export interface CompiledRule {
  name: string;
  description?: string;
  severity: Severity;
  scope: RuleScope;
  match?: CompiledExpression;
  rule: CompiledExpression;
  message: MessagePart[];
  exempt: Exemption[];
  /** Where the rule is declared (its `name:`). */
  source: SourceLocation;
}

/** A rules file, compiled. */
export interface PolicySet {
  /** Where the rules were read, as messages name it: `policies.yaml`, `/etc/svc/policies.yaml`, `policies.yaml at origin/main`. */
  origin: string;
  /** `sha256:<hex>` of the rules file's text: a saved plan records it. */
  digest: string;
  rules: CompiledRule[];
}

/** What a check is about: one object (declared, planned or observed), or the whole plan. */
export interface PolicySubject {
  address: string;
  /** `canvas`, `udf`, … as addresses write them. */
  kind: string;
  /** The declared object as rules see it (see fields.ts); in drift, the platform's; null for a deletion. */
  object: Record<string, unknown> | null;
  /** The platform's object, or null. */
  current: Record<string, unknown> | null;
  action: string;
  /** Names of the fields that change (rule names). */
  changed: string[];
  /** Where the object is declared, when it is. */
  source?: SourceLocation;
}

/** The step a check runs at: validate sees declared objects only and skips `scope: plan` rules. */
export type PolicyStage = "validate" | "plan" | "apply" | "drift";

/** One rule that did not hold (or was exempted) for one object, or for the plan. */
export interface PolicyResult {
  rule: string;
  severity: Severity;
  /** The object's address; absent for a `scope: plan` rule. */
  address?: string;
  /** The rule's message with its placeholders filled (secrets as `(sensitive)`). */
  message: string;
  /** Where the object is declared (`canvases/x/canvas.yaml:1:1`), when it is. */
  source?: SourceLocation;
  /** Where the rule is declared. */
  rule_source: SourceLocation;
  /** Present when an `exempt:` entry let the object through: its reason. Exempted results stop nothing. */
  exempted?: string;
}

export interface PolicyReport {
  /** Where the rules came from (see {@link PolicySet.origin}). */
  origin: string;
  digest: string;
  stage: PolicyStage;
  /** Number of rules checked; and those left out at this stage (`scope: plan` rules at validate), by name. */
  rules: number;
  skipped: string[];
  /** Sorted: mandatory first, then rule, then address. */
  results: PolicyResult[];
  /** Mandatory results not exempted: any stops the command. */
  violations: number;
  warnings: number;
}
