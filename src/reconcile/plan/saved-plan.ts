/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`), as Terraform's saved plan files: the
 * reviewed plan, the digest of the repository it was made from, and, per object it touches, the
 * platform id and a hash of the state it was planned against. Apply re-observes and executes the
 * saved plan only when nothing it was made from changed; otherwise it refuses, naming what changed
 * ("Saved plan is stale"), before any write. Objects the plan does not touch may change freely.
 *
 * The document holds no secret: field changes of secrets are fingerprints, and observed states are
 * sha256 hashes. Its JSON Schema is `schemas/plan.schema.json`.
 */
import { SvcError } from "../../errors";
import { createHash } from "node:crypto";
import { canonicalJson } from "../../canonical-json";
import type { DesiredKind } from "../../model/desired";
import { traitsOf } from "../phases";
import type { PlanOutcome } from "./";
import type { Plan, PlannedAction } from "./plan-model";
import { changedFiles, type RepositoryDigest } from "../load/repository-digest";

/** Version of the saved-plan document; apply refuses other versions. 2: the `integrity` digest. */
export const PLAN_FORMAT_VERSION = 2;

/** The planning options a saved plan was made with; apply plans again with exactly these. */
export interface SavedPlanOptions {
  prune: boolean;
  max_deletions: number;
  allow_delete_all: boolean;
  /** `--only` patterns (empty: the whole repository). */
  only: string[];
  /** `--replace` addresses. */
  replace: string[];
  /** `--allow-cascade`: deletions may take objects the project does not manage. @default false */
  allow_cascade?: boolean;
}

/** The platform object one action was planned against: `id` and `state` are null when it did not exist. */
export interface ObservedObject {
  kind: DesiredKind;
  id: string | null;
  /** `sha256:<hex>` of the observed state (never the state: it may hold tokens). */
  state: string | null;
}

export interface SavedPlan {
  format_version: typeof PLAN_FORMAT_VERSION;
  project: string;
  target: string;
  /** The time the plan was made (ISO 8601): rotation schedules are judged at this time again on apply. */
  planned_at: string;
  options: SavedPlanOptions;
  repository: RepositoryDigest & {
    /** Paths left out of the digest (the saved plan itself, files the commands write). */
    excluded: string[];
  };
  /** By address: what each object the plan touches was on the platform when planned. */
  observed: Record<string, ObservedObject>;
  /** The policy rules the plan was checked against (absent: none): apply refuses the plan under other rules. */
  policies?: { origin: string; digest: string };
  plan: Plan;
  /**
   * `sha256:<hex>` over the rest of the document (canonical JSON: options, repository, observed
   * states and plan): apply refuses a file whose content no longer matches it, so an edit of the
   * reviewed plan or of its options is caught before anything else is read.
   */
  integrity: string;
}

/** sha256 of an observed state, without the fields the kind calls volatile. */
function hashState(kind: DesiredKind, state: Record<string, unknown>): string {
  const kept = { ...state };
  for (const f of traitsOf(kind).volatile ?? []) delete kept[f];
  return `sha256:${createHash("sha256").update(canonicalJson(kept)).digest("hex")}`;
}

/** What each action of `outcome` was planned against. */
export function observedObjects(outcome: PlanOutcome): Record<string, ObservedObject> {
  const out: Record<string, ObservedObject> = {};
  for (const s of outcome.steps) {
    const o = s.observed;
    out[s.action.address] = {
      kind: s.action.kind,
      id: o?.id ?? null,
      state: o ? hashState(s.action.kind, o.state) : null,
    };
  }
  return out;
}

/** The saved-plan document of `outcome`, before {@link sealSavedPlan} adds its integrity digest. */
export function savedPlanOf(
  outcome: PlanOutcome,
  c: {
    plannedAt: Date;
    options: SavedPlanOptions;
    repository: SavedPlan["repository"];
    policies?: { origin: string; digest: string };
  },
): Omit<SavedPlan, "integrity"> {
  return {
    format_version: PLAN_FORMAT_VERSION,
    project: outcome.plan.project,
    target: outcome.plan.target,
    planned_at: c.plannedAt.toISOString(),
    options: c.options,
    repository: c.repository,
    observed: observedObjects(outcome),
    ...(c.policies ? { policies: { origin: c.policies.origin, digest: c.policies.digest } } : {}),
    plan: outcome.plan,
  };
}

/** A saved plan that cannot be read or does not belong here. */
export class SavedPlanError extends SvcError {
  override readonly name = "SavedPlanError";
  constructor(message: string) {
    super("saved_plan_invalid", message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `sha256:<hex>` of a saved-plan document, its own `integrity` field left out. */
function integrityOf(doc: Record<string, unknown>): string {
  const { integrity: _ignored, ...content } = doc;
  return `sha256:${createHash("sha256").update(canonicalJson(content)).digest("hex")}`;
}

/**
 * The document as it is written, with its integrity digest: `doc` is the JSON text of the plan
 * without one (as written, after secret fields were dropped), so the digest covers exactly the
 * bytes a reader parses.
 */
export function sealSavedPlan(json: string): SavedPlan {
  const doc = JSON.parse(json) as Record<string, unknown>;
  return { ...doc, integrity: integrityOf(doc) } as unknown as SavedPlan;
}

/**
 * Checks the shape of a parsed saved plan (what apply relies on; the full contract is the JSON
 * Schema). Throws {@link SavedPlanError} naming the file and the field.
 */
export function readSavedPlan(doc: unknown, file: string): SavedPlan {
  const bad = (what: string) =>
    new SavedPlanError(`${file} is not a svc-iac saved plan: ${what}. Write one with svc-iac plan --out ${file}.`);
  if (!isRecord(doc)) throw bad("expected a JSON object");
  if (doc.format_version !== PLAN_FORMAT_VERSION) {
    if (typeof doc.format_version === "number") {
      throw new SavedPlanError(
        `${file} has format_version ${doc.format_version}; this svc-iac reads format_version ${PLAN_FORMAT_VERSION}. Plan again with this version.`,
      );
    }
    throw bad("format_version is missing");
  }
  for (const k of ["project", "target", "planned_at"]) if (typeof doc[k] !== "string") throw bad(`${k} is missing`);
  if (Number.isNaN(Date.parse(doc.planned_at as string)))
    throw bad(`planned_at ${JSON.stringify(doc.planned_at)} is not a time`);
  const o = doc.options;
  if (
    !isRecord(o) ||
    typeof o.prune !== "boolean" ||
    typeof o.max_deletions !== "number" ||
    typeof o.allow_delete_all !== "boolean" ||
    !Array.isArray(o.only) ||
    !Array.isArray(o.replace)
  ) {
    throw bad("options must hold prune, max_deletions, allow_delete_all, only and replace");
  }
  // Before any field is trusted: the document must be exactly what plan wrote.
  if (typeof doc.integrity !== "string") throw bad("integrity is missing");
  if (doc.integrity !== integrityOf(doc)) {
    throw new SavedPlanError(
      `${file} was changed after svc-iac plan wrote it: its content (the plan's actions, its options or what it was planned against) no longer matches its integrity digest ${doc.integrity.slice(0, 19)}…, so nothing was applied. A saved plan is applied only as it was reviewed: run svc-iac plan --out ${file} again, review it, and apply that.`,
    );
  }
  const r = doc.repository;
  if (!isRecord(r) || typeof r.digest !== "string" || !isRecord(r.files) || !Array.isArray(r.excluded))
    throw bad("repository must hold digest, files and excluded");
  if (!isRecord(doc.observed)) throw bad("observed is missing");
  if (!isRecord(doc.plan) || !Array.isArray(doc.plan.actions)) throw bad("plan.actions is missing");
  return doc as unknown as SavedPlan;
}

