/** `testCommand` as a library function, against an emulator that cannot run UDFs. */
import { describe, expect, it } from "vitest";
import { applyCommand } from "../../../src/reconcile/commands";
import { testCommand } from "../../../src/reconcile/commands/test";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv } from "../../helpers/repo";

describe("GIVEN a platform without python3", () => {
  const fx = useEmulator({ python: "/nonexistent/python3" });

  it("WHEN the tests run THEN each fails saying the run could not be made and why, exit 1", async () => {
    const dir = copyRepo("udf-tests");
    const env = emulatorEnv(fx.emu, { SMOKE_KEY: "smoke-key-value" });
    const applied = await applyCommand(commandOptions(dir, fx.emu, { env }));
    expect(applied.exitCode).toBe(0);
    const r = await testCommand({ dir, env, only: ["udf.checks/boom"] });
    expect(r.exitCode).toBe(1);
    expect(r.report?.results).toHaveLength(1);
    // expect_error: true does not pass on a run that never happened.
    expect(r.report?.results[0]).toMatchObject({ status: "failed", name: "#1" });
    expect(r.report?.results[0].message).toMatch(/^the run could not be made: .*501.*python3/s);
  });
});
