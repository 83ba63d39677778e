/**
 * The report of `svc-iac drift --remediate` for a terminal, and its JSON document
 * (`{"restored", "kept", "reported", "contested"}` with the project, target and what remains).
 * Names from the repository and the platform go through terminalLine (no control character).
 */
import type { RemediationEntry, RemediationReport } from "../plan/plan-model";
import { painter, type Paint } from "./ansi";
import { policyTextLines } from "./policy-text";
import { terminalLine } from "./terminal-text";

/** The JSON document of `drift --remediate --json` (version 1). */
export function remediationJson(r: RemediationReport) {
  return {
    version: r.version,
    project: r.project,
    target: r.target,
    restored: r.restored,
    kept: r.kept,
    reported: r.reported,
    contested: r.contested,
    remaining: r.remaining,
    ...(r.drift.policy ? { policy: r.drift.policy } : {}),
  };
}

const SECTIONS: { key: "restored" | "kept" | "reported" | "contested"; title: string; intro: string }[] = [
  { key: "restored", title: "Restored", intro: "the repository's version applied back to the platform" },
  {
    key: "kept",
    title: "Kept",
    intro: "the platform's version written into the repository files; review and commit them",
  },
  { key: "contested", title: "Contested", intro: "restored too often; left as the platform has them" },
  { key: "reported", title: "Reported", intro: "left for a person" },
];

function entryLines(e: RemediationEntry, paint: Paint): string[] {
  const fields = e.fields.length ? ` (${e.fields.map(terminalLine).join(", ")})` : "";
  const lines = [`  ${paint("bold", terminalLine(e.address))}${fields}: ${terminalLine(e.detail)}`];
  if (e.files?.length) lines.push(`      files: ${e.files.map(terminalLine).join(", ")}`);
  if (e.restores?.length) lines.push(`      restores: ${e.restores.join(", ")}`);
  lines.push(`      on_drift: ${e.policy} (${terminalLine(e.policy_from)})`);
  return lines;
}

export function renderRemediationText(r: RemediationReport, opts: { color?: boolean } = {}): string {
  const paint = painter(opts.color);
  const where = `${terminalLine(r.project)} (${terminalLine(r.target)})`;
  const policy = r.drift.policy?.results.length ? policyTextLines(r.drift.policy, paint) : [];
  if (!r.drift.drift)
    return `No drift. ${where} matches the repository.\n${policy.length ? `\n${policy.join("\n")}` : ""}`;
  const counts = (["restored", "kept", "reported", "contested"] as const).map((k) => `${r[k].length} ${k}`).join(", ");
  const out = [paint("bold", `Drift in ${where}, remediated: ${counts}.`), ""];
  for (const s of SECTIONS) {
    const entries = r[s.key];
    if (!entries.length) continue;
    out.push(`${paint("bold", `${s.title} (${entries.length}):`)} ${s.intro}.`);
    for (const e of entries) out.push(...entryLines(e, paint));
    out.push("");
  }
  out.push(...policy);
  out.push(
    r.remaining
      ? `${r.remaining} object${r.remaining === 1 ? "" : "s"} still drifted (see svc-iac drift).`
      : "No drift remains.",
  );
  return `${out.join("\n")}\n`;
}