/** One reason a saved plan is stale. */
export interface StaleObject {
  address: string;
  why: string;
}

const actionText = (a: PlannedAction | undefined) => (a ? canonicalJson(a) : "");

/**
 * What changed since `saved` was planned, comparing it with `fresh`, the plan made now with the
 * same options and time: every object the saved plan touches must have the same id and state
 * hash, and must plan to exactly the same action. Empty: the saved plan may be applied as is.
 */
export function staleObjects(saved: SavedPlan, fresh: PlanOutcome): StaleObject[] {
  const now = observedObjects(fresh);
  const freshActions = new Map(fresh.steps.map((s) => [s.action.address, s.action]));
  const out: StaleObject[] = [];
  for (const a of saved.plan.actions) {
    const before = saved.observed[a.address];
    const after = now[a.address];
    const current = freshActions.get(a.address);
    if (before && after && (before.id !== after.id || before.state !== after.state)) {
      const why =
        before.id === null
          ? "it now exists on the platform"
          : after.id === null
            ? `it (id ${before.id}) is gone from the platform`
            : `it (id ${before.id}) changed on the platform since the plan`;
      out.push({ address: a.address, why });
    } else if (!current) {
      out.push({
        address: a.address,
        why: "it changed on the platform since the plan: it no longer needs the planned change",
      });
    } else if (actionText(current) !== actionText(a)) {
      out.push({
        address: a.address,
        why: `its planned change is no longer the same (${a.action} planned, ${current.action} needed now)`,
      });
    }
  }
  return out;
}

