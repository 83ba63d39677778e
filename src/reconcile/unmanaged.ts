/**
 * Unmanaged objects: on the platform, declared nowhere, not in the inventory, and inside what this
 * project manages: UDFs and shares of its canvases, cronjobs running its UDFs. Objects elsewhere in
 * the team belong to other projects or people and are not this project's business. Reported, never
 * deleted.
 */
import type { DesiredKind } from "./model";
import { byString } from "./phases";
import type { UnmanagedObject } from "./plan-model";
import type { PlanInput } from "./plan";

export function findUnmanaged(input: PlanInput, ids: Map<string, string>): UnmanagedObject[] {
  const kindOf = new Map(input.project.objects.map((o) => [o.address, o.kind] as const));
  const claimed = new Map<DesiredKind, Set<string>>();
  const claim = (kind: DesiredKind, id: string) => (claimed.get(kind) ?? claimed.set(kind, new Set()).get(kind)!).add(id);
  for (const [address, id] of ids) claim(kindOf.get(address)!, id);
  for (const e of Object.values(input.inventory?.objects ?? {})) claim(e.kind, e.id);
  const isClaimed = (kind: DesiredKind, id: string) => claimed.get(kind)?.has(id) ?? false;

  const canvasNames = new Map<string, string>();
  for (const o of input.project.objects) {
    const id = o.kind === "Canvas" ? ids.get(o.address) : undefined;
    if (id) canvasNames.set(id, String(o.inputs.name));
  }
  const managedUdfs = new Set(claimed.get("Udf") ?? []);
  const out: UnmanagedObject[] = [];
  const seen = input.observation.kinds;
  for (const u of seen.Udf?.byId.values() ?? []) {
    const canvas = canvasNames.get(String(u.state.canvasId));
    if (canvas && !isClaimed("Udf", u.id)) out.push({ address: `udf.${canvas}/${u.state.slug}`, kind: "Udf", id: u.id });
  }
  for (const s of seen.CanvasShare?.byId.values() ?? []) {
    const canvas = canvasNames.get(s.id);
    if (canvas && !isClaimed("CanvasShare", s.id)) out.push({ address: `share.${canvas}`, kind: "CanvasShare", id: s.id });
  }
  for (const c of seen.Cronjob?.byId.values() ?? []) {
    if (managedUdfs.has(String(c.state.udfId)) && !isClaimed("Cronjob", c.id)) out.push({ address: `cronjob.${c.state.name}`, kind: "Cronjob", id: c.id });
  }
  return out.sort((a, b) => byString(a.address, b.address) || byString(a.id, b.id));
}
