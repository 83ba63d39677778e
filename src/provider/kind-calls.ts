/**
 * The engine's resource calls (check, diff, create, read, update, delete) mapped onto the kinds of
 * `src/kinds`, for any client. The dynamic provider (`runtime.ts`) and the provider plugin
 * (`plugin/`) both call these; neither re-implements a kind.
 */
import type { SvcClient } from "../api/client";
import type { CheckFailure, ResourceKind } from "../kinds/kind";
import { KINDS } from "../kinds/registry";
import { SvcError } from "../errors";

/** The engine's placeholder for values not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type Props = Record<string, unknown>;

/** The kind named `name`, or an error listing the kinds. */
export function kindOf(name: string): ResourceKind<any, any> {
  const k = KINDS[name];
  if (!k)
    throw new SvcError(
      "invalid_kind",
      `svc provider: unknown resource kind "${name}". Expected one of ${Object.keys(KINDS).join(", ")}.`,
    );
  return k;
}

/** True when `v` holds a value the engine does not know yet (preview). */
export function hasUnknowns(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(hasUnknowns);
  if (v && typeof v === "object") return Object.values(v).some(hasUnknowns);
  return false;
}

/** Validates and normalizes inputs; with unknown values (preview) only what is known is kept as is. */
export function checkCall(kind: string, news: Props): { inputs: Props; failures: CheckFailure[] } {
  if (hasUnknowns(news)) return { inputs: news, failures: [] };
  const { inputs, failures } = kindOf(kind).check(news);
  return { inputs: { ...inputs }, failures };
}

/** The kind's diff of kept state `olds` against new inputs (unknown inputs: a change, nothing replaced). */
export function diffCall(kind: string, olds: Props, news: Props) {
  if (hasUnknowns(news))
    return { changes: true, replaces: [] as string[], stables: [] as string[], deleteBeforeReplace: false };
  const k = kindOf(kind);
  const { inputs } = k.check(news);
  const d = k.diff(olds, inputs);
  return { changes: d.changes, replaces: d.replaces, stables: d.stables, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function createCall(client: SvcClient, kind: string, inputs: Props): Promise<{ id: string; outs: Props }> {
  const k = kindOf(kind);
  const checked = k.check(inputs);
  if (checked.failures.length)
    throw new SvcError("inputs_invalid", checked.failures.map((f) => `${f.property}: ${f.reason}`).join("\n"));
  const r = await k.create({ client }, checked.inputs);
  return { id: r.id, outs: r.state };
}

/** The object's state, or `undefined` when it is gone. */
export async function readCall(client: SvcClient, kind: string, id: string, props: Props): Promise<Props | undefined> {
  return kindOf(kind).read({ client }, id, props);
}

export async function updateCall(
  client: SvcClient,
  kind: string,
  id: string,
  olds: Props,
  news: Props,
): Promise<Props> {
  const k = kindOf(kind);
  const { inputs } = k.check(news);
  return k.update({ client }, id, olds, inputs);
}

export async function deleteCall(client: SvcClient, kind: string, id: string, props: Props): Promise<void> {
  await kindOf(kind).delete({ client }, id, props);
}
