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
 * The check runs after collections, between tasks. A long synchronous stretch (reading 100,000
 * files, planning 100,000 objects) once let the young generation grow past the cap before it ran,
 * so plan and drift held it at its first size from the start; the loader now lets other work run
 * every 8 ms while it reads, and the cap holds. The commands that only read and compare (plan,
 * drift) also let the old generation grow by 60 % of its live size between full collections
 * instead of V8's default (up to four times), once the heap is large: {@link keepHeapSmall}. Measured on a no-op plan of
 * 100,000 UDFs at load 1.7 to 2.4: the young generation held at its first size (as before), 12.0
 * to 14.0 s and 456 to 468 MB of peak RSS; the cap alone, 10.4 to 11.0 s and 506 to 521 MB; the
 * cap with 50 %, 11.6 to 12.2 s and 459 to 471 MB; with 75 %, 10.3 to 11.4 s and 450 to 487 MB;
 * with 60 %, 10.1 to 10.5 s and 455 to 472 MB. Apply keeps the cap alone (a slower-growing old
 * generation cost it 10 to 25 % more CPU on 10,000 creates).
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";

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

/**
 * The heap in use above which plan and drift let the old generation grow by 60 % of its live size
 * at most. Below it the default growth is kept: a no-op plan of 10,000 UDFs (34 to 57 MB in use
 * after its collections) used 4 to 9 % less CPU without the 60 % and the same peak RSS (160 MB);
 * larger ones cross it during the load, where memory is what the 60 % is for. At 160 MB, a no-op
 * plan of 100,000 UDFs peaked at 490 MB of RSS (455 to 472 MB with the 60 % from the start).
 */
export const LARGE_HEAP_BYTES = 96 * 2 ** 20;

/** For plan and drift: the young generation capped, and once the heap is large ({@link LARGE_HEAP_BYTES}) the old one grown by 60 % of its live size at most (see the file comment). */
export function keepHeapSmall(): void {
  capYoungGeneration();
  const observer = new PerformanceObserver(() => {
    if (getHeapStatistics().used_heap_size < LARGE_HEAP_BYTES) return;
    setFlagsFromString("--heap-growing-percent=60");
    observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}
