/**
 * The "yes" apply and destroy ask for on a terminal before they change anything, and what ends it
 * besides an answer: Ctrl-C and termination signals, after which nothing has changed.
 */
import { createInterface } from "node:readline/promises";
import type { Plan } from "../reconcile/plan/plan-model";

interface PromptIo {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
}

/** What happened at the confirmation prompt besides an answer. */
export interface Prompt {
  /** The signal (or Ctrl-C typed at the prompt) that ended it: nothing was changed. */
  interrupted?: NodeJS.Signals;
}

/** `Apply this change to p (default)? …`, `Apply these 12 changes …`, `Destroy these 3 objects …`. */
export function confirmQuestion(
  plan: Pick<Plan, "actions" | "project" | "target">,
  name: "apply" | "destroy" | "roll back",
): string {
  const n = plan.actions.length;
  const what =
    name === "destroy"
      ? n === 1
        ? "Destroy this object of"
        : `Destroy these ${n.toLocaleString("en-US")} objects of`
      : name === "roll back"
        ? n === 1
          ? "Roll back this change to"
          : `Roll back these ${n.toLocaleString("en-US")} changes to`
        : n === 1
          ? "Apply this change to"
          : `Apply these ${n.toLocaleString("en-US")} changes to`;
  return `${what} ${plan.project} (${plan.target})?${name === "destroy" ? " There is no undo." : ""} Only "yes" is accepted:`;
}

/**
 * Asks for "yes". Ctrl-C typed at the prompt (readline holds the terminal in raw mode, so it is a
 * key, not a signal), SIGINT or SIGTERM from elsewhere, or the end of stdin end the question with
 * "no", so the command stops the usual way: nothing changed, the lock released.
 */
export async function confirmOnTerminal(
  io: PromptIo,
  plan: Plan,
  name: "apply" | "destroy" | "roll back",
  prompt: Prompt,
): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  const stop = new AbortController();
  const interrupt = (signal: NodeJS.Signals) => {
    prompt.interrupted ??= signal;
    stop.abort();
  };
  const onSignal = (signal: NodeJS.Signals) => interrupt(signal);
  rl.on("SIGINT", () => interrupt("SIGINT"));
  rl.on("close", () => stop.abort());
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const question = `\n${confirmQuestion(plan, name)} `;
  try {
    const answer = await rl.question(question, { signal: stop.signal });
    return answer.trim() === "yes";
  } catch (e) {
    if (stop.signal.aborted) return false;
    throw e;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    rl.close();
  }
}
