/**
 * A token the platform refuses (401) names no variable: the commands say which variables held the
 * token that was sent, the target's own when svc.yaml names others, and never the token.
 */
import { describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, emulatorEnv } from "../../helpers/repo";

const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");
const WRONG = "svc_pat_not-a-real-token-3c9e";

describe("GIVEN a repository and a token the platform does not know", () => {
  const fx = useEmulator();

  it("WHEN plan runs THEN the 401 says that the platform refused the token in SVC_TOKEN, without the token", async () => {
    const dir = copyRepo("valid-full");
    const r = await planCommand({ dir, env: { ...emulatorEnv(fx.emu), SVC_TOKEN: WRONG } });
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("failed with 401");
    expect(messageOf(r)).toContain(
      "The platform at SVC_BASE_URL refused the token in SVC_TOKEN: check that it is current and was issued by that platform.",
    );
    expect(messageOf(r)).not.toContain(WRONG);
  });

  it("WHEN destroy runs on what was applied THEN it says the same", async () => {
    const dir = copyRepo("valid-full");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const r = await destroyCommand({
      dir,
      env: { ...emulatorEnv(fx.emu), SVC_TOKEN: WRONG },
      confirm: async () => true,
    });
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("refused the token in SVC_TOKEN");
  });
});
