/** Temporary copies of fixture repositories, and the environment that points the commands at a test emulator. */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunningEmulator } from "../../src/emulator/emulator";

/** Copies `test/fixtures/<name>` (or any folder) to a fresh temp dir and returns its path. */
export function copyRepo(name: string): string {
  const from = name.includes("/") ? resolve(name) : resolve(__dirname, "../fixtures", name);
  const to = join(mkdtempSync(join(tmpdir(), "svc-repo-")), "repo");
  cpSync(from, to, { recursive: true });
  return to;
}

/** Secret values used by the fixture repositories: distinctive, so tests can search outputs for them. */
export const FIXTURE_SECRETS = {
  MAPBOX_TOKEN: "mapbox-secret-value-7f3a9c",
  LISTINGS_PASSCODE: "passcode-secret-4b2e81",
} as const;

/** Credentials of the emulator's paid user, plus the fixture secrets. */
export function emulatorEnv(emu: RunningEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_BASE_URL: emu.baseUrl, SVC_UDF_BASE_URL: emu.udfBaseUrl, SVC_TOKEN: emu.tokens.user_token, ...FIXTURE_SECRETS, ...extra };
}
