/**
 * Secret: a user secret (spec 2.3, 4.2), owned by the signed-in user (a Bearer token of a paid
 * user; service tokens and the basic tier get 403). Natural key and id: the key.
 *
 * The value is never kept: state holds `valueFingerprint`, a salted (and, in the reconciler, keyed) hash, so a value changed on
 * the platform shows as drift without being revealed. A key change replaces the secret (the new
 * key is written before the old one is removed); a value change updates it in place (`PUT`).
 */
import { isApiError } from "../../api/errors";
import { unlessMissing } from "../missing";
import { checkWith } from "../check";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { secretDefinition } from "./definition";
import { diffFields, secretFingerprint } from "../field-diff";
import type { FingerprintKey } from "../fingerprint";
import type { KindContext, ResourceKind } from "../kind";
import type { ReconcileTraits } from "../reconcile-traits";

/** A secret's checked inputs. */
export type SecretInputs = CheckedInputs<typeof secretDefinition>;
export const SecretInputs = definitionCheck(secretDefinition);

/** Kept state: the key and a fingerprint of the value, never the value itself. */
export interface SecretState {
  key: string;
  valueFingerprint: string;
}

const SALT = "Secret";

const stateOf = (key: string, value: string, fk?: FingerprintKey): SecretState => ({
  key,
  valueFingerprint: secretFingerprint(value, SALT, "value", fk)!,
});

async function current(ctx: KindContext, key: string): Promise<SecretState | undefined> {
  try {
    const s = await ctx.client.secrets.get(key);
    return stateOf(s.key, s.value, ctx.fingerprintKey);
  } catch (e) {
    if (isApiError(e, "not_found")) return undefined;
    throw e;
  }
}

export const secretKind: ResourceKind<SecretInputs, SecretState> = {
  kind: "Secret",
  secretInputs: ["value"],
  secretOutputs: ["valueFingerprint"],
  check: (raw) => checkWith(SecretInputs, raw, ["value"]),
  key: (i) => i.key,
  diff: (olds, news, ctx) =>
    diffFields(
      { ...olds },
      { ...news },
      { replaceOn: ["key"], secret: ["value"], salt: SALT, key: ctx?.fingerprintKey },
    ),
  async create(ctx, inputs) {
    // One request in the usual case; 409 means the key exists (an earlier answer was lost, or it
    // was made by hand): adopt it and write the desired value.
    try {
      await ctx.client.secrets.create(inputs.key, inputs.value);
      return { id: inputs.key, state: stateOf(inputs.key, inputs.value, ctx.fingerprintKey), adopted: false };
    } catch (e) {
      if (!isApiError(e, "conflict")) throw e;
    }
    await ctx.client.secrets.put(inputs.key, inputs.value);
    return { id: inputs.key, state: stateOf(inputs.key, inputs.value, ctx.fingerprintKey), adopted: true };
  },
  read: (ctx, id) => current(ctx, id),
  async update(ctx, id, _olds, news) {
    await ctx.client.secrets.put(id, news.value);
    return stateOf(id, news.value, ctx.fingerprintKey);
  },
  async delete(ctx, id) {
    await unlessMissing(ctx.client.secrets.delete(id));
  },
  async observeAll(ctx) {
    // The listing holds keys only and there is no bulk read of values: 1 + N requests.
    const out = [];
    for (const key of await ctx.client.secrets.list()) {
      const state = await current(ctx, key);
      if (state) out.push({ id: key, key, state });
    }
    return out;
  },
};

export const secretTraits: ReconcileTraits = {
  // First: UDFs may read secrets.
  phase: 0,
  addressPrefix: "secret",
  teamWide: true,
};
