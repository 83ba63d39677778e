/** Policy as code: see `model.ts` for what the folder holds. */
export * from "./model";
export { readRules, loadCel, type Cel } from "./rules";
export { evaluatePolicies, PolicyCostError, OBJECT_BUDGET_MS, CHECK_BUDGET_MS } from "./evaluate";
export { declaredSubjects, desiredView, ruleKindOf } from "./subjects";
export { ruleObject, ruleFieldName, SENSITIVE, RULE_KINDS } from "./fields";
export { loadPolicies, gitHasCommit, POLICIES_FILE, type PolicySource, type PoliciesLoaded } from "./source";
