/**
 * ServiceAccount: a machine credential of the team's environment (spec 2.9, 4.6). Managing one needs
 * a Bearer token (a service token gets 403). Its token is returned once, by creation, and never
 * again: so any input change replaces the account, new before old, and the new token can be
 * distributed before the old one stops working.
 *
 * Identity. The platform's name is `<name> [svc-iac <tag>]`, the tag being a short hash of
 * `rotation` (the natural key). Hence
 * - a rotation's new account never collides with the old one, which still exists while the new
 *   one is created;
 * - accounts made by hand (no tag) are never adopted by key: `svc-iac import` binds one to a
 *   project explicitly (by id, in the inventory), and only then is it managed and, on rotation,
 *   replaced by a tagged account;
 * - a tagged account found at create is NOT adopted: its token cannot be read, and it may be live
 *   (another stack declaring the same name and rotation) or an orphan of a create whose answer was
 *   lost. Deleting it could cut a live credential and adopting it would yield a resource without a
 *   token, so create stops with a message that names the account and both ways out (delete it, or
 *   change `rotation`). No duplicate is ever made silently and no credential is ever removed
 *   without being asked.
 */
import { z } from "zod";
import { canonicalJson } from "../../canonical-json";
import { unlessMissing } from "../missing";
import { isApiError } from "../../api/errors";
import { AlreadyExistsError } from "../already-exists";
import type { ServiceAccount as ApiServiceAccount } from "../../api/schemas";
import { checkWith } from "../check";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { serviceAccountDefinition } from "./definition";
import { diffFields } from "../field-diff";
import { fingerprint } from "../fingerprint";
import type { ResourceKind } from "../kind";
import type { ReconcileTraits } from "../reconcile-traits";

const TAGGED = /^(.*) \[svc-iac ([0-9a-f]{6})\]$/s;

/** Any JSON value. */
const Json: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]),
);

/** A service account's checked inputs. */
export type ServiceAccountInputs = CheckedInputs<typeof serviceAccountDefinition>;
export const ServiceAccountInputs = definitionCheck(serviceAccountDefinition, {
  // Any JSON value: its canonical JSON is hashed into the account's platform name.
  fields: { rotation: () => Json },
});

export interface ServiceAccountState extends ServiceAccountInputs {
  id: string;
  /** The name on the platform: `<name> [svc-iac <tag>]`. */
  accountName: string;
  /** Returned by creation only; `null` in states observed from the platform. Secret. */
  token: string | null;
  createdAt: string;
}

/** The platform name of the account these inputs describe. */
export function accountName(i: ServiceAccountInputs): string {
  const tag = fingerprint(canonicalJson(i.rotation ?? null), "ServiceAccount:rotation").slice(
    "sha256:".length,
    "sha256:".length + 6,
  );
  return `${i.name} [svc-iac ${tag}]`;
}

/** The declared name behind a platform name: without its tag when svc-iac made it, else all of it (made by hand). */
export function declaredName(platformName: string): string {
  return TAGGED.exec(platformName)?.[1] ?? platformName;
}

function stateOf(
  sa: ApiServiceAccount,
  inputs: Partial<ServiceAccountInputs>,
  token: string | null,
): ServiceAccountState {
  return {
    // A read with an id alone (refresh, import) knows the account only by its platform name.
    name: inputs.name ?? declaredName(sa.name),
    ...(inputs.rotation !== undefined ? { rotation: inputs.rotation } : {}),
    id: sa.id,
    accountName: sa.name,
    token,
    createdAt: sa.created_at,
  };
}

