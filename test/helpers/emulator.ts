/** Starts one emulator per test file and hands out clients for each seeded identity. */
import { afterAll, beforeAll } from "vitest";
import { createClient, type ClientOptions, type SvcClient } from "../../src/api/client";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/emulator";

export interface EmulatorFixture {
  emu: RunningEmulator;
  /** The paid user of team `demo` (Bearer). */
  user: SvcClient;
  /** The service account of team `demo` (Svc-Service-Token). */
  service: SvcClient;
  /** The basic-tier user of team `demo`. */
  basic: SvcClient;
  /** The user of team `other` (no billing). */
  other: SvcClient;
  /** No credentials. */
  anon: SvcClient;
  /** A client with any options on this emulator. */
  client(opts?: Partial<ClientOptions>): SvcClient;
}

/** Quick retries so fault tests stay fast. */
export const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000 };

export function useEmulator(options: EmulatorOptions = {}): EmulatorFixture {
  const fx = {} as EmulatorFixture;
  const clients: SvcClient[] = [];
  beforeAll(async () => {
    fx.emu = await startEmulator(options);
    fx.client = (opts = {}) => {
      const c = createClient({ baseUrl: fx.emu.baseUrl, udfBaseUrl: fx.emu.udfBaseUrl, retry: FAST_RETRY, ...opts });
      clients.push(c);
      return c;
    };
    fx.user = fx.client({ token: fx.emu.tokens.user_token });
    fx.service = fx.client({ serviceToken: fx.emu.tokens.service_token });
    fx.basic = fx.client({ token: fx.emu.tokens.basic_user_token });
    fx.other = fx.client({ token: fx.emu.tokens.other_user_token });
    fx.anon = fx.client({});
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fx.emu?.close();
  });
  return fx;
}

/** Awaits a promise that must fail, and returns its error. */
export async function failure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
