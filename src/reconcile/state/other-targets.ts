/**
 * The inventories of the project's other targets, so a plan never adopts an object another target
 * manages (see `cross-target.ts`). They are looked for where the state backend keeps them: beside
 * this target's state (`<state>/<project>/<target>/inventory.json`, locally or under an `s3://` /
 * `gs://` prefix), and at the state location each target of svc.yaml configures.
 */
import { readdir } from "node:fs/promises";
import { posix, resolve } from "node:path";
import type { SvcClient } from "../../api/client";
import { isApiError } from "../../api/errors";
import { loadProjectSettings } from "../load";
import type { LoadedProject, StateLocation } from "../../model/desired";
import { openStateBackend } from "./open-backend";
import type { Inventory } from "../../model/inventory";

/** Another target's inventory and where it was read. */
export interface TargetInventory {
  target: string;
  /** `.svc-iac/state/listings/default`, `s3://acme/state/listings/prod`. */
  location: string;
  inventory: Inventory;
}

export interface OtherTargets {
  /** Sorted by target. */
  inventories: TargetInventory[];
  /** Inventories that exist or may exist but could not be read: why, one line each (warnings). */
  unreadable: string[];
}

const shown = (l: StateLocation) => (l.kind === "local" ? l.path : l.url);
const key = (l: StateLocation) => `${l.kind} ${shown(l)}`;

/** The folder holding every target's state of the project: the location without its last segment. */
function parentOf(l: StateLocation): StateLocation {
  return l.kind === "local"
    ? { kind: "local", path: posix.dirname(l.path) }
    : { kind: "remote", url: l.url.replace(/\/[^/]+\/?$/, "") };
}

/** Targets with state beside this target's (folders or prefixes holding an inventory). */
async function siblings(project: LoadedProject, client: SvcClient | undefined): Promise<Map<string, StateLocation>> {
  const parent = parentOf(project.settings.state);
  const out = new Map<string, StateLocation>();
  if (parent.kind === "local") {
    const entries = await readdir(resolve(project.root, parent.path), { withFileTypes: true }).catch(() => []);
    for (const e of entries)
      if (e.isDirectory()) out.set(e.name, { kind: "local", path: posix.join(parent.path, e.name) });
  } else if (client) {
    const urls = await client.files.list(`${parent.url}/`);
    for (const url of urls) {
      const m = /^([^/]+)\/inventory\.json$/.exec(url.slice(parent.url.length + 1));
      if (m) out.set(m[1]!, { kind: "remote", url: `${parent.url}/${m[1]}` });
    }
  }
  return out;
}

/** The state location each other target of svc.yaml configures (its own `state:` setting). */
async function declared(
  project: LoadedProject,
  env: Record<string, string | undefined>,
): Promise<Map<string, StateLocation>> {
  const out = new Map<string, StateLocation>();
  for (const target of project.targets ?? []) {
    if (target === project.target) continue;
    const loaded = await loadProjectSettings(project.root, { target, env });
    if (loaded.ok) out.set(target, loaded.project.settings.state);
  }
  return out;
}

/**
 * Reads every other target's inventory that exists. A remote location is read with `client`
 * (this target's credentials); one that cannot be read is reported in `unreadable`, not thrown.
 */
export async function otherTargetInventories(
  project: LoadedProject,
  client: SvcClient | undefined,
  env: Record<string, string | undefined>,
): Promise<OtherTargets> {
  const unreadable: string[] = [];
  const candidates: [string, StateLocation][] = [];
  try {
    candidates.push(...(await siblings(project, client)));
  } catch (e) {
    if (!isApiError(e, "forbidden") && !isApiError(e, "not_found"))
      unreadable.push(
        `the state beside this target's (${shown(parentOf(project.settings.state))}) could not be listed (${(e as Error).message}), so objects other targets manage there may be adopted by this target`,
      );
  }
  candidates.push(...(await declared(project, env)));
  const seen = new Set([key(project.settings.state)]);
  const inventories: TargetInventory[] = [];
  for (const [target, location] of candidates) {
    if (target === project.target || seen.has(key(location)) || (location.kind === "remote" && !client)) continue;
    seen.add(key(location));
    const backend = openStateBackend(location, { root: project.root, client, project: project.project, target });
    try {
      const inventory = await backend.readInventory();
      if (inventory) inventories.push({ target, location: backend.location, inventory });
    } catch (e) {
      // Not readable with this target's credentials: another team's storage, which cannot hold this team's objects.
      if (isApiError(e, "forbidden") || isApiError(e, "not_found")) continue;
      unreadable.push(
        `the inventory of target "${target}" at ${backend.location} could not be read (${(e as Error).message}), so objects it manages may be adopted by this target`,
      );
    }
  }
  return {
    inventories: inventories.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0)),
    unreadable,
  };
}
