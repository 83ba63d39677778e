/**
 * Checks across files once every object is read: references between objects, unique addresses,
 * and each kind's own input check (a safety net: the loader's output must be what the kinds
 * accept). Then scrubs secret values from every message.
 */
import type { DesiredObject, LoadError } from "../../model/desired";
import type { CheckFailure } from "../../kinds/kind";
import { checkDeclared } from "../checked-inputs";
import { didYouMean, type Diagnostics } from "../../repository/diagnostics";
import type { UdfReference } from "./cronjob-files";

export function checkReferences(
  objects: readonly DesiredObject[],
  references: readonly UdfReference[],
  diag: Diagnostics,
): void {
  // Notes and widgets (note.…, widget.…) are UDF records a cronjob cannot run.
  const udfs = objects
    .filter((o) => o.kind === "Udf" && o.address.startsWith("udf."))
    .map((o) => o.address.slice("udf.".length));
  const known = new Set(udfs);
  // A UDF file refused by itself (a link out, not UTF-8) is reported there, not again at each reference.
  const refused = new Set(diag.errors.map((e) => e.file));
  for (const ref of references) {
    if (known.has(ref.udf)) continue;
    const [canvas, slug] = ref.udf.split("/");
    if (refused.has(`canvases/${canvas}/${slug}.py`)) continue;
    diag.add({
      ...ref.at,
      message: `found ${JSON.stringify(ref.udf)}, expected a UDF of this repository: canvases/${canvas}/${slug}.py does not exist${didYouMean(ref.udf, udfs)}`,
    });
  }
}

export function checkUniqueAddresses(objects: readonly DesiredObject[], diag: Diagnostics): void {
  const seen = new Map<string, DesiredObject>();
  for (const o of objects) {
    const first = seen.get(o.address);
    if (first)
      diag.add({
        ...o.source,
        message: `duplicate ${o.address}: already declared at ${first.source.file}:${first.source.line}:${first.source.column}`,
      });
    else seen.set(o.address, o);
  }
}

const snake = (property: string) => property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The kind's check failures of `o`'s inputs, references given placeholders (the planner resolves them); what passes is kept for the plan. */
export function kindFailures(o: DesiredObject): CheckFailure[] {
  return checkDeclared(o, o.inputs).failures;
}

/** Runs each kind's `check` on objects whose file had no error. */
export function checkWithKinds(
  objects: readonly DesiredObject[],
  diag: Diagnostics,
  unresolvedIn: ReadonlySet<string> = new Set(),
): void {
  // An error on a file or on its folder (a misnamed canvas folder) already explains the object;
  // so does one in svc.yaml that left a file's references unresolved.
  const withErrors = [...diag.errors.map((e) => e.file), ...unresolvedIn];
  for (const o of objects) {
    if (withErrors.some((f) => o.source.file === f || o.source.file.startsWith(`${f}/`))) continue;
    for (const f of kindFailures(o)) {
      diag.add({ ...o.source, path: snake(f.property), message: f.reason });
    }
  }
}

/** Replaces every secret value in messages with "the value of NAME" (values shorter than 4 characters are left: they would mangle messages). */
export function scrubSecrets(
  errors: readonly LoadError[],
  secretEnvNames: Iterable<string>,
  env: Record<string, string | undefined>,
): LoadError[] {
  const secrets = [...secretEnvNames]
    .map((name) => ({ name, value: env[name] }))
    .filter((s): s is { name: string; value: string } => !!s.value && s.value.length >= 4);
  if (!secrets.length) return [...errors];
  return errors.map((e) => ({
    ...e,
    message: secrets.reduce((m, s) => m.split(s.value).join(`the value of ${s.name}`), e.message),
  }));
}
