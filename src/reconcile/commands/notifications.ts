/**
 * The `notify:` webhooks of a loaded project, told about what a command did (see
 * ../notify/webhooks.ts): apply's outcome through `withSession` (session.ts), drift --remediate's
 * and test's by those commands.
 */
import type { LoadedProject } from "../../model/desired";
import { notify, type NotifyMessage } from "../notify/webhooks";
import type { CommandOptions, CommandResult } from "./command-types";

/** Every secret value of the project and the target's tokens: never sent. */
function secretsOf(project: LoadedProject, env: CommandOptions["env"]): string[] {
  const c = project.settings.credentials;
  return [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv].map((n) => env[n]).filter((v): v is string => !!v);
}

/** Sends each message in order to the webhooks that want its event; never throws. */
export async function notifyAll(
  project: LoadedProject,
  opts: Pick<CommandOptions, "env" | "log" | "webhooks">,
  messages: Omit<NotifyMessage, "project" | "target">[],
): Promise<void> {
  const targets = project.settings.notify ?? [];
  if (!targets.length || !messages.length) return;
  const ctx = {
    targets,
    env: opts.env,
    secrets: secretsOf(project, opts.env),
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.webhooks ? { options: opts.webhooks } : {}),
  };
  for (const m of messages) {
    try {
      await notify(ctx, { ...m, project: project.project, target: project.target });
    } catch (e) {
      opts.log?.(`Notification ${m.event} not sent: ${e instanceof Error ? e.name : "error"}; going on.`);
    }
  }
}

/** What apply's webhooks are told: a failure (`thrown`: it stopped with an error), or a success that changed something. */
export function applyMessages(r: CommandResult | undefined): Omit<NotifyMessage, "project" | "target">[] {
  if (!r) return [{ event: "apply_failed", summary: "apply stopped with an error.", counts: {}, addresses: [] }];
  if (r.command !== "apply" || r.message?.startsWith("Apply cancelled")) return [];
  const results = r.report?.results ?? [];
  if (r.exitCode !== 0) {
    const failed = results.filter((x) => x.status === "failed").map((x) => x.address);
    return [
      {
        event: "apply_failed",
        summary: failed.length
          ? `apply failed on ${failed.length} object${failed.length === 1 ? "" : "s"}:`
          : "apply stopped before changing anything.",
        counts: r.report?.counts ?? {},
        addresses: failed,
      },
    ];
  }
  const done = results.filter((x) => x.status === "done").map((x) => x.address);
  if (!done.length) return [];
  return [
    {
      event: "apply_succeeded",
      summary: `applied ${done.length} change${done.length === 1 ? "" : "s"}:`,
      counts: r.report?.counts ?? {},
      addresses: done,
    },
  ];
}
