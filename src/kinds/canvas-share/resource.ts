/**
 * CanvasShare: a canvas's share (its canvas token and the real-time instance its shared UDFs run
 * on). Natural key and id: the canvas id (a canvas has at most one share). Delete unshares.
 *
 * A shared token keeps the access scope it was minted under (platform facts): making a shared
 * canvas public (or team-only again) only takes effect with a new token. The share therefore
 * records `mintedScope`, the canvas's scope when its current token was minted, and takes the
 * canvas's desired scope as the optional input `accessScope` (typically `canvas.accessScope`).
 * When they differ the diff reports `accessScope` as an in-place update whose note says a rotation
 * is required, and the update rotates the token: old links and their session tokens stop working.
 */
import equal from "fast-deep-equal";
import { unlessMissing, referencedCanvas } from "../missing";
import type { Canvas as ApiCanvas, CanvasFields } from "../../api/schemas";
import { teamCanvases } from "../canvas/resource";
import { checkWith } from "../check";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { canvasShareDefinition } from "./definition";
import { summarize } from "../field-diff";
import { fingerprint, isUnkeyedFingerprint, matchesFingerprint, type FingerprintKey } from "../fingerprint";
import type { FieldChange, KindContext, ResourceKind } from "../kind";
import { platformNames, type ReconcileTraits } from "../reconcile-traits";
import { SvcError } from "../../errors";

/** A share's checked inputs. */
export type CanvasShareInputs = CheckedInputs<typeof canvasShareDefinition>;
export const CanvasShareInputs = definitionCheck(canvasShareDefinition);

/** Kept state: the inputs and the share as the platform has it. */
export interface CanvasShareState extends CanvasShareInputs {
  /** The canvas token (`fc_...`). Secret. */
  shareToken: string;
  /** The real-time instance the shared UDFs run on. */
  shareClientId: string | null;
  /** The canvas's access scope when the current token was minted (when adopted: its scope then). */
  mintedScope: "team" | "public";
}

const ROTATION_NOTE = "rotates the share token: old links and the session tokens minted for them stop working";

function shareState(inputs: CanvasShareInputs, c: CanvasFields, mintedScope: "team" | "public"): CanvasShareState {
  // Absent inputs stay absent: the engine's property values cannot hold `undefined`.
  const kept = Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== undefined)) as CanvasShareInputs;
  return { ...kept, shareToken: c.share_token!, shareClientId: c.share_client_id ?? null, mintedScope };
}

/** A token is minted under the canvas's current scope: refuse to mint one under another than desired. */
function assertScope(inputs: CanvasShareInputs, c: ApiCanvas): void {
  if (inputs.accessScope && inputs.accessScope !== c.access_scope) {
    throw new SvcError(
      "access_scope_mismatch",
      `accessScope "${inputs.accessScope}" does not match canvas "${c.name}", whose access scope is "${c.access_scope}": ` +
        "a share token is minted under the canvas's scope. Change the canvas's accessScope first (pass canvas.accessScope here).",
    );
  }
}

async function preferredClientId(ctx: KindContext): Promise<string> {
  const best = await ctx.client.realtime.preferredInstance();
  if (!best)
    throw new SvcError(
      "no_realtime_instance",
      "No real-time instance is available to your team, so the canvas cannot be shared. Give clientId, or ask for an instance.",
    );
  return best.client_id;
}

