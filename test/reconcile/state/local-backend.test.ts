import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure } from "../../helpers/emulator";
import {
  LockLostError,
  LockMismatchError,
  LockedError,
  StateFileError,
} from "../../../src/reconcile/state/lock-errors";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import { thisProcess } from "../../../src/reconcile/state/lock-file";
import type { Inventory } from "../../../src/model/inventory";
import type { LockInfo, StateBackend } from "../../../src/reconcile/state/types";

const STATE = ".svc-iac/state/listings/default";
const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => () => new Date(T0.getTime() + ms);

let root: string;
let backend: StateBackend;
const open = () => openStateBackend({ kind: "local", path: STATE }, { root, project: "listings", target: "default" });
const lockFile = () => join(root, STATE, "lock.json");
const lockOpts = (owner: string, now = at(0)) => ({ owner, operation: "apply", ttlMs: 60_000, now });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-state-"));
  backend = open();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const inventory: Inventory = {
  version: 1,
  project: "listings",
  target: "default",
  updatedAt: "2026-03-01T10:00:00.000Z",
  objects: {
    "canvas.sales": {
      kind: "Canvas",
      id: "c-1",
      key: "sales",
      createdAt: "2026-03-01T10:00:00.000Z",
      appliedAt: "2026-03-01T10:00:00.000Z",
    },
  },
};

