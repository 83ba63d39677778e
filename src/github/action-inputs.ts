/**
 * The action's inputs, read from `INPUT_*` environment variables as the runner sets them for a
 * JavaScript action: the input's name upper-cased, spaces as `_`, hyphens kept
 * (`INPUT_WORKING-DIRECTORY`). The all-underscore spelling (`INPUT_WORKING_DIRECTORY`, which a
 * shell can set) is accepted too. Every bad input is reported at once.
 */
import { SvcError } from "../errors";

export type ActionCommand = "validate" | "plan" | "apply" | "drift" | "destroy" | "projects";
export const ACTION_COMMANDS: readonly ActionCommand[] = ["validate", "plan", "apply", "drift", "destroy", "projects"];

/** Where rotated tokens go besides the log mask. */
export type SecretsTarget = { kind: "none" } | { kind: "repository" } | { kind: "environment"; name: string };

export interface ActionInputs {
  command: ActionCommand;
  /** @default "." */
  workingDirectory: string;
  /** @default "default" */
  target: string;
  /** @default false */
  prune: boolean;
  maxDeletions?: number;
  /** @default false */
  allowDeleteAll: boolean;
  /** Plan, apply and destroy: deletions may take objects the project does not manage with them. @default false */
  allowCascade: boolean;
  /** @default false */
  discardTokens: boolean;
  /** Plan and drift exit 2 when there are changes or drift (0 otherwise: the has-changes and has-drift outputs tell). @default false */
  detailedExitCode: boolean;
  /** Post or edit the plan comment on pull requests. @default true */
  comment: boolean;
  /** `comment: combined`: every project of the pull request shares one comment (monorepos). @default false */
  combinedComment: boolean;
  /** Projects: list only those a change since this commit affects (default: the pull request's base, or a push's previous head). */
  changedSince?: string;
  /** Projects: only these targets in the matrix (default: every target). @default [] */
  targets: string[];
  /** Open, update and close the drift issue. @default true */
  driftIssue: boolean;
  /** Drift: settle it as each object's on_drift says (`drift --remediate`); keep changes become a pull request. @default false */
  remediate: boolean;
  /** @default "svc-iac-drift" */
  driftIssueLabel: string;
  /** @default none */
  githubSecrets: SecretsTarget;
  /** Token for comments and issues. */
  githubToken?: string;
  /** Token for writing secrets (PAT or GitHub App token). @default githubToken */
  secretsToken?: string;
  /** Folder for the full report (`report.md`, `report.json`). @default "svc-iac-report" */
  reportPath: string;
  /** Plan: also write the saved plan here; apply: execute exactly this saved plan (relative to the workspace). */
  planFile?: string;
  /** Plan and apply: `--only` patterns (whitespace- or newline-separated in the input). @default [] */
  only: string[];
  /** Plan and apply: `--replace` patterns (whitespace- or newline-separated in the input). @default [] */
  replace: string[];
  /** Validate, plan, apply, drift: the policy rules from this file or folder (`--policies`). */
  policies?: string;
  /** Validate, plan, apply, drift: `policies.yaml` at this revision (`--policies-ref`). @default the pull request's base commit */
  policiesRef?: string;
}

export class ActionInputError extends SvcError {
  override readonly name = "ActionInputError";
  constructor(readonly problems: string[]) {
    super("action_input_invalid", problems.join(" "));
  }
}

