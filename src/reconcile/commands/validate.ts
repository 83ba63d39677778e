/**
 * `svc-iac validate`: loads and checks the repository; sends nothing. Its own module, so the CLI
 * runs it without loading the API client, the engine or the state backends.
 */
import type { CommandOptions, CommandResult } from "./command-types";
import { loadRepository } from "../load";

export async function validateCommand(opts: CommandOptions): Promise<CommandResult> {
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env, log: opts.log });
  if (!loaded.ok) return { command: "validate", exitCode: 1, errors: loaded.errors, objects: 0 };
  return { command: "validate", exitCode: 0, errors: [], objects: loaded.project.objects.length };
}
