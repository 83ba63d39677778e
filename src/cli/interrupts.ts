/**
 * Ctrl-C (SIGINT) and SIGTERM during apply and destroy: the first starts no new step and lets the
 * ones in flight finish (each request is bounded by its timeout), so their results are saved in
 * the inventory and the lock is released; the second stops the process at once (exit 130). Before
 * the plan is approved (while it is made, under the lock) the first one means: change nothing.
 */
import type { ApplyReport } from "../reconcile/plan/plan-model";

export interface Interrupts {
  /** Why no new step may start: the signal received, or undefined. */
  readonly reason: () => string | undefined;
  /** Starts listening: from the start of the command (it may hold the lock while it plans), but not while the `yes` prompt listens itself. */
  listen(): void;
  /** The plan was approved: from now on a signal lets the steps in flight finish (before, nothing has started). */
  approve(): void;
  /** Whether a signal came before the plan was approved (so nothing was changed). */
  readonly beforeApproval: () => boolean;
  /** Stops listening. */
  close(): void;
}

/** Signal handling for one command; `say` writes to stderr. */
export function interruptsFor(
  say: (text: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): Interrupts {
  let received: NodeJS.Signals | undefined;
  let approved = false;
  let receivedBeforeApproval = false;
  const on = (signal: NodeJS.Signals) => {
    if (received) {
      say(
        `\nStopped at once (${signal} again): steps in flight may have changed the platform without being recorded; the next apply finds them by name.\n`,
      );
      exit(130);
      return;
    }
    received = signal;
    receivedBeforeApproval = !approved;
    if (!approved) {
      say(
        `\nInterrupting (${signal}): nothing will be changed; finishing the read of the platform, then releasing the lock. Press Ctrl-C again to stop at once.\n`,
      );
      return;
    }
    say(
      `\nInterrupting (${signal}): no new step starts; waiting for the steps in flight, then saving the inventory and releasing the lock. Press Ctrl-C again to stop at once.\n`,
    );
  };
  let listening = false;
  return {
    reason: () => (received ? `interrupted (${received})` : undefined),
    approve: () => void (approved = true),
    beforeApproval: () => receivedBeforeApproval,
    listen() {
      if (listening) return;
      listening = true;
      process.on("SIGINT", on);
      process.on("SIGTERM", on);
    },
    close() {
      if (!listening) return;
      listening = false;
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}

/** "Interrupted: 812 done, 1,188 not started. Run apply again to continue." */
export function interruptedLine(report: ApplyReport | undefined, command: "apply" | "destroy"): string {
  const results = report?.results ?? [];
  const done = results.filter((r) => r.status === "done").length;
  const notStarted = results.filter((r) => r.status === "skipped").length;
  const failed = results.filter((r) => r.status === "failed").length;
  const n = (x: number) => x.toLocaleString("en-US");
  return `Interrupted: ${n(done)} done, ${failed ? `${n(failed)} failed, ` : ""}${n(notStarted)} not started. Run ${command} again to continue.\n`;
}
