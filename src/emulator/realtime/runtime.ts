/**
 * Settings and shared state of the emulator's UDF runs: which Python, the run time limit, where
 * run folders go, how many Python processes run at once, and entrypoint descriptions by code.
 */
import { availableParallelism } from "node:os";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { UdfDescription, UdfRunFailure } from "../udf-runner";
import { SvcError } from "../../errors";

/** Run folders kept (the oldest are removed beyond this). */
const KEPT_RUN_DIRS = 200;

export interface RealtimeRuntime {
  /** Interpreter command or path. @default "python3" */
  python: string;
  /** Run time limit in milliseconds. @default 60000 */
  timeLimitMs: number;
  /** A fresh working folder for one run (its cwd and log folder); the oldest beyond 200 go. */
  runDir(requestId: string): string;
  /** Waits for a free Python slot; call the returned function when done. */
  acquire(): Promise<() => void>;
  /** Entrypoint descriptions by run hash (the code decides them, so they never go stale). */
  descriptions: Map<string, UdfDescription | UdfRunFailure>;
  /** Aborted by {@link close}: runs in progress are killed, later ones stop at once. */
  signal: AbortSignal;
  /** Kills every run in progress (the emulator is closing). */
  close(): void;
}

export interface RealtimeRuntimeOptions {
  python?: string;
  timeLimitMs?: number;
  /** Parent of the run folders. */
  runsDir: string;
  /** Python processes at once. @default availableParallelism() */
  maxConcurrent?: number;
}

/** Throws when a run time limit is not a positive number of milliseconds. */
export function checkRunTimeLimit(ms: number | undefined): void {
  if (ms !== undefined && !(Number.isFinite(ms) && ms > 0))
    throw new SvcError(
      "emulator_option_invalid",
      `Invalid runTimeLimitMs ${ms}. Expected a number of milliseconds above 0.`,
    );
}

export function createRealtimeRuntime(o: RealtimeRuntimeOptions): RealtimeRuntime {
  const recent: string[] = [];
  const closing = new AbortController();
  const limit = Math.max(1, o.maxConcurrent ?? availableParallelism());
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };
  return {
    python: o.python ?? "python3",
    timeLimitMs: o.timeLimitMs ?? 60_000,
    runDir(requestId) {
      const dir = join(o.runsDir, requestId);
      mkdirSync(dir, { recursive: true });
      recent.push(dir);
      while (recent.length > KEPT_RUN_DIRS) rmSync(recent.shift()!, { recursive: true, force: true });
      return dir;
    },
    acquire() {
      if (running < limit) {
        running++;
        return Promise.resolve(release);
      }
      return new Promise((resolve) => waiting.push(() => resolve(release)));
    },
    descriptions: new Map(),
    signal: closing.signal,
    close: () => closing.abort(),
  };
}
