/**
 * Reading, compiling and checking rules (src/policy), without a platform: errors located at
 * file:line:column, unknown fields refused at compile time, exemptions, secrets, plan-scope rules,
 * and the cost bound.
 */
import * as cel from "@bufbuild/cel";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluatePolicies, PolicyCostError } from "../../src/policy/evaluate";
import type { PolicySet, PolicySubject } from "../../src/policy/model";
import { readRules } from "../../src/policy/rules";
import { STARTER_POLICIES } from "../../src/policy/starter";
import { starterFiles } from "../../src/reconcile/init/starter-repository";

const compiled = (text: string): PolicySet => {
  const r = readRules(cel, "policies.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.set;
};
const errorsOf = (text: string) => {
  const r = readRules(cel, "policies.yaml", text);
  return r.ok ? [] : r.errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`);
};
const canvas = (object: Record<string, unknown>, extra: Partial<PolicySubject> = {}): PolicySubject => ({
  address: "canvas.x",
  kind: "canvas",
  object,
  current: null,
  action: "create",
  changed: [],
  ...extra,
});

describe("GIVEN the starter rules", () => {
  it("THEN docs/policies.md shows exactly them, svc-iac init writes them as policies.yaml, and they compile", () => {
    const page = readFileSync(join(__dirname, "../../docs/policies.md"), "utf8");
    expect(page).toContain(`\`\`\`yaml\n${STARTER_POLICIES}\`\`\``);
    expect(starterFiles({ project: "demo", schemaBase: "schemas" })["policies.yaml"]).toBe(STARTER_POLICIES);
    expect(compiled(STARTER_POLICIES).rules.map((r) => `${r.name} ${r.severity} ${r.scope}`)).toEqual([
      "public-canvas-needs-passcode mandatory object",
      "cronjobs-at-night advisory object",
      "deletion-budget mandatory plan",
      "udf-names advisory object",
    ]);
  });

  it("WHEN validate checks objects THEN the plan rule is skipped and said to be; WHEN a plan deletes 21 objects THEN the deletion budget is not met", () => {
    const set = compiled(STARTER_POLICIES);
    const v = evaluatePolicies(set, [canvas({ access_scope: "team" })], "validate");
    expect(v.skipped).toEqual(["deletion-budget"]);
    expect(v.results).toEqual([]);
    const deletions = Array.from({ length: 21 }, (_, i) => ({
      ...canvas(null as never),
      address: `canvas.c${i}`,
      object: null,
      current: { access_scope: "team" },
      action: "delete",
    }));
    const p = evaluatePolicies(set, deletions, "plan");
    expect(p.results.map((r) => `${r.rule}: ${r.message}`)).toEqual([
      "deletion-budget: the plan deletes 21 objects; at most 20 in one change",
    ]);
    expect(p.violations).toBe(1);
  });

  it("WHEN a cronjob runs at 09:00 or at 23:00 THEN only the day one is warned about (advisory)", () => {
    const set = compiled(STARTER_POLICIES);
    const job = (address: string, object: Record<string, unknown>): PolicySubject => ({
      ...canvas(object),
      address,
      kind: "cronjob",
    });
    const r = evaluatePolicies(
      set,
      [job("cronjob.day", { schedule: "0 9 * * *" }), job("cronjob.night", { hour: [23n, 2n] })],
      "plan",
    );
    expect(r.results.map((x) => `${x.severity} ${x.address}`)).toEqual(["advisory cronjob.day"]);
    expect(r.violations).toBe(0);
  });
});

describe("GIVEN rules with mistakes", () => {
  it("THEN each is an error at file:line:column: CEL syntax, unknown keys, names, fields, functions, severities", () => {
    expect(
      errorsOf(`rules:
  - name: a
    match: kind == 'canvas'
    rule: object.acess_scope == 'public' && foo
    message: m
    severty: advisory
  - name: b
    rule: object.access_scope &&
    message: m
    severity: mandatroy
  - name: c
    rule: shout(address)
    message: "{{ object.nope }}"
  - name: d
    scope: plan
    rule: plan.totals.deletes < 3
    message: m
`),
    ).toEqual([
      'policies.yaml:6:5: unknown key "severty"; a rule has name, description, match, rule, message, severity, scope, exempt; did you mean severity?',
      expect.stringMatching(
        /^policies\.yaml:4:17: unknown field "acess_scope" of object: no object of canvas has it; did you mean access_scope\?; fields: access_scope, /,
      ),
      'policies.yaml:4:45: unknown name "foo"; a scope: object rule reads object, current, kind, address, action, changed',
      'policies.yaml:10:15: found "mandatroy", expected mandatory or advisory; did you mean mandatory?',
      expect.stringMatching(/^policies\.yaml:8:31: CEL does not parse: /),
      'policies.yaml:12:11: unknown function "shout"',
      expect.stringMatching(/^policies\.yaml:13:24: unknown field "nope" of object: no object of any kind has it/),
      expect.stringMatching(
        /^policies\.yaml:16:22: unknown field "deletes" of plan\.totals; expected one of create, update/,
      ),
    ]);
  });

  it("THEN a rule without rule: or message:, a duplicate name, and comprehensions nested 3 deep are errors", () => {
    expect(
      errorsOf(`rules:
  - name: a
  - name: b
    rule: "true"
    message: m
  - name: b
    rule: changed.all(x, changed.all(y, changed.all(z, x == y)))
    message: m
`),
    ).toEqual([
      "policies.yaml:2:5: the rule has no rule:; rule is required",
      "policies.yaml:2:5: the rule has no message:; message is required",
      'policies.yaml:6:11: a second rule named "b" (the first at line 3); names are unique',
      expect.stringMatching(
        /^policies\.yaml:7:\d+: comprehensions \(all, exists, map, filter\) nested 3 deep; at most 2/,
      ),
    ]);
  });
});

