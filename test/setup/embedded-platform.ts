/** In-process commands started by tests run on the embedded emulator without SVC_BASE_URL, as the CLI's do. */
import { startEmbeddedEmulator } from "../../src/cli/embedded-emulator";
import { provideEmbeddedPlatform } from "../../src/embedded-platform";

provideEmbeddedPlatform(startEmbeddedEmulator);
