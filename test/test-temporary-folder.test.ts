/**
 * The suite's own temporary folder (test/setup/temporary-folder.ts): this run's files land in a
 * folder of its own, and a run that could not remove its folder has it removed by the next one,
 * but never a folder of a run still going.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeLeftovers } from "./setup/temporary-folder";

describe("GIVEN the test run's temporary folder", () => {
  it("THEN os.tmpdir() in a test is this run's folder, named with the run's process id", () => {
    expect(tmpdir()).toMatch(/[/\\]svc-test-run-\d+-[^/\\]+$/);
  });

  it("WHEN a run starts THEN the folders of runs whose process is gone are removed, and those of running ones kept", () => {
    const system = mkdtempSync(join(tmpdir(), "svc-leftovers-"));
    try {
      // The id of a process that has ended: a child's, once it has exited.
      const gone = Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]));
      const folders = {
        gone: join(system, `svc-test-run-${gone}-a1b2c3`),
        // The process that started this worker: a run still going.
        running: join(system, `svc-test-run-${process.ppid}-d4e5f6`),
        other: join(system, `svc-repo-${gone}-g7h8i9`),
      };
      for (const folder of Object.values(folders)) {
        mkdirSync(join(folder, "repo"), { recursive: true });
        writeFileSync(join(folder, "repo", "svc.yaml"), "project: x\n");
      }
      removeLeftovers(system);
      expect(existsSync(folders.gone)).toBe(false);
      expect(existsSync(folders.running)).toBe(true);
      expect(existsSync(folders.other)).toBe(true);
    } finally {
      rmSync(system, { recursive: true, force: true });
    }
  });
});
