/**
 * A process killed in the middle of apply: the built command runs as a child process against the
 * test emulator, is killed with SIGKILL while UDFs are being created (its inventory journal
 * mid-way), and an apply run again in-process converges with nothing duplicated. Every step the
 * killed run reported done is in its state (inventory and journal) after the kill.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { useEmulator } from "../../helpers/emulator";
import {
  builtCli,
  commandOptions,
  copyRepo,
  emulatorEnv,
  outputsFileOf,
  platformDuplicates,
  platformView,
  stateDirOf,
  writeUdfs,
} from "../../helpers/repo";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import { minimalEnv } from "../../helpers/process-env";

/**
 * The sizes: 40 UDFs on a slow platform, two at a time, killed after 15 finished actions (past the
 * secret, the 2 accounts and the 2 canvases, well into the UDFs); and 2,000 UDFs at full speed,
 * killed half-way.
 */
const SIZES = [
  { udfs: 40, killAfter: 15, faults: "latency=20-40", concurrency: 2 },
  { udfs: 2000, killAfter: 1000, faults: "none", concurrency: 8 },
];

interface Killed {
  progressLines: string[];
  signal: NodeJS.Signals | null;
}

/** Spawns `svc-iac apply` and kills it with SIGKILL after `after` progress lines. */
function applyAndKill(
  main: string,
  dir: string,
  env: Record<string, string>,
  after: number,
  concurrency: number,
): Promise<Killed> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        main,
        "apply",
        dir,
        "--auto-approve",
        "--verbose",
        "--outputs",
        outputsFileOf(dir),
        "--concurrency",
        String(concurrency),
      ],
      {
        env: { ...minimalEnv(), ...env },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const lines: string[] = [];
    let buffer = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      for (const line of parts) if (/^\[\d+\/\d+\]/.test(line)) lines.push(line);
      if (lines.length >= after && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
    child.on("error", fail);
    child.on("exit", (_code, signal) => done({ progressLines: lines, signal }));
  });
}

describe.each(SIZES)(
  "GIVEN a repository with $udfs UDFs (platform faults: $faults)",
  ({ udfs: UDF_COUNT, killAfter: KILL_AFTER, faults, concurrency }) => {
    const fx = useEmulator();
    let dir: string;
    let main: string;

    beforeAll(() => {
      main = builtCli();
      dir = copyRepo("valid-full");
      writeUdfs(dir, "listings", UDF_COUNT);
    }, 120_000);

    it("WHEN apply is killed mid-way THEN the next apply on this host takes the dead run's lock at once and converges with nothing duplicated", async () => {
      fx.emu.setFaults(faults === "none" ? undefined : faults);
      const killed = await applyAndKill(main, dir, emulatorEnv(fx.emu), KILL_AFTER, concurrency);
      expect(killed.signal).toBe("SIGKILL");
      expect(killed.progressLines.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(killed.progressLines.every((l) => / done /.test(l))).toBe(true);
      // Killed while creating UDFs: some exist, not all.
      const partial = await platformView(fx.user);
      expect(partial.udfs.length).toBeGreaterThan(0);
      expect(partial.udfs.length).toBeLessThan(UDF_COUNT + 3);
      expect(existsSync(join(stateDirOf(dir), "inventory.json"))).toBe(true);
      // The steps after the first write were appended to the journal, which the next run folds in.
      expect(existsSync(join(stateDirOf(dir), "inventory.journal"))).toBe(true);
      // Every step reported done before the kill is in the state: `[n/N] done create udf.listings/udf_07`.
      const reported = killed.progressLines.map((l) => l.split(" ").at(-1)!);
      const state = await openStateBackend(
        { kind: "local", path: ".svc-iac/state/listings/default" },
        { root: dir, project: "listings", target: "default" },
      ).readInventory();
      expect(reported.filter((address) => !state?.objects[address])).toEqual([]);
      // The dead run's lease is still there, unexpired ...
      const dead = JSON.parse(readFileSync(join(stateDirOf(dir), "lock.json"), "utf8"));
      expect(Date.parse(dead.expiresAt)).toBeGreaterThan(Date.now());

      // ... but its process is gone, so the next run takes it over without --force-unlock, and says so.
      fx.emu.setFaults(undefined);
      const said: string[] = [];
      const r = await applyCommand(commandOptions(dir, fx.emu, { log: (l) => said.push(l) }));
      expect(said).toContain(
        `Took over the lock ${dead.id} of ${dead.owner}: process ${dead.process.pid} no longer runs on ${hostname()}, so that run ended without releasing it.`,
      );
      expect(r.command === "apply" && r.message).toBeUndefined();
      expect(r.exitCode).toBe(0);
      const view = await platformView(fx.user);
      expect(platformDuplicates(view)).toEqual([]);
      expect(view.udfs.length).toBe(UDF_COUNT + 3);
      expect(view.serviceAccounts.filter((s) => s.name.includes("[svc-iac ")).length).toBe(2);
      const plan = await planCommand(commandOptions(dir, fx.emu));
      expect(plan.command === "plan" && plan.plan?.actions).toEqual([]);
      expect(plan.command === "plan" && plan.plan?.unmanaged).toEqual([]);
    }, 60_000);
  },
);
