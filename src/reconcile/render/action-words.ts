/**
 * The words and symbols each action type is shown with, in one table so the plan, the apply
 * report and the progress display say the same thing.
 */
import type { ActionType } from "../plan/plan-model";

interface ActionWords {
  /** Terraform-like marker in front of a plan line. */
  symbol: string;
  /** `created`, for the apply report. */
  past: string;
  /** `creating`, for the progress display. */
  ongoing: string;
  /** The color of the plan line: additions green, in-place changes yellow, removals red. */
  color: "green" | "yellow" | "red";
}

export const ACTION_WORDS: Record<ActionType, ActionWords> = {
  create: { symbol: "+", past: "created", ongoing: "creating", color: "green" },
  adopt: { symbol: "=", past: "adopted", ongoing: "adopting", color: "yellow" },
  update: { symbol: "~", past: "updated", ongoing: "updating", color: "yellow" },
  rename: { symbol: "~", past: "renamed", ongoing: "renaming", color: "yellow" },
  replace: { symbol: "-/+", past: "replaced", ongoing: "replacing", color: "red" },
  delete: { symbol: "-", past: "deleted", ongoing: "deleting", color: "red" },
  share: { symbol: "+", past: "shared", ongoing: "sharing", color: "green" },
  unshare: { symbol: "-", past: "unshared", ongoing: "unsharing", color: "red" },
  rotate: { symbol: "⟳", past: "rotated", ongoing: "rotating", color: "yellow" },
  forget: { symbol: "·", past: "forgotten", ongoing: "forgetting", color: "yellow" },
};

/** The order actions are listed in summaries: what appears, what changes, what goes. */
export const DISPLAY_ORDER: readonly ActionType[] = [
  "create",
  "adopt",
  "update",
  "rename",
  "replace",
  "delete",
  "share",
  "unshare",
  "rotate",
  "forget",
];

/** Words for an action given as a plain string (progress events); unknown actions are shown as given. */
export function wordsFor(action: string): ActionWords {
  return (
    (ACTION_WORDS as Record<string, ActionWords | undefined>)[action] ?? {
      symbol: "?",
      past: action,
      ongoing: action,
      color: "yellow",
    }
  );
}
