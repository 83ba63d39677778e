/**
 * The provider plugin's resource calls: a `Provider` for `@pulumi/pulumi/provider`'s server that
 * maps each call onto the kinds of `src/kinds` (through `../kind-calls`), with secrets revealed
 * on the way in and concealed on the way out, and `Read` from an id alone returning the inputs that
 * declare the object (import).
 */
import type { Provider } from "@pulumi/pulumi/provider";
import type { SvcClient } from "../../api/client";
import { KINDS } from "../../kinds/registry";
import { PULUMI_PACKAGE } from "../../kinds/schema/pulumi-package";
import { checkCall, createCall, deleteCall, diffCall, kindOf, readCall, updateCall } from "../kind-calls";
import { importInputs } from "./import-ids";
import { conceal, reveal, type Props } from "./secrets";
import { SvcError } from "../../errors";

const TYPE_PREFIX = `${PULUMI_PACKAGE}:index:`;

/** The kind a URN's type names (`urn:pulumi:stack::project::svc:index:Canvas::name` → `Canvas`). */
export function kindOfUrn(urn: string): string {
  const type = (urn.split("::")[2] ?? "").split("$").pop() ?? "";
  const kind = type.startsWith(TYPE_PREFIX) ? type.slice(TYPE_PREFIX.length) : "";
  if (!KINDS[kind]) {
    throw new SvcError(
      "invalid_kind",
      `pulumi-resource-svc: unknown resource type "${type}". Expected one of ${Object.keys(KINDS)
        .map((k) => TYPE_PREFIX + k)
        .join(", ")}.`,
    );
  }
  return kind;
}

/** The fields of a kind's results that are secrets: its secret outputs and inputs, and any field that came in secret. */
function secretFields(kind: string, cameSecret: Iterable<string> = []): Set<string> {
  const k = kindOf(kind);
  return new Set([...k.secretOutputs, ...k.secretInputs, ...cameSecret]);
}

export interface PluginProviderOptions {
  version: string;
  /** The client for the current configuration (read at each call: `Configure` may come later). */
  client(): SvcClient;
  /** The package schema as JSON text. */
  getSchema?: () => Promise<string>;
}

export function pluginProvider(opts: PluginProviderOptions): Provider {
  return {
    version: opts.version,
    ...(opts.getSchema ? { getSchema: opts.getSchema } : {}),
    async check(urn, _olds, news) {
      const kind = kindOfUrn(urn);
      const { values, secretFields: cameSecret } = reveal(news);
      const r = checkCall(kind, values);
      const inputs = conceal(r.inputs, [...kindOf(kind).secretInputs, ...cameSecret]);
      return { inputs, failures: r.failures };
    },
    async diff(_id, urn, olds, news) {
      return diffCall(kindOfUrn(urn), reveal(olds).values, reveal(news).values);
    },
    async create(urn, inputs) {
      const kind = kindOfUrn(urn);
      const { values, secretFields: cameSecret } = reveal(inputs);
      const r = await createCall(opts.client(), kind, values);
      return { id: r.id, outs: conceal(r.outs, secretFields(kind, cameSecret)) };
    },
    async read(id, urn, props) {
      const kind = kindOfUrn(urn);
      const { values, secretFields: cameSecret } = reveal(props);
      // Import and `pulumi refresh` of a resource read by id send no state.
      const fromIdAlone = Object.keys(values).length === 0;
      const state = await readCall(opts.client(), kind, id, values);
      // Gone: no id and no properties, and the engine drops it from the stack.
      if (state === undefined) return { id: "", props: {} };
      const secrets = secretFields(kind, cameSecret);
      const out: { id: string; props: Props; inputs?: Props } = { id, props: conceal(state, secrets) };
      if (fromIdAlone) out.inputs = conceal(importInputs(kind, state), secrets);
      return out;
    },
    async update(id, urn, olds, news) {
      const kind = kindOfUrn(urn);
      const old = reveal(olds);
      const next = reveal(news);
      const outs = await updateCall(opts.client(), kind, id, old.values, next.values);
      return { outs: conceal(outs, secretFields(kind, [...old.secretFields, ...next.secretFields])) };
    },
    async delete(id, urn, props) {
      await deleteCall(opts.client(), kindOfUrn(urn), id, reveal(props).values);
    },
  };
}
