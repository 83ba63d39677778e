/**
 * A cap on V8's young generation for the commands that hold a whole repository and platform in
 * memory (plan, apply, drift, destroy). V8 lets the young generation double, at each minor
 * collection that keeps much alive, up to semi-spaces of 64 MB on a large machine; a plan of
 * 20,000 UDFs then peaks at about 310 MB of RSS while holding about 70 MB of live data. The size
 * limit itself can only be given when the process starts (`--max-semi-space-size`), so this stops
 * the doubling instead, at run time: once the young generation has reached {@link CAP_BYTES}, its
 * growth factor is set to 1. Measured on that plan: about 255 MB, and no more CPU. A flag given
 * by the user (`NODE_OPTIONS=--max-semi-space-size=…`) still applies, and wins when smaller.
 *
 * The check runs after collections, between tasks: a long synchronous stretch (reading 100,000
 * files, planning 100,000 objects) lets the young generation grow past the cap before it runs. The
 * commands that only read and compare (plan, drift) therefore hold it at its first size from the
 * start, and let the old generation grow by half its live size between full collections instead
 * of V8's default (up to four times): {@link keepHeapSmall}. Measured on a no-op plan of 100,000
 * UDFs: 598 to 667 MB of peak RSS with the cap, 459 MB with this, for about the same CPU time;
 * apply keeps the cap (this cost it 10 to 25 % more CPU on 10,000 creates).
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

/** For plan and drift: the young generation kept at its first size and the old one grown by half at most (see the file comment). */
export function keepHeapSmall(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--heap-growing-percent=50");
}