/** Reads and checks every input. @throws ActionInputError listing every bad input. */
export function readActionInputs(env: Record<string, string | undefined>): ActionInputs {
  const problems: string[] = [];
  const get = (name: string): string =>
    (
      env[`INPUT_${name.toUpperCase().replace(/ /g, "_")}`] ??
      env[`INPUT_${name.toUpperCase().replace(/[- ]/g, "_")}`] ??
      ""
    ).trim();
  const bool = (name: string, fallback: boolean): boolean => {
    const v = get(name);
    if (v === "") return fallback;
    if (["true", "True", "TRUE"].includes(v)) return true;
    if (["false", "False", "FALSE"].includes(v)) return false;
    problems.push(`Input "${name}" is "${v}"; expected true or false.`);
    return fallback;
  };

  const command = get("command");
  if (!ACTION_COMMANDS.includes(command as ActionCommand)) {
    problems.push(
      command
        ? `Input "command" is "${command}"; expected one of ${ACTION_COMMANDS.join(", ")}.`
        : `Input "command" is required; expected one of ${ACTION_COMMANDS.join(", ")}.`,
    );
  }
  const maxDeletionsText = get("max-deletions");
  let maxDeletions: number | undefined;
  if (maxDeletionsText !== "") {
    // Digits only, as the command line's --max-deletions: not "1e3" or "0x10" (inputs are trimmed, as the runner does).
    maxDeletions = /^\d+$/.test(maxDeletionsText) ? Number(maxDeletionsText) : Number.NaN;
    if (!Number.isSafeInteger(maxDeletions))
      problems.push(`Input "max-deletions" is "${maxDeletionsText}"; expected a whole number, 0 or more.`);
  }
  const githubSecrets = parseSecretsTarget(get("github-secrets"), problems);

  const inputs: ActionInputs = {
    command: command as ActionCommand,
    workingDirectory: get("working-directory") || ".",
    target: get("target") || "default",
    prune: bool("prune", false),
    maxDeletions,
    allowDeleteAll: bool("allow-delete-all", false),
    allowCascade: bool("allow-cascade", false),
    discardTokens: bool("discard-tokens", false),
    detailedExitCode: bool("detailed-exitcode", false),
    comment: get("comment") === "combined" || commentFlag(get("comment"), problems),
    combinedComment: get("comment") === "combined",
    changedSince: get("changed-since") || undefined,
    targets: words(get("targets")),
    driftIssue: bool("drift-issue", true),
    remediate: bool("remediate", false),
    driftIssueLabel: get("drift-issue-label") || "svc-iac-drift",
    githubSecrets,
    githubToken: get("github-token") || env.GITHUB_TOKEN || undefined,
    secretsToken: get("secrets-token") || undefined,
    reportPath: get("report-path") || "svc-iac-report",
    planFile: get("plan-file") || undefined,
    only: words(get("only")),
    replace: words(get("replace")),
    ...(get("policies") ? { policies: get("policies") } : {}),
    ...(get("policies-ref") ? { policiesRef: get("policies-ref") } : {}),
  };
  if (inputs.command === "apply" && inputs.planFile) {
    const planning = (["only", "replace"] as const).filter((k) => inputs[k].length);
    if (planning.length)
      problems.push(
        `Input${planning.length > 1 ? "s" : ""} ${planning.map((k) => `"${k}"`).join(" and ")} cannot be combined with "plan-file" on apply: a saved plan is applied with the options it was planned with.`,
      );
  }
  if (problems.length > 0) throw new ActionInputError(problems);
  return inputs;
}

/** `comment`: true, false or combined. */
function commentFlag(v: string, problems: string[]): boolean {
  if (v === "" || /^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  problems.push(`Input "comment" is "${v}"; expected true, false or combined.`);
  return true;
}

/** A list input: addresses separated by whitespace or newlines (YAML block scalars work). */
const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** `none` | `repository` | `environment:<name>`. */
export function parseSecretsTarget(text: string, problems: string[]): SecretsTarget {
  if (text === "" || text === "none") return { kind: "none" };
  if (text === "repository" || text === "repo") return { kind: "repository" };
  const env = /^environment:(.+)$/.exec(text);
  if (env && env[1].trim() !== "") return { kind: "environment", name: env[1].trim() };
  problems.push(
    `Input "github-secrets" is "${text}"; expected none, repository or environment:<name> (e.g. environment:prod).`,
  );
  return { kind: "none" };
}
