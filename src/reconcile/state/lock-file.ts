/**
 * The lease lock as a file (`lock.json`), shared by the local and remote backends: its schema,
 * fresh leases with random ids, expiry, and the default owner description.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { z } from "zod";
import { stableJsonText } from "./json-file";
import { StateFileError } from "./lock-errors";
import type { AcquireLockOptions, LockInfo, LockProcess } from "./types";

const LockInfoSchema = z.object({
  id: z.string().min(1),
  owner: z.string(),
  operation: z.string(),
  acquiredAt: z.string(),
  expiresAt: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "expected an ISO 8601 time"),
  process: z.object({ host: z.string(), bootId: z.string().optional(), pid: z.number().int().positive() }).optional(),
});

export type { AcquireLockOptions } from "./types";

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
    process: thisProcess(),
  };
}

/** The kernel's boot id, where the system has one (Linux); a pid is only meaningful within one boot. */
function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** This process, as a lease records its holder. */
export function thisProcess(): LockProcess {
  const boot = bootId();
  return { host: os.hostname(), ...(boot ? { bootId: boot } : {}), pid: process.pid };
}

/** True when `pid` names a running process on this host (one of another user counts as running). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Why the holder of a lease is known to be dead, or `undefined` when it may be alive (another
 * host, a lock without process data, a running pid). Only provable cases count: the holder ran on
 * this host, and either the host has rebooted since or its pid no longer runs. A reused pid reads
 * as alive, which errs on the side of waiting for the lease.
 */
export function deadHolderReason(
  info: LockInfo,
  here: LockProcess = thisProcess(),
  running: (pid: number) => boolean = isRunning,
): string | undefined {
  const holder = info.process;
  if (!holder || holder.host !== here.host) return undefined;
  if (holder.bootId && here.bootId && holder.bootId !== here.bootId) return `host ${here.host} has restarted since`;
  if (holder.pid === here.pid) return undefined;
  return running(holder.pid) ? undefined : `process ${holder.pid} no longer runs on ${here.host}`;
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
    throw new StateFileError(
      file,
      `Lock file ${file} is unreadable (not a lock written by svc-iac). If no run is in progress, remove it with --force-unlock.`,
    );
  }
  return parsed.data;
}

/** What a lock file holds when it cannot be read, as {@link StateBackend.forceUnlock} reports removing it. */
export function unreadableLock(file: string): LockInfo {
  return {
    id: "(unreadable)",
    owner: `unreadable lock file ${file}`,
    operation: "unknown",
    acquiredAt: "",
    expiresAt: "",
  };
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
