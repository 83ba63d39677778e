/**
 * Renderers of the reconciler's documents: pure functions from a plan or report to text.
 *
 * Folder `render/`: plans, reports and drift as text, Markdown and JSON. Pure. May import
 * `src/model`, `src/kinds`, and the data of `../plan`, `../commands` and `../import`.
 */
export { ACTION_WORDS, DISPLAY_ORDER } from "./action-words";
export { renderDriftMarkdown, type DriftMarkdownOptions } from "./drift-markdown";
export { renderDriftText, type DriftTextOptions } from "./drift-text";
export { failureJson, stopCode, toJson } from "./json";
export { DEFAULT_MAX_CHARS } from "./markdown-fit";
export { code, htmlText, markdownText } from "./markdown-escape";
export { renderPlanMarkdown, type PlanMarkdownOptions } from "./plan-markdown";
export { actionDetailLines, planSummaryLine, renderPlanText, type PlanTextOptions } from "./plan-text";
export { progressDisplay } from "./progress";
export { renderApplyReportText, resultLine } from "./report-text";
export { DIFF_MAX_LINES, withTextDiffs } from "./text-diff";
export {
  cleanText,
  describeFieldChange,
  formatFingerprint,
  formatValue,
  isShownFingerprint,
  lineChangeCounts,
  sortKeysDeep,
} from "./values";
