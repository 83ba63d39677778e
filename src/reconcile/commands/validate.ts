/**
 * `svc-iac validate`: loads and checks the repository, and checks the policy rules on the declared
 * objects; sends nothing. Its own module, so the CLI runs it without loading the API client, the
 * engine or the state backends.
 */
import type { CommandResult, ValidateOptions } from "./command-types";
import { loadRepository } from "../load";
import { checkDeclared, rulesFor } from "./policy-check";

export async function validateCommand(opts: ValidateOptions): Promise<CommandResult> {
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env, log: opts.log });
  const rules = await rulesFor(opts);
  const notes = rules.notes.length ? { notes: rules.notes } : {};
  if (!loaded.ok || rules.errors.length)
    return {
      command: "validate",
      exitCode: 1,
      errors: [...(loaded.ok ? [] : loaded.errors), ...rules.errors],
      objects: 0,
      ...notes,
    };
  const objects = loaded.project.objects.length;
  if (!rules.set) return { command: "validate", exitCode: 0, errors: [], objects, ...notes };
  const policy = checkDeclared(rules.set, loaded.project);
  return { command: "validate", exitCode: policy.violations ? 1 : 0, errors: [], objects, policy, ...notes };
}
