/**
 * The embedded platform of the command line: the emulator, started in-process with its state in the
 * repository's `.svc-iac/local/`. Given to the engine by `main.ts` (`provideEmbeddedPlatform`) and
 * loaded only when a command connects without a base URL.
 */
import type { EmbeddedPlatform } from "../embedded-platform";

export async function startEmbeddedEmulator(dataDir: string): Promise<EmbeddedPlatform> {
  const { startEmulator }: typeof import("../emulator/emulator") = require("../emulator/emulator");
  const emu = await startEmulator({ dataDir, tickIntervalMs: 0 });
  return { baseUrl: emu.baseUrl, udfBaseUrl: emu.udfBaseUrl, token: emu.tokens.user_token, close: () => emu.close() };
}
