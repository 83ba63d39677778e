/**
 * The embedded emulator's data folder (`.svc-iac/local/`) is a path the repository controls: a
 * committed `.svc-iac` (or `.svc-iac/local`) link could point it anywhere. It is checked through the
 * repository's jail before the emulator writes its database, master key or objects, on the built
 * command as a user runs it with no platform configured.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { git } from "../helpers/monorepo";
import { builtCli, copyRepo, FIXTURE_SECRETS } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

let main: string;
beforeAll(() => {
  main = builtCli();
}, 120_000);

async function svc(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [main, ...args], {
    env: { ...minimalEnv(), SVC_CACHE_DIR: "", ...FIXTURE_SECRETS },
    timeout: 60_000,
    cwd,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** The fixture with its state in `iac-state/`, so only the emulator's data folder is under `.svc-iac`. */
function repoWithStateElsewhere(): string {
  const dir = copyRepo("valid-full");
  const svc = join(dir, "svc.yaml");
  writeFileSync(svc, readFileSync(svc, "utf8").replace("state: .svc-iac/state", "state: iac-state"));
  rmSync(join(dir, ".svc-iac"), { recursive: true, force: true });
  return dir;
}

describe("GIVEN no platform configured", () => {
  it("WHEN the repository commits .svc-iac as a link to a folder outside it THEN plan writes nothing there (no database, no master.key) and names the link", async () => {
    const dir = repoWithStateElsewhere();
    const outside = mkdtempSync(join(tmpdir(), "svc-outside-"));
    symlinkSync(outside, join(dir, ".svc-iac"));
    const r = await svc(["plan"], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.svc-iac(\/local)? is a symbolic link to a folder outside the repository: refused/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("WHEN .svc-iac/local links into the checkout's .git THEN it is refused, and nothing is written under .git", async () => {
    const dir = repoWithStateElsewhere();
    git(dir, "init", "-q");
    mkdirSync(join(dir, ".git", "svc-target"));
    mkdirSync(join(dir, ".svc-iac"));
    symlinkSync(join(dir, ".git", "svc-target"), join(dir, ".svc-iac", "local"));
    const r = await svc(["plan"], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".svc-iac/local leads into .git/");
    expect(readdirSync(join(dir, ".git", "svc-target"))).toEqual([]);
  });

  it("WHEN .svc-iac is an ordinary folder THEN the embedded emulator keeps its state under .svc-iac/local as before", async () => {
    const dir = repoWithStateElsewhere();
    const r = await svc(["plan"], dir);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, ".svc-iac", "local"))).toContain("master.key");
  });
});
