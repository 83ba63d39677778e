/**
 * Targeted changes, as Terraform's `-target` and `-replace`: `--only PATTERN` limits a plan to the
 * objects whose address matches and what they need (the objects they refer to, the secrets a UDF
 * reads: each kind's `references` and `uses` traits, followed to the end); `--replace PATTERN`
 * forces a replacement of objects nothing forces (a new share token, a new service account, a
 * re-created UDF). Pure: the patterns, the declared objects and the inventory in, a selection out.
 *
 * A pattern is an address in which `*` stands for any text (all the UDFs of one canvas: the canvas's
 * UDF address prefix and `/*`).
 */
import { SvcError } from "../../errors";
import { didYouMean } from "../../repository/diagnostics";
import { dependenciesOf } from "./kind-inputs";
import type { DesiredObject, LoadedProject } from "../../model/desired";
import { addressPrefixOf, byString, PHASES, traitsOf } from "../phases";
import type { Inventory } from "../../model/inventory";

/** What a targeted plan covers and replaces. */
export interface Targeting {
  /** `--only` patterns, as given (empty: the whole repository). */
  readonly only: readonly string[];
  /** `--replace` patterns, as given. */
  readonly replace: readonly string[];
  /** Addresses the plan covers: the `--only` matches and everything they need; undefined: every address. */
  readonly selected?: ReadonlySet<string>;
  /** Declared addresses to replace although nothing forces it. */
  readonly replaced: ReadonlySet<string>;
  /** True when `address` matches an `--only` pattern itself (not only needed by a match); always true without `--only`. */
  matches(address: string): boolean;
}

/** A `--only` or `--replace` that cannot be honoured; nothing is sent to the platform. */
export class TargetingError extends SvcError {
  override readonly name = "TargetingError";
  constructor(message: string) {
    super("targeting_invalid", message);
  }
}

/** The regular expression of a pattern: `*` any text, everything else literal. */
export function patternRegExp(pattern: string): RegExp {
  const literal = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${literal.join(".*")}$`);
}

/** Addresses `d` needs before it can be applied: references, then what the kind says it uses. */
export function needsOf(d: DesiredObject): string[] {
  return [...dependenciesOf(d), ...(traitsOf(d.kind).uses?.(d) ?? [])];
}

function checkPattern(flag: string, p: string): void {
  if (!p.trim()) throw new TargetingError(`--${flag} needs an address or a pattern in which "*" stands for any text.`);
}

/** What matches nothing: the error names the pattern and what addresses look like. */
function noMatch(flag: string, pattern: string, known: string[], where: string): TargetingError {
  const prefix = pattern.split(".")[0] ?? "";
  const sameKind = known.filter((a) => a.startsWith(`${prefix}.`));
  const hint = pattern.includes("*") ? "" : didYouMean(pattern, sameKind.length ? sameKind : known);
  return new TargetingError(
    `--${flag} ${pattern} matches no object ${where}${hint || "."} ` +
      `Addresses start with ${PHASES.flatMap((k) => [addressPrefixOf(k), ...(traitsOf(k).variantPrefixes ?? [])].map((p) => `${p}.`)).join(", ")} (svc-iac plan --json lists them); "*" stands for any text. ` +
      "Nothing was sent to the platform.",
  );
}

/** Why `d` cannot be replaced on request, if it cannot. */
function replaceRefusal(d: DesiredObject): string | undefined {
  const traits = traitsOf(d.kind);
  if (traits.alwaysExists)
    return "it always exists on the platform (it comes with the environment), so there is nothing to re-create";
  return traits.replaceRefused;
}

/**
 * Resolves `--only` and `--replace` against the repository and the inventory.
 * @throws TargetingError naming a pattern that matches nothing, or an object that cannot be replaced.
 * @example
 * const t = resolveTargeting(project, inventory, [pattern], []);
 * t.selected; // the addresses matching `pattern`, and everything they need
 */
export function resolveTargeting(
  project: LoadedProject,
  inventory: Inventory | undefined,
  only: readonly string[],
  replace: readonly string[],
): Targeting {
  // Nothing to match: the common plan, at no cost for 100,000 objects.
  if (!only.length && !replace.length) return { only: [], replace: [], replaced: new Set(), matches: () => true };
  const declared = new Map(project.objects.map((o) => [o.address, o]));
  const recorded = Object.keys(inventory?.objects ?? {});
  const known = [...new Set([...declared.keys(), ...recorded])].sort(byString);
  const matching = (flag: string, patterns: readonly string[], among: string[], where: string): Set<string> => {
    const out = new Set<string>();
    for (const p of patterns) {
      checkPattern(flag, p);
      const re = patternRegExp(p);
      const hits = among.filter((a) => re.test(a));
      if (!hits.length) throw noMatch(flag, p, among, where);
      for (const h of hits) out.add(h);
    }
    return out;
  };
  const scope = `in the repository or the inventory of ${project.project} (${project.target})`;
  const replaced = matching(
    "replace",
    replace,
    [...declared.keys()].sort(byString),
    `declared in the repository of ${project.project} (${project.target}); only declared objects can be replaced`,
  );
  for (const a of [...replaced].sort(byString)) {
    const why = replaceRefusal(declared.get(a)!);
    if (why)
      throw new TargetingError(
        `--replace ${a}: ${a} cannot be replaced on request: ${why}. Nothing was sent to the platform.`,
      );
  }
  if (!only.length) return { only: [], replace: [...replace], replaced, matches: () => true };

  const matched = matching("only", only, known, scope);
  const regexps = only.map(patternRegExp);
  // What the matches need, to the end; replaced objects are part of the plan too.
  const selected = new Set<string>();
  const queue = [...matched, ...replaced];
  while (queue.length) {
    const a = queue.pop()!;
    if (selected.has(a)) continue;
    selected.add(a);
    const d = declared.get(a);
    if (d) for (const n of needsOf(d)) if (declared.has(n)) queue.push(n);
  }
  return {
    only: [...only],
    replace: [...replace],
    selected,
    replaced,
    matches: (a) => regexps.some((re) => re.test(a)),
  };
}

/** No targeting: every object, nothing replaced on request. */
export const WHOLE_REPOSITORY: Targeting = { only: [], replace: [], replaced: new Set(), matches: () => true };