describe("the local state backend's inventory", () => {
  it("is undefined before anything was applied", async () => {
    expect(backend.location).toBe(STATE);
    expect(await backend.readInventory()).toBeUndefined();
  });

  it("reads back what was written, from inventory.json in the state folder, leaving no temporary files", async () => {
    await backend.writeInventory(inventory);
    expect(await open().readInventory()).toEqual(inventory);
    expect(readdirSync(join(root, STATE))).toEqual(["inventory.json"]);
    expect(readFileSync(join(root, STATE, "inventory.json"), "utf8")).toMatch(/^\{\n {2}"objects": \{\n[\s\S]*\}\n$/);
  });

  it("names the file when it is corrupt", async () => {
    mkdirSync(join(root, STATE), { recursive: true });
    writeFileSync(join(root, STATE, "inventory.json"), "{ not json");
    const e = await failure(backend.readInventory());
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(`Inventory file ${STATE}/inventory.json is not valid JSON`);
  });

  it("refuses an inventory written for another target", async () => {
    await backend.writeInventory(inventory);
    const prodView = openStateBackend({ kind: "local", path: STATE }, { root, project: "listings", target: "prod" });
    expect((await failure(prodView.readInventory())).message).toContain(
      'belongs to project "listings" target "default", not project "listings" target "prod"',
    );
  });
});

describe("the local state backend's lock", () => {
  it("is held by the first run; a second run is told who holds it, until when, and how to force it", async () => {
    const lease = await backend.acquireLock(lockOpts("dana@host pid 123"));
    expect(lease.info.id).toMatch(/^[0-9a-f]{32}$/);
    expect(await backend.readLock()).toEqual(lease.info);
    const e = await failure(open().acquireLock(lockOpts("erin@host pid 456", at(1000))));
    expect(e).toBeInstanceOf(LockedError);
    expect(e.code).toBe("locked");
    expect(e.message).toBe(
      `State ${STATE} is locked by dana@host pid 123 (apply, since 2026-03-01T10:00:00.000Z, lease until 2026-03-01T10:01:00.000Z). ` +
        `Wait for it to finish, or run with --force-unlock ${lease.info.id} if that run is gone.`,
    );
  });

  it("goes to exactly one of two runs acquiring at the same moment", async () => {
    const results = await Promise.allSettled([open().acquireLock(lockOpts("a")), open().acquireLock(lockOpts("b"))]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(LockedError);
  });

  it("goes to exactly one of several runs racing to take over an expired lease", async () => {
    const stale = await backend.acquireLock(lockOpts("gone"));
    const later = at(120_000);
    const results = await Promise.allSettled(["a", "b", "c", "d"].map((o) => open().acquireLock(lockOpts(o, later))));
    const winners = results.filter(
      (r): r is PromiseFulfilledResult<Awaited<ReturnType<StateBackend["acquireLock"]>>> => r.status === "fulfilled",
    );
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(LockedError);
    expect((await backend.readLock())?.id).toBe(winners[0].value.info.id);
    expect(winners[0].value.info.id).not.toBe(stale.info.id);
    expect(readdirSync(join(root, STATE))).toEqual(["lock.json"]);
  });

  it("is not removed by a slow contender still clearing the expired lease it replaced", async () => {
    // GIVEN a contender that read the expired lease, then paused while another run took over
    const stale = await backend.acquireLock(lockOpts("gone"));
    const slow = open() as unknown as { clearExpired(expired: unknown): Promise<void> };
    const winner = await open().acquireLock(lockOpts("erin", at(120_000)));
    // WHEN the slow contender clears "the expired lease"
    await slow.clearExpired(stale.info);
    // THEN the winner's lease is still there, and nothing else is left behind
    expect(await backend.readLock()).toEqual(winner.info);
    expect(readdirSync(join(root, STATE))).toEqual(["lock.json"]);
  });

  it("is taken over once its lease expired, and the old holder learns it when it renews", async () => {
    const old = await backend.acquireLock(lockOpts("dana"));
    const next = await open().acquireLock(lockOpts("erin", at(61_000)));
    expect(await backend.readLock()).toEqual(next.info);
    const e = await failure(old.renew());
    expect(e).toBeInstanceOf(LockLostError);
    expect(e.code).toBe("lock_lost");
    expect(e.message).toContain(`lease ${old.info.id} was taken over by erin (lock ${next.info.id}, apply)`);
  });

  it("is extended by renew, so it is no longer taken over at the old expiry", async () => {
    let clock = 0;
    const lease = await backend.acquireLock({
      owner: "dana",
      operation: "apply",
      ttlMs: 60_000,
      now: () => at(clock)(),
    });
    clock = 50_000;
    await lease.renew();
    expect(lease.info.expiresAt).toBe("2026-03-01T10:01:50.000Z");
    expect((await backend.readLock())?.expiresAt).toBe("2026-03-01T10:01:50.000Z");
    expect(await failure(open().acquireLock(lockOpts("erin", at(61_000))))).toBeInstanceOf(LockedError);
  });

  it("is released by its holder, and release by a former holder leaves the new holder's lock", async () => {
    const old = await backend.acquireLock(lockOpts("dana"));
    const next = await open().acquireLock(lockOpts("erin", at(61_000)));
    await old.release();
    expect(await backend.readLock()).toEqual(next.info);
    await next.release();
    expect(existsSync(lockFile())).toBe(false);
    expect(await backend.readLock()).toBeUndefined();
    await (await backend.acquireLock(lockOpts("fay"))).release();
  });

  it("is force-unlocked only by its own id, and the error names the id that is there", async () => {
    const lease = await backend.acquireLock(lockOpts("dana"));
    const e = await failure(backend.forceUnlock("0123456789abcdef"));
    expect(e).toBeInstanceOf(LockMismatchError);
    expect(e.message).toContain(`State ${STATE} is locked with id ${lease.info.id} by dana`);
    expect(e.message).toContain(`not 0123456789abcdef; nothing was removed. Run with --force-unlock ${lease.info.id}`);
    expect(await backend.readLock()).toEqual(lease.info);
    expect(await backend.forceUnlock(lease.info.id)).toEqual(lease.info);
    expect(await backend.readLock()).toBeUndefined();
    expect(await failure(lease.renew())).toBeInstanceOf(LockLostError);
  });

  it("is force-unlocked whoever holds it when no id is given; nothing there gives undefined", async () => {
    expect(await backend.forceUnlock()).toBeUndefined();
    const lease = await backend.acquireLock(lockOpts("dana"));
    expect(await backend.forceUnlock()).toEqual(lease.info);
    expect(existsSync(lockFile())).toBe(false);
  });

  it("reports an unreadable lock file with how to clear it, and --force-unlock clears it", async () => {
    mkdirSync(join(root, STATE), { recursive: true });
    writeFileSync(lockFile(), "");
    const e = await failure(backend.acquireLock(lockOpts("dana")));
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toBe(
      `Lock file ${STATE}/lock.json is unreadable (not a lock written by svc-iac). If no run is in progress, remove it with --force-unlock.`,
    );
    expect((await backend.forceUnlock())?.owner).toBe(`unreadable lock file ${STATE}/lock.json`);
    await backend.acquireLock(lockOpts("dana"));
  });
});

/** The pid of a process that ran on this host and has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  expect(r.status).toBe(0);
  return r.pid!;
}

/** Writes a lock as another run would have left it: unexpired, held by `proc`. */
function plantLock(proc: LockInfo["process"]): LockInfo {
  const info: LockInfo = {
    id: "0123456789abcdef0123456789abcdef",
    owner: "ci@builder pid 4242",
    operation: "apply",
    acquiredAt: T0.toISOString(),
    expiresAt: new Date(T0.getTime() + 600_000).toISOString(),
    ...(proc ? { process: proc } : {}),
  };
  mkdirSync(join(root, STATE), { recursive: true });
  writeFileSync(lockFile(), JSON.stringify(info));
  return info;
}

describe("GIVEN an unexpired local lock left by a run that is no longer running", () => {
  let sleeper: ChildProcess | undefined;
  afterEach(() => {
    sleeper?.kill("SIGKILL");
    sleeper = undefined;
  });

  it("records this host, its boot and this process in every lease it writes", async () => {
    const lease = await backend.acquireLock(lockOpts("dana"));
    expect(lease.info.process).toEqual(thisProcess());
    expect(lease.info.process).toMatchObject({ host: hostname(), pid: process.pid });
    expect(JSON.parse(readFileSync(lockFile(), "utf8")).process.pid).toBe(process.pid);
  });

  it("WHEN its process on this host is gone THEN the next run takes the lock at once and is told whose it was", async () => {
    const pid = deadPid();
    const dead = plantLock({ ...thisProcess(), pid });
    const told: string[] = [];
    const lease = await backend.acquireLock({
      ...lockOpts("erin", at(1000)),
      onTakeover: (held, why) => told.push(`${held.id} ${why}`),
    });
    expect(lease.info.owner).toBe("erin");
    expect(await backend.readLock()).toEqual(lease.info);
    expect(told).toEqual([`${dead.id} process ${pid} no longer runs on ${hostname()}`]);
    expect(readdirSync(join(root, STATE))).toEqual(["lock.json"]);
  });

  it("WHEN the host has restarted since the lock was taken THEN it is taken over too", async () => {
    const here = thisProcess();
    if (!here.bootId) return; // no boot id on this system: nothing to compare
    plantLock({ ...here, bootId: "00000000-0000-0000-0000-000000000000", pid: process.pid });
    const told: string[] = [];
    await backend.acquireLock({ ...lockOpts("erin", at(1000)), onTakeover: (_held, why) => told.push(why) });
    expect(told).toEqual([`host ${hostname()} has restarted since`]);
  });

  it("WHEN its process is still running THEN the lease rule holds: locked until it expires", async () => {
    sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const held = plantLock({ ...thisProcess(), pid: sleeper.pid! });
    const e = await failure(backend.acquireLock(lockOpts("erin", at(1000))));
    expect(e).toBeInstanceOf(LockedError);
    expect(e.holder).toEqual(held);
  });

  it("WHEN it was held on another host, or written without process data, THEN the lease rule holds", async () => {
    plantLock({ host: `not-${hostname()}`, pid: deadPid() });
    expect(await failure(backend.acquireLock(lockOpts("erin", at(1000))))).toBeInstanceOf(LockedError);
    plantLock(undefined);
    expect(await failure(backend.acquireLock(lockOpts("erin", at(1000))))).toBeInstanceOf(LockedError);
    // ... and after its expiry it is taken over as before.
    expect((await backend.acquireLock(lockOpts("erin", at(600_000)))).info.owner).toBe("erin");
  });
});
