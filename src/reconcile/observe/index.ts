/**
 * Observe: what the platform holds, through each kind's bulk `observeAll` (list endpoints with full
 * records, so requests grow with N/300, not N). Only kinds the project declares or has in its
 * inventory are observed, so a project without secrets never needs a token that may read them;
 * kinds of one `observeGroup` are observed together. Kinds with the `observeEach` trait are read
 * one by one, for the ids the project names. Output files of the `outputFile` trait are read too.
 *
 * A plan may start the reads of the kinds the repository declares early ({@link ObservationStart}),
 * while the loader's Python check runs: observe then takes those reads over, and reads only what
 * the inventory adds.
 *
 * Folder `observe/`: what the platform holds, and the re-keying of older inventories checked
 * against it. May import `src/api`, `src/model`, `src/kinds` and `../phases`.
 */
import type { SvcClient } from "../../api/client";
import type { FingerprintKey } from "../../kinds/fingerprint";
import { SharedReads } from "../../kinds/fresh-listings";
import type { KindContext, Observed } from "../../kinds/kind";
import { KINDS } from "../../kinds/registry";
import type { DesiredKind, LoadedProject } from "../../model/desired";
import { PHASES, traitsOf } from "../phases";
import type { Inventory } from "../../model/inventory";
import { RepositoryJail } from "../../repository/jail";

export interface KindObservation {
  byId: Map<string, Observed<any>>;
  byKey: Map<string, Observed<any>>;
}

export interface Observation {
  kinds: Partial<Record<DesiredKind, KindObservation>>;
  /** Current content of output files (repository-relative path → text; absent: no file). */
  files: Map<string, string>;
}

/** The kinds a plan for this project needs to see. */
export function kindsToObserve(project: LoadedProject, inventory: Inventory | undefined): DesiredKind[] {
  const used = new Set<DesiredKind>(project.objects.map((o) => o.kind));
  for (const e of Object.values(inventory?.objects ?? {})) used.add(e.kind);
  return withGroups(used);
}

/** `used` and the kinds observed together with them, in phase order. */
function withGroups(used: ReadonlySet<DesiredKind>): DesiredKind[] {
  const groups = new Set([...used].flatMap((k) => traitsOf(k).observeGroup ?? []));
  return PHASES.filter((k) => used.has(k) || groups.has(traitsOf(k).observeGroup ?? ""));
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

/** Reads each object of `kind` the project names (declared or in the inventory) by id. */
async function observeEach(
  ctx: KindContext,
  kind: DesiredKind,
  project: LoadedProject,
  inventory: Inventory | undefined,
): Promise<Observed<any>[]> {
  const idOf = traitsOf(kind).observeEach!.idOf;
  const ids = new Set<string>();
  for (const o of project.objects) if (o.kind === kind) ids.add(idOf(o.inputs));
  for (const e of Object.values(inventory?.objects ?? {})) if (e.kind === kind) ids.add(e.id);
  const found = await Promise.all(
    [...ids].sort().map(async (id) => ({ id, key: id, state: await KINDS[kind]!.read(ctx, id, {}) })),
  );
  return found.filter((o) => o.state !== undefined);
}

/**
 * The objects of `kind` its bulk listing does not carry (the `observeOutside` trait), for the
 * addresses the project names: recorded ones by id, declared ones not recorded by natural key.
 */
async function observeOutside(
  ctx: KindContext,
  kind: DesiredKind,
  project: LoadedProject,
  inventory: Inventory | undefined,
): Promise<Observed<any>[]> {
  const outside = traitsOf(kind).observeOutside;
  if (!outside) return [];
  const recorded = Object.entries(inventory?.objects ?? {})
    .filter(([address, e]) => e.kind === kind && outside.wants(address))
    .map(([address, e]) => ({ address, id: e.id }));
  const declared = project.objects.filter(
    (o) => o.kind === kind && outside.wants(o.address) && !inventory?.objects[o.address],
  );
  if (!recorded.length && !declared.length) return [];
  return outside.read(ctx, { recorded, declared });
}

/**
 * The bulk reads (`observeAll`) of the kinds a project declares, started before the inventory is
 * read or the plan needs them; {@link observe} takes them over. Reads only: nothing is written.
 */
export class ObservationStart {
  /** Kinds listed through the same answer (a canvas listing carries its canvases' UDFs) share one read. */
  readonly ctx: KindContext;
  private readonly started = new Map<DesiredKind, Promise<Observed<any>[]>>();

  constructor(client: SvcClient, fingerprintKey?: FingerprintKey) {
    this.ctx = { client, fingerprintKey, reads: new SharedReads() };
  }

  /** Starts the bulk reads of `kinds` and of the kinds observed with them (failures wait for {@link observe}, which reports them). */
  static ofKinds(client: SvcClient, kinds: readonly DesiredKind[], fingerprintKey?: FingerprintKey): ObservationStart {
    return new ObservationStart(client, fingerprintKey).declare(kinds);
  }

  /** Starts the bulk reads of `kinds` and of the kinds observed with them that have not started. */
  declare(kinds: readonly DesiredKind[]): this {
    for (const k of withGroups(new Set(kinds))) if (!traitsOf(k).observeEach) void this.bulk(k);
    return this;
  }

  /** The bulk read of `kind`, started now or earlier. */
  bulk(kind: DesiredKind): Promise<Observed<any>[]> {
    let read = this.started.get(kind);
    if (!read) {
      read = KINDS[kind]!.observeAll(this.ctx);
      read.catch(() => {}); // reported when observe awaits it
      this.started.set(kind, read);
    }
    return read;
  }
}

/** Reads the platform (and the output files) for `project`; secret fingerprints in the states are keyed with `fingerprintKey`. */
export async function observe(
  client: SvcClient,
  project: LoadedProject,
  inventory: Inventory | undefined,
  fingerprintKey?: FingerprintKey,
  started?: ObservationStart,
): Promise<Observation> {
  const start = started ?? new ObservationStart(client, fingerprintKey);
  const kinds = kindsToObserve(project, inventory);
  const observation: Observation = { kinds: {}, files: new Map() };
  await Promise.all(
    kinds.map(async (k) => {
      const [list, outside] = await Promise.all([
        traitsOf(k).observeEach ? observeEach(start.ctx, k, project, inventory) : start.bulk(k),
        observeOutside(start.ctx, k, project, inventory),
      ]);
      observation.kinds[k] = index([...list, ...outside]);
    }),
  );
  const jail = RepositoryJail.forProject(project.root);
  for (const o of project.objects) {
    const output = traitsOf(o.kind).outputFile?.path(o);
    if (!output) continue;
    // No file yet (apply writes it), or one that cannot be read: the plan shows it as to be written.
    const read = jail.readText(output);
    if (read.kind === "text") observation.files.set(output, read.text);
  }
  return observation;
}
