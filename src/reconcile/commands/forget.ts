/**
 * `svc-iac forget ADDRESS...`: stop managing objects without touching them, as `terraform state
 * rm` or `pulumi state delete`. Each address leaves the target's inventory (under the lock) and is
 * recorded as forgotten, so plan, drift and prune leave it alone and drift does not report it as
 * unmanaged; `svc-iac import` can bind it again. Refused, changing nothing, while a file of the
 * repository still declares an address (the next apply would adopt it again): delete the file
 * first, or list the address under `removed:` in svc.yaml to have it reviewed in a pull request.
 */
import { errorCodeOf } from "../../errors";
import { otherClaimsOf } from "../projects/project-claims";
import { connect } from "./connect";
import { loadRepository } from "../load";
import type { LoadError } from "../../model/desired";
import { defaultLockOwner } from "../state/lock-file";
import { openStateBackend } from "../state/open-backend";

export interface ForgetOptions {
  dir: string;
  /** @default "default" */
  target?: string;
  env: Record<string, string | undefined>;
  /** Inventory addresses, as plan and drift name them. */
  addresses: readonly string[];
  lockOwner?: string;
  now?: () => Date;
  log?: (line: string) => void;
}

export interface ForgetResult {
  command: "forget";
  exitCode: 0 | 1;
  errors: LoadError[];
  /** What left the inventory: each address with its object's kind and id (left on the platform). */
  forgotten?: { address: string; kind: string; id: string }[];
  /** The state the inventory is in (a folder or URL). */
  state?: string;
  message?: string;
  /** The stable code of the error that stopped the command (`src/errors.ts`). */
  code?: string;
}

const LOCK_TTL_MS = 60_000;

export async function forgetCommand(opts: ForgetOptions): Promise<ForgetResult> {
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env });
  if (!loaded.ok) return { command: "forget", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  // Another folder of the repository with this name shares its state: forgetting here would edit its inventory.
  const claimed = await otherClaimsOf(opts.dir, project.project);
  if (claimed.length) return { command: "forget", exitCode: 1, errors: claimed };
  const addresses = [...new Set(opts.addresses)].sort();
  const declared = addresses.flatMap((a) => project.objects.find((o) => o.address === a) ?? []);
  if (declared.length) {
    const lines = declared.map(
      (o) =>
        // Not "list it under removed:": svc.yaml refuses removed: for an address a file still declares.
        `${o.address} is still declared in ${o.source.file}:${o.source.line}, so the next apply would manage it again. Delete that declaration first, then run forget again (or, to have it reviewed in a pull request, delete it and list ${o.address} under removed: in svc.yaml in the same change).`,
    );
    return { command: "forget", exitCode: 1, errors: [], message: [...lines, "Nothing was forgotten."].join("\n") };
  }
  const now = opts.now ?? (() => new Date());
  let connection: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    connection = await connect(project, opts.env, { log: opts.log });
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client: connection.client,
      project: project.project,
      target: project.target,
    });
    const lock = await backend.acquireLock({
      owner: opts.lockOwner ?? defaultLockOwner(),
      operation: "forget",
      ttlMs: LOCK_TTL_MS,
      now,
    });
    try {
      const inventory = await backend.readInventory();
      const unknown = addresses.filter((a) => !inventory?.objects[a]);
      if (unknown.length || !inventory) {
        const known = Object.keys(inventory?.objects ?? {}).sort();
        const listed = known.length
          ? `it records ${known.length > 12 ? `${known.slice(0, 12).join(", ")}, …` : known.join(", ")}`
          : "it records nothing";
        return {
          command: "forget",
          exitCode: 1,
          errors: [],
          message: `${unknown.join(", ")} ${unknown.length > 1 ? "are" : "is"} not in the inventory of ${project.project} (${project.target}) at ${backend.location}; ${listed}. Nothing was forgotten.`,
        };
      }
      const at = now().toISOString();
      const forgotten = addresses.map((address) => ({
        address,
        kind: inventory.objects[address]!.kind,
        id: inventory.objects[address]!.id,
      }));
      const next = structuredClone(inventory);
      for (const f of forgotten) {
        delete next.objects[f.address];
        next.forgotten = { ...next.forgotten, [f.address]: { kind: f.kind, id: f.id, at } };
      }
      next.updatedAt = at;
      await backend.writeInventory(next);
      return { command: "forget", exitCode: 0, errors: [], forgotten, state: backend.location };
    } finally {
      await lock.release();
    }
  } catch (e) {
    return {
      command: "forget",
      exitCode: 1,
      errors: [],
      message: e instanceof Error ? e.message : String(e),
      code: errorCodeOf(e),
    };
  } finally {
    await connection?.close();
  }
}