export const serviceAccountKind: ResourceKind<ServiceAccountInputs, ServiceAccountState> = {
  kind: "ServiceAccount",
  secretInputs: [],
  secretOutputs: ["token"],
  check: (raw) => checkWith(ServiceAccountInputs, raw),
  key: accountName,
  diff(olds, news) {
    // A state read from an id alone has no rotation: the platform keeps only its tag in the name.
    // A rotation whose tag is the account's own is the one it was made with, so it is no change.
    const rotationUnread =
      olds.rotation === undefined && news.rotation !== undefined && TAGGED.test(olds.accountName ?? "");
    const old =
      rotationUnread && accountName(news) === olds.accountName ? { ...olds, rotation: news.rotation } : { ...olds };
    // Both fields replace; the new account is created before the old one is deleted.
    return diffFields(old, { name: news.name, rotation: news.rotation }, { replaceOn: ["name", "rotation"] });
  },
  async create(ctx, inputs) {
    const wanted = accountName(inputs);
    const existing = (await ctx.client.environment.listServiceAccounts()).find((sa) => sa.name === wanted);
    if (existing) {
      throw new AlreadyExistsError(
        `Service account "${wanted}" (id ${existing.id}, created ${existing.created_at}) already exists, and a service account's token can only be read when it is created. ` +
          `It is probably left over from a create whose answer was lost, or another stack declares the same name and rotation. ` +
          `Delete it (DELETE /execution-env/self/service-account/by-id/${existing.id}) if nothing uses it, or change \`rotation\` (or \`name\`) to create a new one.`,
        wanted,
      );
    }
    const sa = await ctx.client.environment.createServiceAccount(wanted);
    return { id: sa.id, state: stateOf(sa, inputs, sa.token), adopted: false };
  },
  async read(ctx, id, olds) {
    try {
      const sa = await ctx.client.environment.getServiceAccount(id);
      // The token is never readable again: keep the one recorded at creation.
      return stateOf(sa, olds, olds.token ?? null);
    } catch (e) {
      if (isApiError(e, "not_found")) return undefined;
      throw e;
    }
  },
  async update(ctx, id, olds) {
    // Every input replaces; the engine never calls update with a change. Refresh what we hold.
    return (await serviceAccountKind.read(ctx, id, olds)) ?? olds;
  },
  async delete(ctx, id) {
    await unlessMissing(ctx.client.environment.deleteServiceAccount(id));
  },
  async observeAll(ctx) {
    // Every account, keyed by its platform name. A desired key is always tagged, so an account made
    // by hand (no tag) is never matched by key; it is seen only when an import bound its id. The
    // rotation behind a tag is not recoverable.
    return (await ctx.client.environment.listServiceAccounts()).map((sa) => ({
      id: sa.id,
      key: sa.name,
      state: { name: declaredName(sa.name), id: sa.id, accountName: sa.name, token: null, createdAt: sa.created_at },
    }));
  },
};

export const serviceAccountTraits: ReconcileTraits = {
  phase: 1,
  nameInput: "name",
  addressPrefix: "service_account",
  // Any change replaces the account: it is a rotation, new account first.
  rotation: {
    on: "any",
    note: "the new account is created and its token published before the old account is deleted",
    inPlace: false,
  },
  createNotes: [
    "its token exists only now: it is handed to the outputs (--outputs, or the action's secret); apply stops when none is set",
  ],
  credential: {
    unrecorded: (d, found) =>
      `${d.address}: a service account named "${found.key}" (id ${found.id}) already exists but this project did not create it, and its token cannot be read. Delete it on the platform if nothing uses it, or change \`rotation\` in ${d.source.file} to create a new one.`,
    lostAnswerReason: "an earlier apply stopped after creating this account, so its token is unknown",
    retiredField: "replacedAccounts",
    retiredNote:
      "accounts an earlier rotation replaced are still on the platform; they are deleted, so their tokens stop working",
  },
  keep: ({ rotation, old }) => ({
    trigger: rotation?.trigger,
    rotation: rotation?.value,
    // Replaced accounts not deleted yet stay listed until they are.
    ...(Array.isArray(old?.kept?.retire) && old.kept.retire.length ? { retire: old.kept.retire } : {}),
  }),
  readKept(state, kept) {
    const { rotation: _observed, ...rest } = state;
    return kept.rotation === undefined ? rest : { ...rest, rotation: kept.rotation };
  },
  minted: () => true,
  tokenOf: (state) => state.token,
};
