/** The GitOps reconciler as a library: the commands, and the steps they are made of. */
export { applyCommand, driftCommand, planCommand, validateCommand } from "./commands";
export { destroyCommand, planDestroy } from "./commands/destroy";
export type {
  ApplyOptions,
  ChangeOptions,
  ClientTuning,
  CommandOptions,
  CommandResult,
  DestroyOptions,
  DriftOptions,
  LockOptions,
  PlanningOptions,
  PlanOptions,
  PolicyOptions,
  ProgressEvent,
  PublishedToken,
  RepositoryOptions,
  TokenOptions,
  TokenPublisher,
  ValidateOptions,
} from "./commands/command-types";
export { loadRepository, type LoadOptions } from "./load";
export {
  formatLoadError,
  type DesiredObject,
  type LoadedProject,
  type LoadError,
  type LoadResult,
  type SourceLocation,
  type UdfTest,
} from "../model/desired";
export { observe, type Observation } from "./observe";
export { planChanges, type PlanInput, type PlanOutcome } from "./plan";
export { applyPlan, type ApplyContext } from "./apply";
export { driftReport } from "./plan/drift";
export * from "./plan/plan-model";
export { openStateBackend } from "./state/open-backend";
export type { Inventory, InventoryEntry } from "../model/inventory";
export type { LockInfo, StateBackend } from "./state/types";
export { outputsPublisher, tokenEnvName } from "./apply/outputs-file";
export { renderApplyReportText, renderDriftMarkdown, renderPlanMarkdown, renderPlanText, toJson } from "./render";
export { isProtected, protectedInventoryBlocks, protectionBlocks, PROTECTED_RULE } from "./plan/protect";
export {
  PLAN_FORMAT_VERSION,
  readSavedPlan,
  savedPlanOf,
  staleObjects,
  SavedPlanError,
  type SavedPlan,
  type SavedPlanOptions,
} from "./plan/saved-plan";
export { repositoryDigest, type RepositoryDigest } from "./load/repository-digest";
export {
  testCommand,
  selectTests,
  changedUdfs,
  type TestCommandOptions,
  type TestCommandResult,
  type TestReport,
} from "./commands/test";
export { expectMismatches, type Mismatch } from "./udf-tests/expect-match";
export type { TestOutcome } from "./udf-tests/run-tests";
