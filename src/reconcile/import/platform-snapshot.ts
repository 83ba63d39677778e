/**
 * What an import reads from the platform, through the same bounded reads observe uses: the team's
 * lite canvas listing (every canvas with its UDF ids), then each selected canvas with its UDFs by
 * id, one canvas per answer (see `team-canvases.ts`); cronjobs, secret keys (never values),
 * service accounts, and the preferred real-time instance (a share on it is written without a
 * pinned `client_id`).
 */
import { isCandidateSlug } from "../../kinds/udf/switch-over";
import type { SvcClient } from "../../api/client";
import type { Udf as ApiUdf } from "../../api/schemas";
import { isApiError } from "../../api/errors";
import type {
  Canvas as ApiCanvas,
  Cronjob as ApiCronjob,
  ServiceAccount as ApiServiceAccount,
} from "../../api/schemas";
import { readTeamCanvasRecords } from "../../kinds/team-canvases";

/** What to import. */
export interface ImportSelection {
  /** Canvas names, or every canvas of the team. */
  canvases: readonly string[] | "all";
  /** Cronjobs that run UDFs of the imported canvases (with canvases named, only theirs are reported on). */
  cronjobs: boolean;
  /** Secret keys (values stay on the platform). */
  secrets: boolean;
  serviceAccounts: boolean;
  /** Every UDF without a canvas of the team (`--all`). @default false */
  canvaslessUdfs?: boolean;
  /**
   * Single objects (`udf.<canvas>/<slug>`, `cronjob.<name>`): only their files are written and only
   * they are bound; every other file of the repository is left as it is.
   */
  addresses?: readonly string[];
}

export interface PlatformSnapshot {
  /** The selected canvases, full records (with their UDFs). */
  canvases: ApiCanvas[];
  cronjobs: ApiCronjob[];
  secretKeys: string[];
  serviceAccounts: ApiServiceAccount[];
  preferredClientId?: string;
  /** Names asked for with --canvas that the team does not have. */
  missingCanvases: string[];
  /** Every canvas name of the team (for "did you mean"). */
  canvasNames: string[];
  /** The canvas of every UDF on a team canvas, by UDF id (which canvas a cronjob's UDF is on). */
  udfCanvas: Map<string, string>;
  /** The selected UDFs without a canvas (`--all`, or `udf.<slug>` addresses). */
  canvaslessUdfs: ApiUdf[];
}

/** The slugs of the `udf.<slug>` addresses (UDFs without a canvas) of a selection. */
const canvaslessSlugs = (select: ImportSelection) =>
  (select.addresses ?? []).filter((a) => /^udf\.[^/]+$/.test(a)).map((a) => a.slice("udf.".length));

/**
 * The team's UDFs without a canvas: with `--all`, every one the environment's listing holds (where
 * two teammates have one slug, the one a look-up by slug finds, which is what a plan finds); else
 * those the addresses name, looked up by slug.
 */
async function readCanvaslessUdfs(client: SvcClient, select: ImportSelection): Promise<ApiUdf[]> {
  const bySlug = async (slug: string) => {
    try {
      const u = await client.udfs.getExecEnvBySlug(slug);
      return u.collection_id ? undefined : u;
    } catch (e) {
      if (isApiError(e, "not_found")) return undefined;
      throw e;
    }
  };
  if (!select.canvaslessUdfs)
    return (await Promise.all(canvaslessSlugs(select).map(bySlug))).filter((u): u is ApiUdf => !!u);
  const all: ApiUdf[] = [];
  // A switch-over's candidate (`deploy: tested`) is svc-iac's own, and gone once its apply ends: never imported.
  for await (const u of client.udfs.listExecEnv()) if (!u.collection_id && !isCandidateSlug(u.slug)) all.push(u);
  const counts = new Map<string, number>();
  for (const u of all) counts.set(u.slug, (counts.get(u.slug) ?? 0) + 1);
  const shared = [...counts].filter(([, n]) => n > 1).map(([slug]) => slug);
  const found = new Map((await Promise.all(shared.map(bySlug))).flatMap((u) => (u ? [[u.slug, u.id] as const] : [])));
  return all.filter((u) => !found.has(u.slug) || found.get(u.slug) === u.id);
}

export async function readPlatform(client: SvcClient, select: ImportSelection): Promise<PlatformSnapshot> {
  const wanted = select.canvases === "all" ? undefined : new Set(select.canvases);
  const [team, cronjobs, secretKeys, serviceAccounts, preferred, canvaslessUdfs] = await Promise.all([
    readTeamCanvasRecords(client, (c) => !wanted || wanted.has(c.name)),
    select.cronjobs ? client.cronjobs.list() : [],
    select.secrets ? client.secrets.list() : [],
    select.serviceAccounts ? client.environment.listServiceAccounts() : [],
    client.realtime.preferredInstance(),
    readCanvaslessUdfs(client, select),
  ]);
  const { listed, canvases } = team;
  const found = new Set(canvases.map((c) => c.name));
  return {
    canvases,
    cronjobs,
    secretKeys,
    serviceAccounts,
    preferredClientId: preferred?.client_id,
    missingCanvases: wanted ? [...wanted].filter((n) => !found.has(n)).sort() : [],
    canvasNames: listed.map((c) => c.name).sort(),
    udfCanvas: new Map(listed.flatMap((c) => c.udf_ids.map((id) => [id, c.name] as const))),
    canvaslessUdfs,
  };
}