/** The message of a stale saved plan, in the words Terraform uses. */
export function staleMessage(
  file: string,
  repository: { before: SavedPlan["repository"]; now: RepositoryDigest } | undefined,
  objects: StaleObject[],
): string {
  const lines = [`Saved plan is stale: ${file} no longer matches what it was planned against, so nothing was applied.`];
  if (repository) {
    const files = changedFiles(repository.before.files, repository.now.files);
    lines.push(
      `The repository changed since the plan${files.length ? `: ${files.join(", ")}` : " (the target differs)"}.`,
    );
  }
  for (const o of objects) lines.push(`${o.address}: ${o.why}.`);
  lines.push("Run svc-iac plan again, review it, and apply the new plan.");
  return lines.join("\n");
}

/**
 * The stale-plan message when the policy rules `now` (undefined: none) are not those the saved
 * plan was checked against; undefined when they are.
 */
export function stalePolicies(
  file: string,
  saved: SavedPlan,
  now: { origin: string; digest: string } | undefined,
): string | undefined {
  if ((saved.policies?.digest ?? "") === (now?.digest ?? "")) return undefined;
  const before = saved.policies ? `the rules of ${saved.policies.origin}` : "no policy rules";
  const after = now ? `the rules of ${now.origin} differ` : "no rules are found now";
  return [
    `Saved plan is stale: ${file} was checked against ${before}, and ${after}, so nothing was applied.`,
    "Run svc-iac plan again under the current rules, review it, and apply the new plan.",
  ].join("\n");
}

/**
 * Each planning option in which the saved plan differs from what this apply was asked for (its
 * flags or inputs, else svc.yaml's settings), as one sentence: apply uses the saved plan's own
 * options, and says so rather than silently overriding what the caller asked.
 * @example
 * optionDifferences({ ...o, prune: false }, { ...o, prune: true })
 * // ['The saved plan was made with prune: false; this apply was asked for prune: true. It applies the saved plan\'s prune: false.']
 */
export function optionDifferences(stored: SavedPlanOptions, asked: SavedPlanOptions): string[] {
  const shown = (o: SavedPlanOptions, k: keyof SavedPlanOptions) => {
    const v = o[k] ?? false;
    return Array.isArray(v) ? (v.length ? v.join(" ") : "(none)") : String(v);
  };
  const keys: (keyof SavedPlanOptions)[] = [
    "prune",
    "max_deletions",
    "allow_delete_all",
    "allow_cascade",
    "only",
    "replace",
  ];
  return keys
    .filter((k) => shown(stored, k) !== shown(asked, k))
    .map(
      (k) =>
        `The saved plan was made with ${k}: ${shown(stored, k)}; this apply was asked for ${k}: ${shown(asked, k)}. It applies the saved plan's ${k}: ${shown(stored, k)}.`,
    );
}

/** `outcome` cut down to the actions of `saved` (objects the saved plan does not touch are left alone). */
export function restrictToSaved(outcome: PlanOutcome, saved: SavedPlan): PlanOutcome {
  const wanted = new Set(saved.plan.actions.map((a) => a.address));
  const steps = outcome.steps.filter((s) => wanted.has(s.action.address));
  return { ...outcome, steps, plan: saved.plan };
}
