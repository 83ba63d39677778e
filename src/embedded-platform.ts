/**
 * The embedded platform the commands use when no base URL is set: given by the entry point (the
 * CLI, the GitHub Action), which may load the emulator, so that the engine never imports it (the
 * emulator sits beside the engine, not below it). Holds one slot and imports nothing.
 */

/** A running embedded platform: where to send requests, the token to send, and how to stop it. */
export interface EmbeddedPlatform {
  baseUrl: string;
  udfBaseUrl: string;
  /** The seeded team's user token. */
  token: string;
  close(): Promise<void>;
}

/** Starts the embedded platform with its state in `dataDir`. */
export type StartEmbeddedPlatform = (dataDir: string) => Promise<EmbeddedPlatform>;

let starter: StartEmbeddedPlatform | undefined;

/** Called once by an entry point, before any command connects. */
export function provideEmbeddedPlatform(start: StartEmbeddedPlatform): void {
  starter = start;
}

/** The embedded platform's starter; undefined when the entry point gave none. */
export function embeddedPlatformStarter(): StartEmbeddedPlatform | undefined {
  return starter;
}
