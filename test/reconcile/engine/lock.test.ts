/** The apply lock: one apply at a time per project and target; a held lease stops apply until it ends, is forced, or expires. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../src/reconcile/commands";
import { loadRepository } from "../../../src/reconcile/load";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import type { StateBackend } from "../../../src/reconcile/state/types";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, platformView, stateDirOf } from "../../helpers/repo";

const OTHER_OWNER = "alice@build-7 pid 4242";

/** The state backend apply uses for `dir` (same location, project and target). */
async function backendOf(dir: string, env: Record<string, string>): Promise<StateBackend> {
  const loaded = await loadRepository(dir, { env });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const p = loaded.project;
  return openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });
}

describe("GIVEN a lock held by another run", () => {
  const fx = useEmulator();

  it("WHEN apply runs THEN it exits 1 naming the holder and --force-unlock, and changes nothing", async () => {
    const dir = copyRepo("valid-full");
    const backend = await backendOf(dir, emulatorEnv(fx.emu));
    const held = await backend.acquireLock({ owner: OTHER_OWNER, operation: "apply", ttlMs: 600_000 });

    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode).toBe(1);
    const message = r.command === "apply" ? r.message : undefined;
    expect(message).toContain(OTHER_OWNER);
    expect(message).toContain(`--force-unlock ${held.info.id}`);
    const view = await platformView(fx.user);
    expect(view.canvases).toEqual([]);
    expect(view.serviceAccounts.filter((s) => s.name.includes("[svc-iac "))).toEqual([]);
    expect(existsSync(join(stateDirOf(dir), "inventory.json"))).toBe(false);
    // The other run's lock is untouched.
    expect((await backend.readLock())?.id).toBe(held.info.id);
  });

  it("WHEN apply runs with --force-unlock naming another id THEN nothing is removed and nothing changes", async () => {
    const dir = copyRepo("valid-full");
    const backend = await backendOf(dir, emulatorEnv(fx.emu));
    const held = await backend.acquireLock({ owner: OTHER_OWNER, operation: "apply", ttlMs: 600_000 });
    const r = await applyCommand(commandOptions(dir, fx.emu, { forceUnlock: "not-the-lock-id" }));
    expect(r.exitCode).toBe(1);
    expect(r.command === "apply" && r.message).toContain(held.info.id);
    expect((await backend.readLock())?.id).toBe(held.info.id);
    expect((await platformView(fx.user)).canvases).toEqual([]);
  });

  it("WHEN apply runs with --force-unlock <id> THEN it removes that lock, applies, and leaves no lock", async () => {
    const dir = copyRepo("valid-full");
    const backend = await backendOf(dir, emulatorEnv(fx.emu));
    const held = await backend.acquireLock({ owner: OTHER_OWNER, operation: "apply", ttlMs: 600_000 });
    const log: string[] = [];
    const r = await applyCommand(commandOptions(dir, fx.emu, { forceUnlock: held.info.id, log: (l) => log.push(l) }));
    expect(r.exitCode).toBe(0);
    expect(log.join("\n")).toContain(`Removed the lock ${held.info.id} held by ${OTHER_OWNER}`);
    expect((await platformView(fx.user)).canvases.map((c) => c.name).sort()).toEqual(["listings", "reports"]);
    expect(await backend.readLock()).toBeUndefined();
  });
});

describe("GIVEN a lock whose lease has expired", () => {
  const fx = useEmulator();

  it("WHEN apply runs THEN it takes the lock over and applies", async () => {
    const dir = copyRepo("valid-full");
    const backend = await backendOf(dir, emulatorEnv(fx.emu));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await backend.acquireLock({ owner: OTHER_OWNER, operation: "apply", ttlMs: 60_000, now: () => hourAgo });
    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.command === "apply" && r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect((await platformView(fx.user)).canvases.map((c) => c.name).sort()).toEqual(["listings", "reports"]);
    expect(await backend.readLock()).toBeUndefined();
  });
});

describe("GIVEN a short lock lease held by another run", () => {
  const fx = useEmulator();

  it("WHEN apply runs with a clock past the lease's end THEN it takes the lock over", async () => {
    const dir = copyRepo("valid-full");
    const backend = await backendOf(dir, emulatorEnv(fx.emu));
    await backend.acquireLock({ owner: OTHER_OWNER, operation: "apply", ttlMs: 5_000 });
    const later = new Date(Date.now() + 60_000);
    const r = await applyCommand(commandOptions(dir, fx.emu, { now: () => later, lockTtlMs: 5_000 }));
    expect(r.command === "apply" && r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(await backend.readLock()).toBeUndefined();
  });
});
