/**
 * svc-iac: infrastructure as code for the UDF platform.
 *
 * The root entry is the client and the reconciler. It loads neither Pulumi (its resources are at
 * `svc-iac/pulumi`) nor the emulator (loaded by the first `startEmulator` call), so that
 * `require("svc-iac")` stays fast for the command line, the GitHub Action and scripts.
 */
import type { EmulatorOptions, RunningEmulator } from "./emulator/emulator";

export * from "./api/index";
export type { EmulatorOptions, RunningEmulator } from "./emulator/emulator";
export { ManualClock } from "./emulator/clock";
export * from "./reconcile/index";

/**
 * Starts the local emulator of the platform API on a free port (see docs/emulator.md).
 * The emulator and its dependencies (SQLite store, Parquet and H3 for datasets) load on first call.
 * @example
 * const emu = await startEmulator();
 * const client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.user_token });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator: typeof import("./emulator/emulator") = require("./emulator/emulator");
  return emulator.startEmulator(options);
}
