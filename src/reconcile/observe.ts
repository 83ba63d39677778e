/**
 * Observe: what the platform holds, through each kind's bulk `observeAll` (list endpoints with full
 * records, so requests grow with N/300, not N). Only kinds the project declares or has in its
 * inventory are observed, so a project without secrets never needs a token that may read them.
 * Bucket policies are documents derived from the environment, read per declared bucket.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { SvcClient } from "../api/client";
import type { Observed } from "../resources/kind";
import { KINDS } from "../resources/registry";
import type { DesiredKind, LoadedProject } from "./model";
import { PHASES } from "./phases";
import type { Inventory } from "./state/types";

export interface KindObservation {
  byId: Map<string, Observed<any>>;
  byKey: Map<string, Observed<any>>;
}

export interface Observation {
  kinds: Partial<Record<DesiredKind, KindObservation>>;
  /** Current content of bucket-policy output files (repository-relative path → text; absent: no file). */
  files: Map<string, string>;
}

/** Kinds whose objects share the canvas listing's scope: observed together when any is in play. */
const CANVAS_FAMILY: readonly DesiredKind[] = ["Canvas", "Udf", "CanvasShare", "Cronjob"];

/** The kinds a plan for this project needs to see. */
export function kindsToObserve(project: LoadedProject, inventory: Inventory | undefined): DesiredKind[] {
  const used = new Set<DesiredKind>(project.objects.map((o) => o.kind));
  for (const e of Object.values(inventory?.objects ?? {})) used.add(e.kind);
  if (CANVAS_FAMILY.some((k) => used.has(k))) for (const k of CANVAS_FAMILY) used.add(k);
  return PHASES.filter((k) => used.has(k));
}

function index(list: Observed<any>[]): KindObservation {
  const byId = new Map<string, Observed<any>>();
  const byKey = new Map<string, Observed<any>>();
  for (const o of list) {
    byId.set(o.id, o);
    // Names are not unique for every kind (cronjobs): the oldest, listed first, is the one adopted.
    if (!byKey.has(o.key)) byKey.set(o.key, o);
  }
  return { byId, byKey };
}

async function bucketPolicies(client: SvcClient, buckets: string[]): Promise<Observed<any>[]> {
  const kind = KINDS.BucketPolicy!;
  return Promise.all(buckets.map(async (b) => ({ id: b, key: b, state: await kind.read({ client }, b, {}) })));
}

/** Reads the platform (and the bucket-policy output files) for `project`. */
export async function observe(client: SvcClient, project: LoadedProject, inventory: Inventory | undefined): Promise<Observation> {
  const kinds = kindsToObserve(project, inventory);
  const observation: Observation = { kinds: {}, files: new Map() };
  await Promise.all(
    kinds.map(async (k) => {
      if (k === "BucketPolicy") {
        const names = new Set<string>();
        for (const o of project.objects) if (o.kind === "BucketPolicy") names.add(String(o.inputs.bucketName));
        for (const e of Object.values(inventory?.objects ?? {})) if (e.kind === "BucketPolicy") names.add(e.id);
        observation.kinds[k] = index(await bucketPolicies(client, [...names].sort()));
        return;
      }
      observation.kinds[k] = index(await KINDS[k]!.observeAll({ client }));
    }),
  );
  for (const o of project.objects) {
    if (o.kind !== "BucketPolicy" || !o.options.output) continue;
    try {
      observation.files.set(o.options.output, await readFile(resolve(project.root, o.options.output), "utf8"));
    } catch {
      // No file yet: apply writes it.
    }
  }
  return observation;
}