describe("GIVEN a rule with an exemption and a message quoting a secret", () => {
  const set = compiled(`rules:
  - name: passcode-shown
    match: kind == 'canvas'
    rule: "!has(object.passcode)"
    message: "{{ address }} has passcode {{ object.passcode }} ({{ changed }})"
    exempt:
      - address: canvas.legacy
        reason: migrated in Q3
`);

  it("THEN the message reads (sensitive), and the exempted object is reported with its reason but stops nothing", () => {
    const r = evaluatePolicies(
      set,
      [
        canvas({ passcode: "(sensitive)" }, { changed: ["passcode"] }),
        canvas({ passcode: "(sensitive)" }, { address: "canvas.legacy" }),
      ],
      "plan",
    );
    expect(r.results.map((x) => `${x.address} ${x.exempted ?? "-"} ${x.message}`)).toEqual([
      "canvas.x - canvas.x has passcode (sensitive) ([passcode])",
      "canvas.legacy migrated in Q3 canvas.legacy has passcode (sensitive) ([])",
    ]);
    expect(r.violations).toBe(1);
  });

  it("WHEN a rule cannot be evaluated (a field the object lacks) THEN it is not met and says why", () => {
    const s = compiled(
      "rules:\n  - name: r\n    rule: object.access_scope == 'team'\n    message: not a team canvas\n",
    );
    expect(evaluatePolicies(s, [canvas({})], "plan").results[0]!.message).toMatch(
      /^not a team canvas \(the rule could not be evaluated: .*access_scope/,
    );
  });
});

describe("GIVEN a clock on which each rule takes 600 ms", () => {
  it("WHEN an object has two rules THEN the check stops with policy_cost_exceeded naming the rule and its line", () => {
    const set = compiled(
      "rules:\n  - name: one\n    rule: 'true'\n    message: m\n  - name: two\n    rule: 'true'\n    message: m\n",
    );
    let now = 0;
    const clock = () => (now += 600);
    let error: unknown;
    try {
      evaluatePolicies(set, [canvas({})], "plan", { clock });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyCostError);
    expect((error as PolicyCostError).code).toBe("policy_cost_exceeded");
    expect((error as Error).message).toContain("The policy rule two (policies.yaml:5) took more than 1 s on canvas.x");
  });
});

describe("GIVEN rules that compare every changed field, or every planned action, with every other (quadratic)", () => {
  const set = compiled(`rules:
  - name: cheap
    rule: "true"
    message: m
  - name: quadratic
    rule: "changed.all(x, changed.all(y, x == y || x != y))"
    message: m
`);
  const planSet = compiled(`rules:
  - name: quadratic-plan
    scope: plan
    rule: "plan.actions.all(a, plan.actions.all(b, a.address != b.address || a.kind == b.kind))"
    message: m
`);
  // 3,000 names: 9 million steps, seconds of work for either rule.
  const names = Array.from({ length: 3000 }, (_, i) => `field_${i}`);
  const stopping = (
    rules: PolicySet,
    subjects: PolicySubject[],
    opts: { objectBudgetMs?: number; checkBudgetMs?: number },
  ) => {
    try {
      evaluatePolicies(rules, subjects, "plan", opts);
    } catch (e) {
      return e as PolicyCostError;
    }
    throw new Error("the check ended");
  };

  it("WHEN an object's time is 20 ms THEN the rule is stopped inside its evaluation, and the error names it and its line", () => {
    const error = stopping(set, [canvas({}, { changed: names })], { objectBudgetMs: 20 });
    expect(error).toBeInstanceOf(PolicyCostError);
    expect(error.code).toBe("policy_cost_exceeded");
    // "was stopped": the meter ended the rule before it ran its steps to the end.
    expect(error.message).toBe(
      "The policy rule quadratic (policies.yaml:5) was stopped after more than 0.02 s on canvas.x: rules must be cheap. Simplify the rule.",
    );
  });

  it("WHEN the whole check's time is 20 ms THEN the plan rule over 3,000 actions is stopped, the error naming it", () => {
    const subjects = names.map((n) => canvas({}, { address: `canvas.${n}`, action: "create" }));
    const error = stopping(planSet, subjects, { checkBudgetMs: 20 });
    expect(error.message).toBe(
      "The policy check was stopped after more than 0.02 s (the rule quadratic-plan of policies.yaml:2 was running on the plan). Simplify the rules.",
    );
  });

  it("WHEN the time is not up THEN the same comprehensions evaluate as CEL says (the meter changes no result)", () => {
    const set = compiled(`rules:
  - name: all-positive
    rule: "[1, 2, 3].all(x, [1, 2].all(y, x * y > 0)) && [1, 2, 3].exists(x, x == 2) && [1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1).size() == 2 && ![1, 2].exists_one(x, x > 0)"
    message: m
  - name: one-fails
    rule: "[1, 2, 3].all(x, x < 3)"
    message: "not all below 3"
`);
    const r = evaluatePolicies(set, [canvas({})], "plan");
    expect(r.results.map((x) => `${x.rule}: ${x.message}`)).toEqual(["one-fails: not all below 3"]);
  });
});
