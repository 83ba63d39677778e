/** A lease taken over while apply runs (its renewal fails): apply starts nothing more, so two runs never apply at once. */
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { loadRepository } from "../../../src/reconcile/load";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv, writeUdfs } from "../../helpers/repo";

describe("GIVEN a slow apply whose lease is taken over by another run", () => {
  const fx = useEmulator();

  it("WHEN the renewal fails THEN the remaining steps are skipped, apply exits 1, and the next apply converges", async () => {
    const dir = copyRepo("valid-full");
    writeUdfs(dir, "listings", 40);
    const loaded = await loadRepository(dir, { env: emulatorEnv(fx.emu) });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const p = loaded.project;
    const backend = openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });

    fx.emu.setFaults("latency=60-80");
    const logs: string[] = [];
    // Steps have begun (so apply holds the lock) however slowly this machine runs it.
    let begun!: () => void;
    const stepsBegun = new Promise<void>((r) => (begun = r));
    // The lease is renewed when this test says, not on the clock: however slowly this machine runs,
    // no renewal can fall between the takeover's two steps.
    let renewNow!: () => Promise<void>;
    const running = applyCommand(
      commandOptions(dir, fx.emu, {
        lockTtlMs: 1500,
        scheduleRenewal: (renew) => {
          renewNow = renew;
          return () => {};
        },
        concurrency: 1,
        log: (l) => logs.push(l),
        progress: (e) => e.type === "begin" && begun(),
      }),
    );
    // Another run forces the lock away and holds it.
    await stepsBegun;
    await backend.forceUnlock();
    const other = await backend.acquireLock({ owner: "other run", operation: "apply", ttlMs: 600_000 });
    await renewNow();
    const r = await running;
    fx.emu.setFaults(undefined);

    expect(r.exitCode).toBe(1);
    const report = r.command === "apply" ? r.report! : undefined;
    const skipped = report!.results.filter((x) => x.status === "skipped");
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]!.message).toContain("lock");
    expect(logs.some((l) => l.startsWith("Stopping: the lock could not be renewed"))).toBe(true);
    // The other run's lease is untouched by the stopped run.
    expect((await backend.readLock())?.id).toBe(other.info.id);

    await other.release();
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const again = await planCommand(commandOptions(dir, fx.emu));
    expect(again.command === "plan" && again.plan?.actions).toEqual([]);
  });
});
