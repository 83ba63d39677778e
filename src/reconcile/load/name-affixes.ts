/**
 * Preview environments: a target's `name_prefix` / `name_suffix` (`pr_${env.PR_NUMBER}_`) wraps the
 * platform name of every object whose kind names it (the `nameInput` trait: canvases, cronjobs,
 * service accounts, UDFs without a canvas), so a pull request deploys a full copy beside production on the same team.
 * Addresses (`canvas.sales`) stay as written, and references are by address, so a cronjob's
 * `udf: sales/loader` follows to the prefixed canvas. A name the affixes make invalid is an
 * error at the affix in svc.yaml, naming the object and the rule it breaks.
 */
import type { DesiredObject, SourceLocation } from "../../model/desired";
import { traitsOf } from "../phases";
import type { Diagnostics } from "../../repository/diagnostics";
import { joinPath, type MapReader, type ReadContext } from "../../repository/fields";
import { kindFailures } from "./validate";
import { locate } from "../../repository/yaml-source";

export interface NameAffixes {
  prefix: string;
  suffix: string;
  /** Where each affix is written (svc.yaml), for errors. */
  prefixAt?: SourceLocation;
  suffixAt?: SourceLocation;
}

/** Reads `name_prefix` and `name_suffix` of the selected target; undefined when it sets neither. */
export function readNameAffixes(ctx: ReadContext, target: MapReader): NameAffixes | undefined {
  const expected =
    'a string put before (or after) each canvas, cronjob, service-account and canvas-less UDF name, e.g. "pr_${env.PR_NUMBER}_"';
  const prefix = target.string("name_prefix", { expected });
  const suffix = target.string("name_suffix", { expected });
  if (!prefix && !suffix) return undefined;
  const at = (key: string) => locate(ctx.src, target.nodeOf(key), joinPath(target.path, key));
  return {
    prefix: prefix ?? "",
    suffix: suffix ?? "",
    ...(prefix ? { prefixAt: at("name_prefix") } : {}),
    ...(suffix ? { suffixAt: at("name_suffix") } : {}),
  };
}

/**
 * Wraps the names of `objects` in the affixes, in place; reports names they make invalid. Returns
 * the objects the target keeps: team-wide ones (secret keys) are left to the unprefixed target,
 * each with a warning.
 */
export function applyNameAffixes(
  objects: DesiredObject[],
  names: NameAffixes | undefined,
  target: string,
  diag: Diagnostics,
): { objects: DesiredObject[]; warnings: string[] } {
  if (!names) return { objects, warnings: [] };
  const warnings = objects
    .filter((o) => traitsOf(o.kind).teamWide)
    .map(
      (o) =>
        `${o.address} is not managed by target "${target}": it is one per team and a name_prefix or name_suffix cannot rename it, so the target without one manages it (this target neither changes nor destroys it).`,
    );
  const kept = objects.filter((o) => !traitsOf(o.kind).teamWide);
  for (const o of kept) {
    const named = traitsOf(o.kind).nameInput;
    const field = typeof named === "function" ? named(o.address) : named;
    const name = field === undefined ? undefined : o.inputs[field];
    if (field === undefined || typeof name !== "string") continue;
    // A new inputs object, not a change in place: checked inputs are kept per inputs object (checked-inputs.ts).
    o.inputs = { ...o.inputs, [field]: `${names.prefix}${name}${names.suffix}` };
    for (const f of kindFailures(o).filter((x) => x.property === field)) {
      const at = names.prefixAt ?? names.suffixAt!;
      const affixes = [
        names.prefix && `name_prefix ${JSON.stringify(names.prefix)}`,
        names.suffix && `name_suffix ${JSON.stringify(names.suffix)}`,
      ]
        .filter(Boolean)
        .join(" and ");
      diag.add({
        ...at,
        message: `${affixes} make${names.prefix && names.suffix ? "" : "s"} an invalid name for ${o.address} (${o.source.file}): ${f.reason}`,
      });
    }
  }
  return { objects: kept, warnings };
}
