/** `svc-iac plan`: load, connect, observe and plan; writes nothing (but a saved plan with `--out`). */
import type { CommandResult, PlanOptions } from "./command-types";
import { PROTECTED_RULE } from "../plan/protect";
import { CROSS_TARGET_RULE } from "../plan/cross-target";
import { CASCADE_RULE } from "../plan/cascade";
import {
  withSession,
  makePlan,
  writeSavedPlan,
  publishersFor,
  tokenBlock,
  OUTPUTS_RULES,
  outputsBlock,
} from "./session";
import { POLICY_RULE, rulesFor, withPolicy } from "./policy-check";
/** `svc-iac plan`: what apply would do; writes nothing. */
export function planCommand(opts: PlanOptions): Promise<CommandResult> {
  return withSession(
    opts,
    "plan",
    async (s) => {
      const rules = await rulesFor(opts);
      if (rules.errors.length) return { command: "plan", exitCode: 1, errors: rules.errors };
      const outcome = await makePlan(s, opts);
      withPolicy(outcome, rules, s.project, "plan");
      tokenBlock(outcome, publishersFor(opts), opts);
      await outputsBlock(outcome, opts);
      const changes = outcome.plan.actions.length > 0;
      // These stop the plan itself: no flag of apply's would make it go (protected, cross-target, policy), or it names what would be lost (cascade).
      const fatal = outcome.plan.blocks.filter(
        (b) =>
          b.rule === PROTECTED_RULE ||
          b.rule === CASCADE_RULE ||
          b.rule === CROSS_TARGET_RULE ||
          b.rule === POLICY_RULE,
      );
      if (fatal.length)
        return {
          command: "plan",
          exitCode: 1,
          errors: [],
          plan: outcome.plan,
          message: fatal.map((b) => b.message).join("\n"),
        };
      if (opts.planOut) {
        // A saved plan is applied with the options it was made with: one that would stop on a limit
        // of those options could never be applied, so it is not saved.
        const stops = outcome.plan.blocks.filter((b) => !OUTPUTS_RULES.includes(b.rule));
        if (stops.length) {
          return {
            command: "plan",
            exitCode: 1,
            errors: [],
            plan: outcome.plan,
            message: `${stops.map((b) => b.message).join("\n")}\nThe plan was not saved to ${opts.planOut}: applying it would stop there, and a saved plan keeps the options it was made with. Plan again with the flag named above and --out.`,
          };
        }
        await writeSavedPlan(s, opts, opts.planOut, outcome, rules.set);
      }
      return { command: "plan", exitCode: changes && opts.detailedExitCode ? 2 : 0, errors: [], plan: outcome.plan };
    },
    { observeEarly: true },
  );
}
