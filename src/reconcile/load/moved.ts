/**
 * `moved:` in svc.yaml, as Terraform's `moved` blocks: `- from: canvas.ops_reports` /
 * `to: canvas.ops_weekly` says the object recorded under the old address is the one now declared
 * under the new one, so the plan renames it in place. Read with svc.yaml; checked against the
 * declared objects once every file is loaded.
 */
import type { DesiredObject, MovedEntry } from "../../model/desired";
import { RECONCILE_TRAITS } from "../../kinds/registry";
import { didYouMean, type Diagnostics } from "../../repository/diagnostics";
import { MapReader, report, type ReadContext } from "../../repository/fields";
import { MOVED_KEYS } from "./keys";
import { locate } from "../../repository/yaml-source";

const ADDRESS = /^([a-z_]+)\.(.+)$/;
const prefixes = () =>
  Object.values(RECONCILE_TRAITS)
    .flatMap((t) => [t.addressPrefix, ...(t.variantPrefixes ?? [])])
    .sort();
const renamable = () =>
  Object.values(RECONCILE_TRAITS)
    .filter((t) => t.renames)
    .flatMap((t) => [t.addressPrefix, ...(t.variantPrefixes ?? [])]);
const ADDRESS_EXPECTED = "an address such as canvas.ops_reports, udf.ops_reports/loader or cronjob.daily";

/** Reads the `moved:` list of svc.yaml (each entry's form; the addresses are checked by {@link checkMoved}). */
export function readMoved(ctx: ReadContext, top: MapReader): MovedEntry[] {
  const items = top.list("moved", "a list of {from: <old address>, to: <new address>} entries") ?? [];
  const out: MovedEntry[] = [];
  for (const item of items) {
    const m = new MapReader(ctx, item.node, item.path, MOVED_KEYS);
    if (!m.isMapping) continue;
    const ends = (["from", "to"] as const).map((key) => {
      const v = m.string(key, { required: true, expected: ADDRESS_EXPECTED });
      if (v === undefined) return undefined;
      const prefix = ADDRESS.exec(v)?.[1];
      if (!prefix || !prefixes().includes(prefix))
        return m.fail(key, `found "${v}", expected ${ADDRESS_EXPECTED} (kinds: ${prefixes().join(", ")})`);
      if (!renamable().includes(prefix))
        return m.fail(
          key,
          `found "${v}": a ${prefix} cannot be renamed in place; moved: renames ${renamable().join(", ")} objects (a share follows its canvas)`,
        );
      return { value: v, prefix, source: locate(ctx.src, m.nodeOf(key), `${item.path}.${key}`) };
    });
    const [from, to] = ends;
    if (!from || !to) continue;
    if (from.prefix !== to.prefix) {
      report(
        ctx,
        m.nodeOf("to"),
        `${item.path}.to`,
        `found "${to.value}", a ${to.prefix}, but from is a ${from.prefix}; an object keeps its kind when it is renamed`,
      );
      continue;
    }
    if (from.value === to.value) {
      report(
        ctx,
        m.nodeOf("to"),
        `${item.path}.to`,
        `found "${to.value}", the same address as from; expected the new address`,
      );
      continue;
    }
    out.push({ from: from.value, to: to.value, source: to.source, fromSource: from.source });
  }
  return out;
}

/** Checks the entries against the declared objects: `to` declared, `from` not, each address once. */
export function checkMoved(moved: readonly MovedEntry[], objects: readonly DesiredObject[], diag: Diagnostics): void {
  const declared = new Set(objects.map((o) => o.address));
  const seen = new Map<string, MovedEntry>();
  for (const m of moved) {
    if (!declared.has(m.to)) {
      diag.add({
        ...m.source,
        message: `found "${m.to}", which the repository does not declare; expected the new address of a declared object${didYouMean(m.to, [...declared])}`,
      });
    }
    if (declared.has(m.from)) {
      diag.add({
        ...m.fromSource,
        message: `found "${m.from}", which the repository still declares; from is the old address, no longer in the repository`,
      });
    }
    for (const [end, address, where] of [
      ["from", m.from, m.fromSource],
      ["to", m.to, m.source],
    ] as const) {
      const first = seen.get(`${end} ${address}`);
      if (first)
        diag.add({
          ...where,
          message: `found "${address}" again (first at line ${(end === "from" ? first.fromSource : first.source).line}); each address may be moved ${end} once`,
        });
      else seen.set(`${end} ${address}`, m);
    }
  }
}
