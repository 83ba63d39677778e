/**
 * A saved plan over a repository that holds a data file past 2 GiB: plan --out and apply --plan
 * digest every file a chunk at a time. In the slow tier (`npm run test:slow`): hashing 4 GiB takes
 * this machine 20 to 40 s of CPU.
 */
import { closeSync, mkdirSync, openSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { messageOf } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo } from "../../helpers/repo";
import { readValidSavedPlan } from "../../helpers/saved-plan";

describe("GIVEN a repository holding a data file past 2 GiB, which the loader never reads", () => {
  const fx = useEmulator();

  it("WHEN a plan is saved and applied THEN both digest it a chunk at a time: the big file is in the digest, and apply runs the plan", async () => {
    const dir = copyRepo("valid-full");
    // Sparse: 2 GiB and one byte on the disk's account of nothing; read whole, it is past what one Buffer holds.
    const big = join(dir, "data/huge.bin");
    mkdirSync(join(dir, "data"));
    closeSync(openSync(big, "w"));
    truncateSync(big, 2 ** 31 + 1);
    const file = join(dir, "..", "big-plan.json");
    const planned = await planCommand(commandOptions(dir, fx.emu, { planOut: file }));
    expect(planned.exitCode, messageOf(planned)).toBe(0);
    const saved = readValidSavedPlan(file);
    expect(saved.repository.files["data/huge.bin"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
  }, 120_000);
});
