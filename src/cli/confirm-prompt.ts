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

/**
 * Asks for "yes". Ctrl-C typed at the prompt (readline holds the terminal in raw mode, so it is a
 * key, not a signal), SIGINT or SIGTERM from elsewhere, or the end of stdin end the question with
 * "no", so the command stops the usual way: nothing changed, the lock released.
 */
export async function confirmOnTerminal(io: PromptIo, plan: Plan, name: "apply" | "destroy", prompt: Prompt): Promise<boolean> {
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
  const question =
    name === "destroy"
      ? `\nDestroy these ${plan.actions.length} objects of ${plan.project} (${plan.target})? There is no undo. Only "yes" is accepted: `
      : `\nApply these ${plan.actions.length} changes to ${plan.project} (${plan.target})? Only "yes" is accepted: `;
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
