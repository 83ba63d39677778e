/**
 * `restore-history.json`: the restores `svc-iac drift --remediate` made, per address, beside the
 * inventory (local or remote). Small: only the restores inside the longest window are worth
 * keeping, so each write keeps the last {@link KEPT_PER_ADDRESS} of an address.
 */
import { SvcError } from "../../errors";
import { stableJsonText } from "./json-file";
import type { RestoreHistory, RestoreRecord } from "./types";

export const RESTORE_HISTORY_FILE = "restore-history.json";

/** Restores kept per address (more than any `flapping.restores` a project sets in practice). */
export const KEPT_PER_ADDRESS = 50;

/** `restore-history.json` is not one: the command stops rather than count restores wrongly. */
export class RestoreHistoryError extends SvcError {
  constructor(message: string) {
    super("restore_history_unreadable", message);
    this.name = "RestoreHistoryError";
  }
}

export function emptyRestoreHistory(project: string, target: string): RestoreHistory {
  return { version: 1, project, target, restores: {} };
}

const isRecord = (r: unknown): r is RestoreRecord =>
  !!r &&
  typeof r === "object" &&
  typeof (r as RestoreRecord).at === "string" &&
  !Number.isNaN(Date.parse((r as RestoreRecord).at)) &&
  typeof (r as RestoreRecord).declared === "string";

/** Reads the history's text; a file that is not one stops the command (nothing is restored blind). */
export function parseRestoreHistory(
  text: string | undefined,
  where: string,
  owner: { project: string; target: string },
): RestoreHistory {
  if (text === undefined) return emptyRestoreHistory(owner.project, owner.target);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new RestoreHistoryError(
      `${where} is not a restore history: it is not JSON. Move it away to start a new history (flapping is then counted afresh).`,
    );
  }
  const d = doc as Partial<RestoreHistory>;
  if (!d || typeof d !== "object" || d.version !== 1 || !d.restores || typeof d.restores !== "object")
    throw new RestoreHistoryError(
      `${where} is not a restore history of version 1 (expected {"version": 1, "restores": {...}}). Move it away to start a new history.`,
    );
  const restores: Record<string, RestoreRecord[]> = {};
  for (const [address, list] of Object.entries(d.restores)) {
    if (Array.isArray(list)) restores[address] = list.filter(isRecord).map((r) => ({ at: r.at, declared: r.declared }));
  }
  return { version: 1, project: owner.project, target: owner.target, restores };
}

/** The history as written: addresses sorted, the last {@link KEPT_PER_ADDRESS} restores of each. */
export function serializeRestoreHistory(history: RestoreHistory): string {
  const restores = Object.fromEntries(
    Object.keys(history.restores)
      .sort()
      .filter((a) => history.restores[a]!.length)
      .map((a) => [a, history.restores[a]!.slice(-KEPT_PER_ADDRESS)]),
  );
  return stableJsonText({ ...history, restores });
}
