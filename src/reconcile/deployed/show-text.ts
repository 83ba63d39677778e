/**
 * The `svc-iac show` report for a terminal: a heading, then one block per object (address, kind
 * and id; where it is declared; its status; what it refers to; its URLs, outputs and secrets).
 * Pure. Text from the platform and the repository is shown on one line with control characters
 * replaced, so nothing it holds acts on the terminal.
 */
import { formatCount, formatValue, oneLine } from "../render/values";
import type { ShowReport, ShownObject } from "./show-report";

const STATUS_TEXT: Record<ShownObject["status"], string> = {
  "in sync": "in sync with the repository",
  "not read": "not read (--offline: from the inventory)",
  changed: "drifted: changed on the platform",
  missing: "drifted: missing, deleted on the platform out of band",
  orphaned: "orphaned: no longer in the repository, still on the platform (apply --prune deletes it)",
};

function objectBlock(o: ShownObject): string {
  const rows: [string, string][] = [];
  rows.push(["declared", o.declared ? oneLine(o.declared) : "(no longer in the repository)"]);
  rows.push([
    "status",
    `${STATUS_TEXT[o.status]}${o.changed_fields?.length ? `: ${o.changed_fields.map(oneLine).join(", ")}` : ""}`,
  ]);
  if (o.references.length) rows.push(["refers to", o.references.map(oneLine).join(", ")]);
  for (const u of o.urls) rows.push([u.name, oneLine(u.url)]);
  const outputs = Object.entries(o.outputs).map(([k, v]) => `${oneLine(k)}=${formatValue(v)}`);
  if (outputs.length) rows.push(["outputs", outputs.join(", ")]);
  const secrets = Object.entries(o.secrets).map(([k, v]) => `${oneLine(k)} ${v}`);
  if (secrets.length) rows.push(["secrets", secrets.join(", ")]);
  rows.push(["applied", `${o.applied_at}${o.rotated_at ? `, token minted ${o.rotated_at}` : ""}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${oneLine(o.address)} (${o.kind}, id ${oneLine(o.id)})\n${rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join("\n")}\n`;
}

/** The report as text. */
export function renderShowText(r: ShowReport): string {
  const source =
    r.read === "platform"
      ? "read from the platform"
      : "from the inventory alone (--offline; the platform was not read)";
  const drifted = r.objects.filter((o) => o.status !== "in sync" && o.status !== "not read").length;
  const driftLine = r.drift === null ? "" : r.drift ? ` ${formatCount(drifted)} drifted.` : " Nothing drifted.";
  let out = `${oneLine(r.project)} (${oneLine(r.target)}): ${formatCount(r.objects.length)} deployed object${r.objects.length === 1 ? "" : "s"}, ${source}.${driftLine}\n`;
  if (r.objects.length === 0) out += "Nothing is recorded in the inventory: run svc-iac apply first.\n";
  for (const o of r.objects) out += `\n${objectBlock(o)}`;
  if (r.pending.length)
    out += `\nDeclared, never applied (svc-iac apply creates them): ${r.pending.map(oneLine).join(", ")}\n`;
  if (r.unmanaged.length)
    out += `\nOn the platform, declared nowhere (not managed by this project): ${r.unmanaged.map(oneLine).join(", ")}\n`;
  return out;
}
