/**
 * Vitest's global setup: the run's own temporary folder. Tests make their repositories, caches and
 * workspaces with `mkdtemp` in `os.tmpdir()`, and the processes they start do the same; with
 * `TMPDIR` set here, before the workers start, all of it lands in one folder of the system's
 * temporary folder (`svc-test-run-<pid>-*`), removed when the run ends. A run used to leave about
 * 400 folders in /tmp, and a day of runs several gigabytes.
 *
 * A run that could not remove its folder (stopped with Ctrl-C, killed) leaves it behind: the next
 * run removes every such folder of this user whose run's process is gone.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "svc-test-run-";

/** True when process `pid` still runs (or is another user's, which this run leaves alone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the folders of earlier runs (in `system`) of this user whose process is gone. */
export function removeLeftovers(system: string): void {
  for (const name of readdirSync(system)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    const folder = join(system, name);
    try {
      if (lstatSync(folder).uid !== process.getuid?.()) continue;
      rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Another run removed it meanwhile, or it cannot be: left as it is.
    }
  }
}

export default function setup(): () => void {
  const system = tmpdir();
  removeLeftovers(system);
  const run = mkdtempSync(join(system, `${PREFIX}${process.pid}-`));
  process.env.TMPDIR = run;
  return () => rmSync(run, { recursive: true, force: true, maxRetries: 3 });
}
