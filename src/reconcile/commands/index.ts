/**
 * The commands as functions, one file each. Each reads like its steps: load the repository,
 * connect, read the state, observe, plan, then (apply only) lock and act. They return data and an
 * exit code; the CLI and the GitHub Action render it.
 *
 * Folder `commands/`: the commands as functions, one file per verb (validate, plan, apply, drift,
 * destroy, forget, import and keep, show, run, test, projects), what plan, apply and drift share
 * (`session.ts`) and where they connect (`connect.ts`); the feature folders hold their steps.
 * Each composes the steps, so it may import every step folder, never `src/cli` or `src/github`.
 */
export { validateCommand } from "./validate";
export { planCommand } from "./plan";
export { type DriftPlanFound, driftCommand, driftPlan } from "./drift";
export { applyCommand } from "./apply";
export { remediateCommand } from "./remediate";
