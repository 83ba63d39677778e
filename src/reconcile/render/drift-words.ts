/**
 * What each drift class is called and what it means, in one table so the text report (terminal)
 * and the Markdown report (job summary, drift issue) say the same thing.
 */
import type { DriftClass } from "../plan/plan-model";

export interface DriftClassWords {
  title: string;
  /** The sentence under the class's heading; `quote` formats a command (plain, or Markdown code). */
  intro: (quote: (s: string) => string) => string;
  /** What an object of the class is, after its address; "" for changed objects (their fields say it). */
  each: string;
}

export const DRIFT_CLASS_WORDS: Record<DriftClass, DriftClassWords> = {
  changed: {
    title: "Changed",
    intro: () => "Managed objects that differ from the repository (platform value → repository value).",
    each: "",
  },
  missing: {
    title: "Missing",
    intro: () => "In the inventory, gone from the platform.",
    each: "deleted on the platform out of band",
  },
  orphaned: {
    title: "Orphaned",
    intro: (q) =>
      `In the inventory, no longer in the repository, still on the platform: ${q("svc-iac apply --prune")} deletes them; to keep one, add it back to the repository.`,
    each: "removed from the repository, still on the platform",
  },
  unmanaged: {
    title: "Unmanaged",
    intro: () => "On the platform where this project manages objects, but not in the repository or the inventory.",
    each: "exists on the platform, declared nowhere",
  },
  pending: {
    title: "Pending",
    intro: () => "In the repository, not yet on the platform.",
    each: "declared, never applied",
  },
};
