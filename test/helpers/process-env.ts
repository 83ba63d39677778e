/**
 * The environment of a process a test starts with an environment of its own: PATH (to find node,
 * git and python3) and this run's temporary folder (`test/setup/temporary-folder.ts`), so what the
 * process makes there is removed with the run. Nothing else of the test's own environment.
 */
import { tmpdir } from "node:os";

export function minimalEnv(): { PATH: string; TMPDIR: string } {
  return { PATH: process.env.PATH ?? "", TMPDIR: tmpdir() };
}