function diffShare(olds: CanvasShareState, news: CanvasShareInputs): FieldChange[] {
  const fields: FieldChange[] = [];
  if (olds.canvasId !== news.canvasId)
    fields.push({ field: "canvasId", action: "replace", secret: false, from: olds.canvasId, to: news.canvasId });
  // A pinned instance is compared with the one in use; unpinning moves to the preferred one.
  const clientChanged =
    news.clientId === undefined ? olds.clientId !== undefined : news.clientId !== olds.shareClientId;
  if (clientChanged)
    fields.push({
      field: "clientId",
      action: "update",
      secret: false,
      from: olds.shareClientId,
      to: news.clientId ?? "(preferred instance)",
    });
  if (!equal(olds.rotation ?? null, news.rotation ?? null)) {
    fields.push({
      field: "rotation",
      action: "update",
      secret: false,
      from: olds.rotation,
      to: news.rotation,
      note: ROTATION_NOTE,
    });
  }
  if (news.accessScope !== undefined && news.accessScope !== olds.mintedScope) {
    fields.push({
      field: "accessScope",
      action: "update",
      secret: false,
      from: olds.mintedScope,
      to: news.accessScope,
      note: `the share token was minted under scope "${olds.mintedScope}"; a scope change on a shared canvas needs a rotation, which ${ROTATION_NOTE}`,
    });
  }
  return fields;
}

export const canvasShareKind: ResourceKind<CanvasShareInputs, CanvasShareState> = {
  kind: "CanvasShare",
  secretInputs: [],
  secretOutputs: ["shareToken"],
  check: (raw) => checkWith(CanvasShareInputs, raw),
  key: (i) => i.canvasId,
  diff(olds, news) {
    const fields = diffShare(olds, news);
    return summarize(fields, ["accessScope", "canvasId", "clientId", "rotation"]);
  },
  async create(ctx, inputs) {
    const c = await referencedCanvas(ctx, inputs.canvasId);
    if (c.share_token) {
      // Adopt the share; the scope its token was minted under is unknown, so the canvas's is assumed.
      const shared =
        inputs.clientId && inputs.clientId !== c.share_client_id
          ? await ctx.client.sharing.share({ collectionId: c.id, clientId: inputs.clientId })
          : c;
      return { id: c.id, state: shareState(inputs, shared, c.access_scope), adopted: true };
    }
    assertScope(inputs, c);
    const shared = await ctx.client.sharing.share({
      collectionId: c.id,
      clientId: inputs.clientId ?? (await preferredClientId(ctx)),
    });
    return { id: c.id, state: shareState(inputs, shared, shared.access_scope), adopted: false };
  },
  async read(ctx, id, olds) {
    const c = await unlessMissing(ctx.client.canvases.getById(id));
    if (!c?.share_token) return undefined;
    // A token rotated out of band was minted under a scope we did not see: assume the canvas's.
    const minted = c.share_token === olds.shareToken ? olds.mintedScope : c.access_scope;
    // The id is the canvas's: a read with an id alone (refresh, import) names the canvas too.
    const { clientId, rotation, accessScope } = olds;
    return shareState({ canvasId: id, clientId, rotation, accessScope }, c, minted);
  },
  async update(ctx, id, olds, news) {
    const c = await referencedCanvas(ctx, id);
    const rotate =
      diffShare(olds, news).some((f) => f.field === "rotation" || f.field === "accessScope") || !c.share_token;
    if (rotate) assertScope(news, c);
    const clientId =
      news.clientId ??
      (olds.clientId === undefined && c.share_client_id ? c.share_client_id : await preferredClientId(ctx));
    const shared = await ctx.client.sharing.share({
      collectionId: id,
      clientId,
      ...(rotate && c.share_token ? { newToken: true } : {}),
    });
    const minted = shared.share_token === olds.shareToken ? olds.mintedScope : shared.access_scope;
    return shareState(news, shared, minted);
  },
  async delete(ctx, id) {
    // Session tokens are revoked per canvas token (spec 4.1): revoked first, no embed outlives the share.
    const canvas = await unlessMissing(ctx.client.canvases.getById(id));
    if (canvas?.share_token) await unlessMissing(ctx.client.sessionTokens.revokeAll(canvas.share_token));
    await unlessMissing(ctx.client.sharing.unshare(id));
  },
  async observeAll(ctx) {
    // The team's canvases as the Canvas kind reads them (one canvas per answer): those with a share token.
    return (await teamCanvases(ctx))
      .map((t) => t.canvas)
      .filter((c) => c.share_token)
      .map((c) => ({ id: c.id, key: c.id, state: shareState({ canvasId: c.id }, c, c.access_scope) }));
  },
};

