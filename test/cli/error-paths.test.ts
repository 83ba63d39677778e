/**
 * Where the command's messages point: files as the user reaches them from the folder the command
 * runs in (DIR joined), and at a monorepo's root, the projects below instead of `svc-iac init`.
 * The built command runs in a process, since what is tested is the folder it runs in.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { builtCli } from "../helpers/repo";

const exec = promisify(execFile);

/** The built command in `cwd`; its exit code and output (never throws). */
async function svc(cwd: string, ...argv: string[]) {
  try {
    const r = await exec(process.execPath, [builtCli(), ...argv], { cwd, env: { ...process.env, SVC_CACHE_DIR: "" } });
    return { code: 0, ...r };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe("GIVEN a folder holding two projects, one with a mistyped key in svc.yaml", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-paths-"));
  mkdirSync(join(root, "projects", "sales"), { recursive: true });
  mkdirSync(join(root, "projects", "ops"), { recursive: true });
  writeFileSync(join(root, "projects", "sales", "svc.yaml"), "projet: sales\n");
  writeFileSync(join(root, "projects", "ops", "svc.yaml"), "project: ops\n");

  it("WHEN validate runs from the root on one project THEN each error names the file from the root, as an editor opens it", async () => {
    const r = await svc(root, "validate", "projects/sales");
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      'projects/sales/svc.yaml:1:1: unknown key "projet"; expected one of project, variables, prune, max_deletions, concurrency, state, targets, moved, removed, history, checks, on_drift, flapping, notify; did you mean project?',
    );
  });

  it("WHEN plan runs at the root, where no svc.yaml is THEN it names the projects below and how to give one, not svc-iac init", async () => {
    const r = await svc(root, "plan");
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "svc.yaml:1:1: svc.yaml not found: this folder is not a project, but these folders below are projects: projects/ops, projects/sales. Give one: svc-iac plan projects/ops (svc-iac projects lists them all).",
    );
    expect(r.stderr).not.toContain("svc-iac init");
  });

  it("WHEN plan runs in an empty folder THEN it still proposes svc-iac init", async () => {
    const empty = mkdtempSync(join(tmpdir(), "svc-empty-"));
    const r = await svc(empty, "plan");
    expect(r.stderr).toContain("To start a repository here, run: svc-iac init");
  });
});
