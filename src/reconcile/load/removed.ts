/**
 * `removed:` in svc.yaml, as Terraform's `removed` blocks: each address listed is an object the
 * project stops managing without deleting it. The next apply drops it from the inventory and
 * leaves it on the platform untouched; plan shows that as a `forget`, reviewed in the pull request
 * that adds the line. Read with svc.yaml; checked against the declared objects once every file is
 * loaded (an address cannot be declared and removed at once).
 */
import { isScalar } from "yaml";
import type { DesiredObject, RemovedEntry } from "../../model/desired";
import { RECONCILE_TRAITS } from "../../kinds/registry";
import type { Diagnostics } from "../../repository/diagnostics";
import { report, type MapReader, type ReadContext } from "../../repository/fields";
import { locate } from "../../repository/yaml-source";

const ADDRESS = /^([a-z_]+)\.(.+)$/;
const prefixes = () =>
  Object.values(RECONCILE_TRAITS)
    .flatMap((t) => [t.addressPrefix, ...(t.variantPrefixes ?? [])])
    .sort();
const EXPECTED = "an address such as canvas.ops_reports, udf.ops_reports/loader or cronjob.daily";

/** Reads the `removed:` list of svc.yaml: addresses, each written once. */
export function readRemoved(ctx: ReadContext, top: MapReader): RemovedEntry[] {
  const items = top.list("removed", `a list of addresses (${EXPECTED})`) ?? [];
  const out: RemovedEntry[] = [];
  for (const item of items) {
    const value = isScalar(item.node) && typeof item.node.value === "string" ? item.node.value : undefined;
    const prefix = value === undefined ? undefined : ADDRESS.exec(value)?.[1];
    if (value === undefined || !prefix || !prefixes().includes(prefix)) {
      const found =
        value === undefined
          ? isScalar(item.node)
            ? JSON.stringify(item.node.value)
            : "a list or mapping"
          : `"${value}"`;
      report(ctx, item.node, item.path, `found ${found}, expected ${EXPECTED} (kinds: ${prefixes().join(", ")})`);
      continue;
    }
    const source = locate(ctx.src, item.node, item.path);
    const first = out.find((r) => r.address === value);
    if (first) {
      report(
        ctx,
        item.node,
        item.path,
        `found "${value}" again (first at line ${first.source.line}); each address is listed once`,
      );
      continue;
    }
    out.push({ address: value, source });
  }
  return out;
}

/** Checks the entries against the declared objects: a removed address is declared by no file. */
export function checkRemoved(
  removed: readonly RemovedEntry[],
  objects: readonly DesiredObject[],
  diag: Diagnostics,
): void {
  const declared = new Map(objects.map((o) => [o.address, o] as const));
  for (const r of removed) {
    const d = declared.get(r.address);
    if (d) {
      diag.add({
        ...r.source,
        message: `found "${r.address}", which ${d.source.file} still declares; removed: lists objects the repository no longer declares (delete that file, or take the line out of removed:)`,
      });
    }
  }
}
