/** The import report as text for the terminal. */
import type { ImportReport } from "../commands/import";
import type { KeepReport } from "../commands/keep";

const WORD = { create: "write", update: "overwrite", unchanged: "same" } as const;

export function renderImportText(r: ImportReport): string {
  const lines: string[] = [];
  // A refused import wrote and bound nothing: it says what it would have done, as a dry run does.
  const would = r.dryRun || r.refused;
  lines.push(`${would ? "Would write" : "Files"} (project ${r.project}, target ${r.target}):`);
  for (const f of r.files) lines.push(`  ${WORD[f.status].padEnd(9)} ${f.path}`);
  if (!r.files.length) lines.push("  (none)");
  lines.push("");
  const objects = `${r.bound.length} object${r.bound.length === 1 ? "" : "s"} in the inventory (${r.state})`;
  lines.push(r.refused ? `Would bind ${objects}; nothing was bound.` : `${would ? "Would bind" : "Bound"} ${objects}.`);
  if (r.skipped.length) {
    lines.push("", "Not imported:");
    for (const s of r.skipped) lines.push(`  ${s.object} (id ${s.id}): ${s.reason}`);
  }
  if (r.notes.length) {
    lines.push("", "Notes:");
    for (const n of r.notes) lines.push(`  ${n}`);
  }
  if (r.envVars.length) {
    lines.push("", "The files read these environment variables; set them before validate, plan or apply:");
    const width = Math.max(...r.envVars.map((v) => v.name.length));
    for (const v of r.envVars) lines.push(`  ${v.name.padEnd(width)}  ${v.holds}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The report of `import --keep` as text for the terminal. */
export function renderKeepText(r: KeepReport): string {
  const lines: string[] = [];
  if (r.kept.length) {
    lines.push(
      `${r.dryRun ? "Would keep" : "Kept"} the platform's version of (project ${r.project}, target ${r.target}):`,
    );
    for (const k of r.kept) lines.push(`  ${k.address}: ${k.fields.join(", ")}`);
    lines.push("", r.dryRun ? "Would write:" : "Files:");
    for (const f of r.files) lines.push(`  ${WORD[f.status].padEnd(9)} ${f.path}`);
    if (!r.files.length) lines.push("  (none)");
  }
  if (r.unchanged.length) {
    if (lines.length) lines.push("");
    lines.push(
      `Nothing to keep for ${r.unchanged.join(", ")}: ${r.unchanged.length === 1 ? "it matches" : "they match"} the platform.`,
    );
  }
  if (r.kept.length && !r.dryRun)
    lines.push(
      "",
      "No other file was changed. Review and commit these; the next plan shows no change for these objects.",
    );
  return `${lines.join("\n")}\n`;
}
