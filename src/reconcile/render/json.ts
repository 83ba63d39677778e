/**
 * The JSON form of plans, saved plans and reports (`plan --json`, `plan --out`, `drift --format json`): keys sorted at
 * every depth, two-space indent, a final line break, so equal documents are equal bytes and
 * diff cleanly in review.
 */
import type { LoadError } from "../../model/desired";
import type { ApplyReport, DriftReport, Plan } from "../plan/plan-model";
import type { SavedPlan } from "../plan/saved-plan";
import { isShownFingerprint, sortKeysDeep } from "./values";

/**
 * Deterministic JSON of a plan or report. The `from`/`to`/`diff` of a field marked `secret` are
 * dropped even if a caller put them there: only keyed fingerprints of secrets leave the process.
 */
export function toJson(doc: Plan | DriftReport | ApplyReport | SavedPlan | Omit<SavedPlan, "integrity">): string {
  return JSON.stringify(sortKeysDeep(withoutSecretValues(doc)), null, 2) + "\n";
}

function withoutSecretValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretValues);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record)) {
    if (record.secret === true && (key === "from" || key === "to" || key === "diff")) continue;
    // Only fingerprints under the project's key leave the process (a key-less one can be tested against guesses).
    if (record.secret === true && (key === "fromFingerprint" || key === "toFingerprint") && !isShownFingerprint(v))
      continue;
    out[key] = withoutSecretValues(v);
  }
  return out;
}

/**
 * The JSON document of a command that stopped before it had a plan or a report to print: the
 * repository's errors (`file`, `line`, `column`, `path`, `message`; secrets already scrubbed),
 * why it stopped and its stable `code` (the error's own, see `src/errors.ts`; `repository_invalid`
 * for errors in the repository, `command_failed` for a stop that is no error, such as a stale plan),
 * so `--json` always prints one document a script can read and branch on.
 */
export function failureJson(
  errors: readonly LoadError[],
  message: string | undefined,
  extra: Record<string, unknown> = {},
): string {
  const why =
    message ??
    `${errors.length} error${errors.length === 1 ? "" : "s"} in the repository; nothing was sent to the platform.`;
  const code = stopCode(errors, message, extra.code);
  return JSON.stringify(sortKeysDeep({ ...extra, code, errors, message: why }), null, 2) + "\n";
}

/** The code of a stopped command: the error's own when there was one, else what stopped it. */
export function stopCode(errors: readonly LoadError[], message: string | undefined, code?: unknown): string {
  if (typeof code === "string" && code) return code;
  return errors.length && message === undefined ? "repository_invalid" : "command_failed";
}
