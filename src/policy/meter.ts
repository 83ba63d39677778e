/**
 * The meter of a rule's evaluation: compiled rules call {@link tick} at every step of a
 * comprehension (rules.ts `metered`), and once the deadline {@link arm} set has passed the tick
 * throws, which ends every comprehension of the expression at its next step. evaluate.ts arms
 * the meter before each rule and disarms it after, learning whether it stopped the rule. Evaluation is synchronous, so one
 * meter serves the process.
 */
import { SvcError } from "../errors";

/** The clock is read once every this many steps (a step of cel-es costs about a microsecond). */
const STEPS_PER_READ = 64;

const state = {
  deadline: Number.POSITIVE_INFINITY,
  clock: (): number => performance.now(),
  steps: 0,
  stopped: false,
};

/** The error a tick throws once the time is up; CEL turns it into an error value, and evaluate.ts reports the rule. */
class MeterStop extends SvcError {
  override readonly name = "MeterStop";
  constructor() {
    super("policy_rule_stopped", "the rule's time is up");
  }
}

/** Starts metering one evaluation: it must end by `deadline` on `clock`. */
export function arm(deadline: number, clock: () => number): void {
  state.deadline = deadline;
  state.clock = clock;
  state.steps = 0;
  state.stopped = false;
}

/** Stops metering; says whether the evaluation was stopped since {@link arm}. */
export function disarm(): boolean {
  const stopped = state.stopped;
  state.deadline = Number.POSITIVE_INFINITY;
  state.stopped = false;
  return stopped;
}

/** One step of a comprehension: true, or a throw once the deadline has passed. */
export function tick(): boolean {
  if (state.stopped) throw new MeterStop();
  if (++state.steps % STEPS_PER_READ === 0 && state.clock() > state.deadline) {
    state.stopped = true;
    throw new MeterStop();
  }
  return true;
}
