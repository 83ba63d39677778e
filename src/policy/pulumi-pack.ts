/**
 * The same rules for Pulumi programs (`svc-iac/policy`): a function taking the path of a
 * `policies.yaml` and returning policies for a CrossGuard policy pack (`@pulumi/policy`), one per
 * rule, checking the svc resources of a stack: the provider plugin's (`svc:index:Canvas`, …) and the
 * dynamic resources (`pulumi-nodejs:dynamic/svc:Canvas`, …) alike.
 *
 * ```ts
 * import { PolicyPack } from "@pulumi/policy";
 * import { svcPolicies } from "svc-iac/policy";
 * new PolicyPack("svc-rules", { policies: svcPolicies(`${__dirname}/../policies.yaml`) });
 * ```
 *
 * A rule sees what `svc-iac validate` gives it: `object` (the resource's inputs, by the
 * repository's names, secrets as `(sensitive)`), `current` null, `action` `none`, `kind`, and
 * `address` `<kind>.<the resource's name in the program>` (what `exempt:` names). `scope: plan`
 * rules need a plan's totals, which a preview does not give: they are not in the pack.
 * `@pulumi/policy` is only a type here: the package loads without it.
 */
import * as cel from "@bufbuild/cel";
import type { Policies, ResourceValidationArgs, ResourceValidationPolicy, ReportViolation } from "@pulumi/policy";
import { SvcError } from "../errors";
import { formatLoadError } from "../model/desired";
import { RepositoryJail } from "../repository/jail";
import { evaluatePolicies } from "./evaluate";
import { SENSITIVE, RULE_KIND_NAMES, ruleObject } from "./fields";
import type { PolicySet } from "./model";
import { readRules } from "./rules";
import { MAX_POLICY_BYTES } from "./source";

/** The svc kind of a Pulumi resource type, or undefined for any other resource. */
export function svcKindOf(type: string): string | undefined {
  const kind = /^(?:svc:index:|pulumi-nodejs:dynamic\/svc:)([A-Za-z]+)$/.exec(type)?.[1];
  return kind && RULE_KIND_NAMES[kind] ? kind : undefined;
}

/** A rules file that cannot be read or does not compile: every error at `file:line:column`. */
export class PolicyFileError extends SvcError {
  override readonly name = "PolicyFileError";
  constructor(message: string, file: string) {
    super("policy_invalid", message, { file });
  }
}

/** Reads and compiles `file`; throws {@link PolicyFileError}. */
export function readPolicyFile(file: string): PolicySet {
  const read = RepositoryJail.forProject(".").readOperatorFile(file, { maxBytes: MAX_POLICY_BYTES });
  if (read.kind !== "text")
    throw new PolicyFileError(
      `Cannot read the policy rules ${file}: ${read.kind === "missing" ? "no such file" : read.message}.`,
      file,
    );
  const r = readRules(cel, file, read.text);
  if (!r.ok)
    throw new PolicyFileError(`The policy rules do not compile:\n${r.errors.map(formatLoadError).join("\n")}`, file);
  return r.set;
}

/** A resource's inputs without the engine's own (`__provider`), a secret output of Pulumi's as {@link SENSITIVE}. */
function inputsOf(props: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props)) {
    if (k.startsWith("__")) continue;
    const secret = typeof v === "object" && v !== null && (v as object).constructor?.name === "Secret";
    out[k] = secret ? SENSITIVE : v;
  }
  return out;
}

/** The policies of the rules in `file`, for `new PolicyPack(name, { policies })`. */
export function svcPolicies(file: string): Policies {
  const set = readPolicyFile(file);
  return set.rules
    .filter((rule) => rule.scope === "object")
    .map(
      (rule): ResourceValidationPolicy => ({
        name: rule.name,
        description: rule.description ?? rule.name,
        enforcementLevel: rule.severity,
        validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
          const kind = svcKindOf(args.type);
          if (!kind) return;
          const ruleKind = RULE_KIND_NAMES[kind]!;
          const one: PolicySet = { ...set, rules: [rule] };
          const report = evaluatePolicies(
            one,
            [
              {
                address: `${ruleKind}.${args.name}`,
                kind: ruleKind,
                object: ruleObject(ruleKind, inputsOf(args.props)),
                current: null,
                action: "none",
                changed: [],
              },
            ],
            "validate",
          );
          for (const r of report.results) if (!r.exempted) reportViolation(r.message, args.urn);
        },
      }),
    );
}