const TOKEN_SALT = "svc-iac:token";

/** Fingerprint of a share token as the inventory keeps it (never the token), keyed with the project's key. */
export const tokenFingerprint = (token: string, key: FingerprintKey | undefined) => fingerprint(token, TOKEN_SALT, key);

export const canvasShareTraits: ReconcileTraits = {
  phase: 4,
  addressPrefix: "share",
  references: [{ field: "canvasId", ref: "canvas" }],
  inherits: [{ ref: "canvas", field: "accessScope" }],
  observeGroup: "canvas",
  verbs: { create: "share", delete: "unshare", goneOutOfBand: "unshared on the platform out of band" },
  rotation: {
    on: ["rotation", "accessScope"],
    note: "old share links and the session tokens minted for the old token stop working",
    inPlace: true,
  },
  // Adopting a share keeps its token: the trigger is recorded, not acted on.
  adoptIgnores: ["rotation"],
  keep: ({ state, rotation, fingerprintKey }) => ({
    trigger: rotation?.trigger,
    rotation: rotation?.value,
    clientId: state.clientId,
    accessScope: state.accessScope,
    mintedScope: state.mintedScope,
    ...(state.shareToken ? { tokenFingerprint: tokenFingerprint(state.shareToken, fingerprintKey) } : {}),
  }),
  readKept(state, kept, fingerprintKey) {
    const out: Record<string, unknown> = { ...state };
    for (const k of ["clientId", "rotation", "accessScope"]) {
      if (kept[k] === undefined) delete out[k];
      else out[k] = kept[k];
    }
    // The scope the token was minted under is known only while the token is the one recorded.
    const sameToken =
      typeof state.shareToken === "string" &&
      matchesFingerprint(kept.tokenFingerprint, state.shareToken, TOKEN_SALT, fingerprintKey);
    if (sameToken && kept.mintedScope) out.mintedScope = kept.mintedScope;
    return out;
  },
  rekeyKept(kept, state, fingerprintKey) {
    if (!isUnkeyedFingerprint(kept.tokenFingerprint) || typeof state.shareToken !== "string") return undefined;
    if (!matchesFingerprint(kept.tokenFingerprint, state.shareToken, TOKEN_SALT)) return undefined;
    return { ...kept, tokenFingerprint: tokenFingerprint(state.shareToken, fingerprintKey) };
  },
  minted: (created) => !created.adopted,
  tokenOf: (state, minted) => (minted ? state.shareToken : undefined),
  cascade: { effect: "deleted", why: "a deleted canvas's share goes with it, and its share links stop working" },
  // The shares of this project's canvases (a share's id is its canvas's).
  unmanaged: {
    within: "Canvas",
    parents: "declared",
    parentId: (o) => o.id,
    address: (_o, canvas) => `share.${canvas}`,
  },
  preflight: {
    read: (client) => client.realtime.listInstances(),
    check(d, instances: { client_id: string }[]) {
      const ids = instances.map((i) => i.client_id);
      const clientId = d.inputs.clientId as string | undefined;
      if (clientId === undefined) {
        return ids.length
          ? []
          : [
              {
                path: "share",
                message:
                  "found no real-time instance available to the team, expected at least one to share the canvas on: ask for an instance, or remove share",
              },
            ];
      }
      if (ids.includes(clientId)) return [];
      const expected = ids.length
        ? `one of the team's real-time instances (${platformNames(ids)})`
        : "a real-time instance of the team, which has none";
      return [
        {
          path: "share.client_id",
          message: `found ${JSON.stringify(clientId)}, expected ${expected}; omit client_id for the preferred one`,
        },
      ];
    },
  },
};
