/**
 * The lease lock as a file (`lock.json`), shared by the local and remote backends: its schema,
 * fresh leases with random ids, expiry, and the default owner description.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { z } from "zod";
import { stableJsonText } from "../json-file";
import { StateFileError } from "./lock-errors";
import type { LockInfo } from "./types";

const LockInfoSchema = z.object({
  id: z.string().min(1),
  owner: z.string(),
  operation: z.string(),
  acquiredAt: z.string(),
  expiresAt: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "expected an ISO 8601 time"),
});

/** Options of {@link StateBackend.acquireLock}. */
export interface AcquireLockOptions {
  owner: string;
  operation: string;
  ttlMs: number;
  /** @default () => new Date() */
  now?: () => Date;
}

/** A random lease id: 32 lowercase hex characters (what `--force-unlock ID` names). */
export function newLockId(): string {
  return randomUUID().replaceAll("-", "");
}

/** A new lease starting now. */
export function newLockInfo(opts: AcquireLockOptions, id = newLockId()): LockInfo {
  const now = (opts.now ?? (() => new Date()))();
  return {
    id,
    owner: opts.owner,
    operation: opts.operation,
    acquiredAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + opts.ttlMs).toISOString(),
  };
}

/** True when the lease ended at or before `now`: another run may take it over. */
export function isExpired(info: LockInfo, now: Date): boolean {
  return Date.parse(info.expiresAt) <= now.getTime();
}

export function serializeLock(info: LockInfo): string {
  return stableJsonText(info);
}

/**
 * Reads a lock file's text. `file` names where it came from.
 * @throws StateFileError when it is not a lock, saying how to clear it.
 */
export function parseLock(text: string, file: string): LockInfo {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const parsed = LockInfoSchema.safeParse(data);
  if (!parsed.success) {
    throw new StateFileError(file, `Lock file ${file} is unreadable (not a lock written by svc-iac). If no run is in progress, remove it with --force-unlock.`);
  }
  return parsed.data;
}

/** What a lock file holds when it cannot be read, as {@link StateBackend.forceUnlock} reports removing it. */
export function unreadableLock(file: string): LockInfo {
  return { id: "(unreadable)", owner: `unreadable lock file ${file}`, operation: "unknown", acquiredAt: "", expiresAt: "" };
}

/**
 * Who holds a lease, for the message other runs see: the GitHub Actions run URL under Actions,
 * else `user@host pid 1234`.
 */
export function defaultLockOwner(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GITHUB_ACTIONS === "true" && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  }
  let user = env.USER ?? env.USERNAME;
  if (!user) {
    try {
      user = os.userInfo().username;
    } catch {
      user = "unknown";
    }
  }
  return `${user}@${os.hostname()} pid ${process.pid}`;
}
