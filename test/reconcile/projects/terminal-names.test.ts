/**
 * `svc-iac projects` in text mode prints folder names, which are the repository's: a folder whose
 * name holds a line break or an escape sequence shows them as escapes, so it can neither forge a
 * project line nor set the terminal's title.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeFiles } from "../../helpers/monorepo";

const CLI = join(__dirname, "../../../dist/cli/main.js");

describe("GIVEN a repository with a folder named to forge a line and to set the terminal title", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-names-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeFiles(root, {
    "evil\n  p99  domains/p99  targets: default/svc.yaml": "project: evil\n",
    "t\x1b]0;pwned\x07/svc.yaml": "project: titled\n",
  });

  it("WHEN projects prints its list THEN each folder stays on its own line, its control characters escaped", () => {
    const r = spawnSync(process.execPath, [CLI, "projects"], { cwd: root, encoding: "utf8" });
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContain("  evil  evil\\n  p99  domains/p99  targets: default  targets: default");
    expect(lines).toContain("  titled  t\\x1b]0;pwned\\x07  targets: default");
    expect(lines.some((l) => l.startsWith("  p99"))).toBe(false);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
});
