/**
 * Canvas: a group of UDFs with a sharing level. Natural key: the name, unique in the team.
 * Updates never send `udfs` (that would delete the UDFs managed as their own resources).
 */
import { unlessMissing } from "../missing";
import { isApiError } from "../../api/errors";
import type { Canvas as ApiCanvas } from "../../api/schemas";
import { oversizeReason } from "../../api/request-limits";
import { checkWith } from "../check";
import { diffFields, secretFingerprint } from "../field-diff";
import type { FingerprintKey } from "../fingerprint";
import type { CheckResult, Created, KindContext, ResourceKind } from "../kind";
import { NothingToAdopt, createUnlooked } from "../fresh-listings";
import type { ReconcileTraits } from "../reconcile-traits";
import { readTeamCanvases, type TeamCanvas } from "../team-canvases";
import { type CheckedInputs, definitionCheck } from "../definition-check";
import { canvasDefinition } from "./definition";

/** A canvas's checked inputs. */
export type CanvasInputs = CheckedInputs<typeof canvasDefinition>;
export const CanvasInputs = definitionCheck(canvasDefinition);

/** Kept state: the inputs (the passcode as a fingerprint only) and the platform's outputs. */
export interface CanvasState extends Omit<CanvasInputs, "passcode"> {
  id: string;
  username: string | null;
  lastUpdated: string;
  passcodeFingerprint?: string;
  shareToken?: string | null;
}

const SALT = "Canvas";

function toBody(i: CanvasInputs) {
  return {
    name: i.name,
    access_scope: i.accessScope,
    allow_public_read: i.allowPublicRead,
    passcode: i.passcode ?? null,
    dashboard_body: i.dashboardBody ?? null,
    preview_image_url: i.previewImageUrl ?? null,
  };
}

/** The schema's check, then the size of the body create and update send (the dashboard is its large part). */
function checkCanvas(raw: unknown): CheckResult<CanvasInputs> {
  const r = checkWith(CanvasInputs, raw, ["passcode"]);
  if (r.failures.length) return r;
  const tooLarge = oversizeReason(
    "The canvas body (its dashboard_body and settings)",
    Buffer.byteLength(JSON.stringify(toBody(r.inputs))),
  );
  return tooLarge ? { ...r, failures: [{ property: "dashboardBody", reason: tooLarge }] } : r;
}

/** Maps a platform canvas to kept state. */
export interface CanvasRecord {
  id: string;
  name: string;
  access_scope: "team" | "public";
  allow_public_read: boolean;
  passcode?: string | null;
  dashboard_body?: string | null;
  preview_image_url?: string | null;
  username?: string | null;
  last_updated: string;
}

export function canvasState(c: CanvasRecord, key?: FingerprintKey): CanvasState {
  return {
    id: c.id,
    name: c.name,
    accessScope: c.access_scope,
    allowPublicRead: c.allow_public_read,
    ...(c.passcode ? { passcodeFingerprint: secretFingerprint(c.passcode, SALT, "passcode", key) } : {}),
    ...(typeof c.dashboard_body === "string" ? { dashboardBody: c.dashboard_body } : {}),
    ...(c.preview_image_url ? { previewImageUrl: c.preview_image_url } : {}),
    username: c.username ?? null,
    lastUpdated: c.last_updated,
  };
}

/**
 * The team's canvases with their UDFs unchecked, read once per observation (`ctx.reads`), one
 * canvas per answer (see `team-canvases.ts`).
 */
export function teamCanvases(ctx: KindContext): Promise<TeamCanvas[]> {
  return ctx.reads?.read("team canvases", () => readTeamCanvases(ctx.client)) ?? readTeamCanvases(ctx.client);
}

async function findByName(ctx: KindContext, name: string): Promise<ApiCanvas | undefined> {
  return unlessMissing(ctx.client.canvases.getExecEnvBySlug(name));
}

/** Adopts `existing`, then makes it match: a lost answer to an earlier create must not leave it half-set. */
async function adoptCanvas(ctx: KindContext, existing: ApiCanvas, inputs: CanvasInputs): Promise<Created<CanvasState>> {
  const c = await ctx.client.canvases.update(existing.id, toBody(inputs));
  return { id: c.id, state: canvasState(c, ctx.fingerprintKey), adopted: true };
}

export const canvasKind: ResourceKind<CanvasInputs, CanvasState> = {
  kind: "Canvas",
  secretInputs: ["passcode"],
  secretOutputs: ["passcodeFingerprint"],
  check: checkCanvas,
  key: (i) => i.name,
  diff(olds, news, ctx) {
    const { passcodeFingerprint: _fp, ...rest } = olds;
    return diffFields(
      { ...rest, passcodeFingerprint: olds.passcodeFingerprint },
      {
        ...news,
        allowPublicRead: news.allowPublicRead,
        accessScope: news.accessScope,
        // Fields left out are compared too: create and update clear them, so a value set by hand is drift.
        passcode: news.passcode,
        dashboardBody: news.dashboardBody,
        previewImageUrl: news.previewImageUrl,
      },
      { secret: ["passcode"], salt: SALT, key: ctx?.fingerprintKey },
    );
  },
  async create(ctx, inputs, opts) {
    const lookup = opts?.lookup ?? "first";
    if (lookup !== "never") {
      const existing = await findByName(ctx, inputs.name);
      if (existing) return adoptCanvas(ctx, existing, inputs);
      if (lookup === "only") throw new NothingToAdopt(inputs.name);
    }
    const c = await (lookup === "never"
      ? createUnlooked(() => ctx.client.canvases.create(toBody(inputs)))
      : ctx.client.canvases.create(toBody(inputs)));
    return { id: c.id, state: canvasState(c, ctx.fingerprintKey), adopted: false };
  },
  async read(ctx, id) {
    try {
      return canvasState(await ctx.client.canvases.getById(id), ctx.fingerprintKey);
    } catch (e) {
      if (isApiError(e, "not_found")) return undefined;
      throw e;
    }
  },
  async update(ctx, id, _olds, news) {
    return canvasState(await ctx.client.canvases.update(id, toBody(news)), ctx.fingerprintKey);
  },
  async observeAll(ctx) {
    // Every team canvas in full, one canvas per answer: only the canvases' own fields are checked
    // and used here (the Udf and CanvasShare kinds read the same answers).
    const all = await teamCanvases(ctx);
    return all.map(({ canvas: c }) => ({ id: c.id, key: c.name, state: canvasState(c, ctx.fingerprintKey) }));
  },
  async delete(ctx, id) {
    await unlessMissing(ctx.client.canvases.delete(id));
  },
};

export const canvasTraits: ReconcileTraits = {
  phase: 2,
  nameInput: "name",
  addressPrefix: "canvas",
  observeGroup: "canvas",
  volatile: ["lastUpdated"],
  // A renamed canvas folder is the canvas whose UDFs are the same.
  renames: { byReferrers: true },
  textFields: { dashboardBody: "text" },
  replaceRefused:
    "deleting a canvas deletes every UDF on it (hand-made ones too) and its share; replace the UDFs (--replace udf.CANVAS/SLUG) or give the share a new token (--replace share.CANVAS) instead",
};
