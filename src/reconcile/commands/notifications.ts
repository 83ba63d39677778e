/** The `notify:` webhooks of a loaded project, told about what a command did (see ../notify/webhooks.ts). */
import type { LoadedProject } from "../../model/desired";
import { notify, type NotifyMessage } from "../notify/webhooks";
import type { CommandOptions } from "./command-types";
import { secretValues } from "./session";

/** Sends each message in order to the webhooks that want its event; never throws. */
export async function notifyAll(
  project: LoadedProject,
  opts: CommandOptions,
  messages: Omit<NotifyMessage, "project" | "target">[],
): Promise<void> {
  const targets = project.settings.notify ?? [];
  if (!targets.length) return;
  const ctx = {
    targets,
    env: opts.env,
    secrets: [...secretValues(project, opts.env)],
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
