/**
 * A cap on V8's young generation for the commands that hold a whole repository and platform in
 * memory (plan, apply, drift, destroy). V8 lets the young generation double, at each minor
 * collection that keeps much alive, up to semi-spaces of 64 MB on a large machine; a plan of
 * 20,000 UDFs then peaks at about 310 MB of RSS while holding about 70 MB of live data. The size
 * limit itself can only be given when the process starts (`--max-semi-space-size`), so this stops
 * the doubling instead, at run time: once the young generation has reached {@link CAP_BYTES}, its
 * growth factor is set to 1. Measured on that plan: about 255 MB, and no more CPU. A flag given
 * by the user (`NODE_OPTIONS=--max-semi-space-size=…`) still applies, and wins when smaller.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** The young generation (both semi-spaces) at which it stops growing. */
export const CAP_BYTES = 16 * 2 ** 20;

/** Stops the young generation's growth once it reaches {@link CAP_BYTES} (checked after each collection). */
export function capYoungGeneration(): void {
  const youngSize = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
  const observer = new PerformanceObserver(() => {
    if (youngSize() < CAP_BYTES) return;
    setFlagsFromString("--semi-space-growth-factor=1");
    observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}
