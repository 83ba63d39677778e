/**
 * Vitest's global setup: the run's own temporary folder. Tests make their repositories, caches and
 * workspaces with `mkdtemp` in `os.tmpdir()`, and the processes they start do the same; with
 * `TMPDIR` set here, before the workers start, all of it lands in one folder of the system's
 * temporary folder (`svc-test-run-*`), removed when the run ends. A run used to leave about 400
 * folders in /tmp, and a day of runs several gigabytes.
 *
 * A test that needs the system's own temporary folder reads `SVC_TEST_SYSTEM_TMPDIR`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const system = tmpdir();
  const run = mkdtempSync(join(system, "svc-test-run-"));
  process.env.SVC_TEST_SYSTEM_TMPDIR ??= system;
  process.env.TMPDIR = run;
  return () => rmSync(run, { recursive: true, force: true, maxRetries: 3 });
}
