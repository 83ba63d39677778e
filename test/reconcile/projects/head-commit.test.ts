/**
 * The commit and the "changes not committed" flag a deployment records (`headCommit`): from git,
 * for the project's own folder, leaving out the files the command wrote itself.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { headCommit } from "../../../src/reconcile/projects/git-changes";
import { git } from "../../helpers/git-repo";

/** A work tree whose project lives in `infra/svc` (a monorepo's), committed once. */
function monorepo(): { root: string; project: string; head: string } {
  const root = mkdtempSync(join(tmpdir(), "svc-head-"));
  const project = join(root, "infra", "svc");
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "svc.yaml"), "project: p\n");
  writeFileSync(join(project, "policy.json"), "{}\n");
  writeFileSync(join(root, "README.md"), "root\n");
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "first");
  return { root, project, head: git(root, "rev-parse", "HEAD") };
}

describe("GIVEN a project in a sub-folder of a git work tree", () => {
  it("WHEN nothing changed THEN the commit is recorded, clean", async () => {
    const { project, head } = monorepo();
    expect(await headCommit(project)).toEqual({ commit: head, dirty: false });
  });

  it("WHEN only a file the command wrote itself changed THEN it is still clean, and any other change makes it dirty", async () => {
    const { project, head } = monorepo();
    writeFileSync(join(project, "policy.json"), '{"written": true}\n');
    expect(await headCommit(project, ["policy.json"])).toEqual({ commit: head, dirty: false });
    expect(await headCommit(project)).toEqual({ commit: head, dirty: true });
    writeFileSync(join(project, "new.yaml"), "x: 1\n");
    expect(await headCommit(project, ["policy.json"])).toEqual({ commit: head, dirty: true });
  });

  it("WHEN a file outside the project's folder changed THEN the project is clean", async () => {
    const { root, project, head } = monorepo();
    writeFileSync(join(root, "README.md"), "changed\n");
    expect(await headCommit(project)).toEqual({ commit: head, dirty: false });
    expect(await headCommit(root)).toEqual({ commit: head, dirty: true });
  });
});

describe("GIVEN a folder git knows nothing of, or a work tree with no commit", () => {
  it("THEN no commit is recorded", async () => {
    const plain = mkdtempSync(join(tmpdir(), "svc-head-plain-"));
    expect(await headCommit(plain)).toBeUndefined();
    const fresh = mkdtempSync(join(tmpdir(), "svc-head-fresh-"));
    git(fresh, "init", "-q");
    writeFileSync(join(fresh, "svc.yaml"), "project: p\n");
    expect(await headCommit(fresh)).toBeUndefined();
  });
});
