/**
 * Which drifted fields `svc-iac import --keep` can write back into the files that declare them,
 * and where: a UDF's code into its `.py` file, and a few top-level scalar keys of a YAML file,
 * edited in place. Anything else (metadata, helper modules, schedules, arguments, shares, secret
 * values) is not offered: writing it back would rewrite configuration that did not drift.
 */
import type { FieldChange } from "../../kinds/kind";
import type { DesiredKind, ReferencedInput } from "../../model/desired";
import { KEEP_PLACES, type KeepPlace } from "../../kinds/definition-views";

export type { KeepPlace } from "../../kinds/definition-views";

/** Where each kind's fields are written back, as the kinds' definitions declare it (`keep`, `keepInSource`). */
const PLACES: Partial<Record<DesiredKind, Readonly<Record<string, KeepPlace>>>> = KEEP_PLACES;

/** Where `field` of a `kind` object is written back, or undefined when keep cannot write it. */
export function keepPlace(kind: DesiredKind, field: string): KeepPlace | undefined {
  return PLACES[kind]?.[field];
}

/**
 * Why `import --keep` cannot keep these changes of a `kind` object declared in `file`; undefined
 * when it can. `referenced` are the object's inputs the repository writes with a reference (the
 * loader's `DesiredObject.referenced`): a drifted one is named with its reference and place.
 */
export function keepUnavailable(
  kind: DesiredKind,
  fields: readonly FieldChange[],
  file: string | undefined,
  referenced: readonly ReferencedInput[] = [],
): string | undefined {
  const secret = fields.filter((f) => f.secret).map((f) => f.field);
  if (kind === "Secret" || secret.length)
    return `${kind === "Secret" ? "a secret's value" : `its ${secret.join(", ")}`} never leaves the platform`;
  // A UDF is declared by its .py file; every field but its code is in the <slug>.yaml beside it.
  const where = kind === "Udf" && file ? file.replace(/\.(py|md|json)$/, ".yaml") : file;
  const by = `edit ${where ?? "its file"} by hand to keep the platform's version`;
  if (!PLACES[kind]) return `svc-iac import --keep does not write a ${kind}'s fields back; ${by}`;
  const written = fields.flatMap((f) => referenced.find((r) => r.field === f.field) ?? []);
  const other = fields
    .filter((f) => !keepPlace(kind, f.field) && !written.some((r) => r.field === f.field))
    .map((f) => f.field);
  const reasons = [
    ...(written.length ? [writtenWithReferences(written)] : []),
    ...(other.length
      ? [
          `svc-iac import --keep does not write ${other.join(", ")} back (it would rewrite configuration that did not drift); ${by}`,
        ]
      : []),
  ];
  return reasons.length ? reasons.join("; ") : undefined;
}

/** `dashboard_body is written with ${var.city} in canvases/listings/canvas.yaml:7; keeping …`. */
function writtenWithReferences(written: readonly ReferencedInput[]): string {
  const each = written.map(
    (r, i) => `${r.key} ${i === 0 ? "is written " : ""}with ${r.reference} in ${r.source.file}:${r.source.line}`,
  );
  const one = written.length === 1;
  const list = one ? each[0] : `${each.slice(0, -1).join(", ")} and ${each.at(-1)}`;
  return `${list}; keeping the platform's ${one ? "value" : "values"} would drop the ${one ? "variable" : "variables"} for every target: edit ${one ? "it" : "them"} by hand`;
}
