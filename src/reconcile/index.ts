/** The GitOps reconciler as a library: the commands, and the steps they are made of. */
export { applyCommand, driftCommand, planCommand, validateCommand } from "./commands";
export { destroyCommand, planDestroy } from "./destroy";
export type { CommandOptions, CommandResult, ProgressEvent, PublishedToken, TokenPublisher } from "./command-types";
export { loadRepository, type LoadOptions } from "./load";
export { formatLoadError, type DesiredObject, type LoadedProject, type LoadError, type LoadResult, type SourceLocation } from "./model";
export { observe, type Observation } from "./observe";
export { planChanges, type PlanInput, type PlanOutcome } from "./plan";
export { applyPlan, type ApplyContext } from "./apply";
export { driftReport } from "./drift";
export * from "./plan-model";
export { openStateBackend } from "./state/open-backend";
export type { Inventory, InventoryEntry, LockInfo, StateBackend } from "./state/types";
export { outputsPublisher, tokenEnvName } from "./outputs-file";
export { renderApplyReportText, renderDriftMarkdown, renderPlanMarkdown, renderPlanText, toJson } from "./render";
export { isProtected, protectedInventoryBlocks, protectionBlocks, PROTECTED_RULE } from "./protect";
export { PLAN_FORMAT_VERSION, readSavedPlan, savedPlanOf, staleObjects, SavedPlanError, type SavedPlan, type SavedPlanOptions } from "./saved-plan";
export { repositoryDigest, type RepositoryDigest } from "./repository-digest";
