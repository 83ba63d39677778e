/**
 * The commands as functions, one file each: validate, plan, apply, drift, destroy, forget. Each reads like its steps: load the
 * repository, connect, read the state, observe, plan, then (apply only) lock and act. They return
 * data and an exit code; the CLI and the GitHub Action render it.
 *
 * Folder `commands/`: the commands as functions (validate, plan, apply, drift, destroy) and where
 * they connect; each composes the steps, so it may import every step folder, never `src/cli` or
 * `src/github`.
 */
export { validateCommand } from "./validate-command";
export { planCommand } from "./plan";
export { type DriftPlanFound, driftCommand, driftPlan } from "./drift";
export { applyCommand } from "./apply";
