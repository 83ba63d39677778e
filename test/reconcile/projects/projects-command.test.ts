import { rmSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { runSvc } from "../../helpers/cli-run";
import { git, monorepo, projectName } from "../../helpers/monorepo";

const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
/** `svc-iac projects ...args` run in `cwd`, in this process as the program runs it (`runSvc`). */
const svc = async (cwd: string, ...args: string[]) => {
  const r = await runSvc(["projects", ...args], { ...env, NO_COLOR: "1" }, { cwd });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};
const matrixOf = (stdout: string) =>
  JSON.parse(stdout) as { include: { project: string; dir: string; target: string }[] };
const projectsIn = (stdout: string) => [...new Set(matrixOf(stdout).include.map((e) => e.project))].sort();

describe("GIVEN a git repository of 20 projects, three of which read shared/geo.py, and a pull-request branch", () => {
  const root = monorepo(20);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // Each test starts from main on a fresh branch, with no change.
  beforeEach(() => {
    git(root, "checkout", "-q", "-f", "main");
    git(root, "clean", "-q", "-f", "-d");
    git(root, "checkout", "-q", "-B", "feature");
  });
  const commit = () => (git(root, "add", "-A"), git(root, "commit", "-q", "-m", "change"));

  it("WHEN projects runs without --changed-since THEN it lists all 20 with their targets, one matrix entry per project and target", async () => {
    const r = await svc(root, "--json");
    expect(r.code).toBe(0);
    const m = matrixOf(r.stdout);
    expect(projectsIn(r.stdout)).toHaveLength(20);
    expect(m.include).toContainEqual({ project: "p04", dir: "domains/p04", target: "staging" });
    expect(m.include.filter((e) => e.project === "p04").map((e) => e.target)).toEqual(["default", "staging"]);
    expect(m.include.filter((e) => e.project === "p05").map((e) => e.target)).toEqual(["default"]);
  });

  it("WHEN one project's UDF changes THEN exactly that project is listed", async () => {
    appendFileSync(join(root, "domains/p05/canvases/p05_canvas/hello.py"), "# changed\n");
    commit();
    const r = await svc(root, "--changed-since", "main", "--json");
    expect(r.code).toBe(0);
    expect(matrixOf(r.stdout)).toEqual({ include: [{ project: "p05", dir: "domains/p05", target: "default" }] });
    expect(r.stderr).toContain("changed domains/p05/canvases/p05_canvas/hello.py");
  });

  it("WHEN the shared helper module changes THEN the three projects that read it are listed, and no other", async () => {
    appendFileSync(join(root, "shared/geo.py"), "# changed\n");
    commit();
    const r = await svc(root, "--changed-since", "main", "--json");
    expect(projectsIn(r.stdout)).toEqual(["p01", "p02", "p03"]);
    expect(r.stderr).toContain("reads shared/geo.py");
  });

  it("WHEN only a file no project reads changes (the README) THEN no project is listed, exit 0, and the matrix is empty", async () => {
    appendFileSync(join(root, "README.md"), "more\n");
    commit();
    const r = await svc(root, "--changed-since", "main", "--json");
    expect(r.code).toBe(0);
    expect(matrixOf(r.stdout)).toEqual({ include: [] });
    expect(r.stderr).toContain("No project affected by changes since main");
  });

  it("WHEN a project's folder is removed THEN it is listed as removed, not planned, and nothing says its objects are deleted", async () => {
    git(root, "rm", "-q", "-r", "domains/p20");
    commit();
    const r = await svc(root, "--changed-since", "main");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No project affected by changes since main");
    expect(r.stdout).toMatch(/Removed since main: 1 project .*not deleted by this command/);
    expect(r.stdout).toContain("  p20  domains/p20");
    expect(matrixOf((await svc(root, "--changed-since", "main", "--json")).stdout).include).toEqual([]);
    // A script reading JSON learns of it too (a matrix cannot carry it: any other key is a dimension).
    const full = JSON.parse((await svc(root, "--changed-since", "main", "--format", "json")).stdout);
    expect(full).toMatchObject({ version: 1, changed_since: "main", projects: [], matrix: { include: [] } });
    expect(full.removed).toEqual([{ dir: "domains/p20", project: "p20" }]);
  });

  it("WHEN a project's folder is renamed THEN it is planned at its new folder and not listed as removed", async () => {
    git(root, "mv", "domains/p19", "domains/renamed19");
    commit();
    const r = await svc(root, "--changed-since", "main", "--json");
    expect(matrixOf(r.stdout)).toEqual({ include: [{ project: "p19", dir: "domains/renamed19", target: "default" }] });
    expect(r.stderr).not.toContain("Removed");
  });

  it("WHEN a change is not yet committed THEN it counts too (a local run before pushing)", async () => {
    writeFileSync(join(root, "domains/p07/canvases/p07_canvas/new.py"), "def udf():\n    return 1\n");
    expect(projectsIn((await svc(root, "--changed-since", "main", "--json")).stdout)).toEqual(["p07"]);
  });

  it("WHEN --target staging is given THEN the matrix holds only the projects that declare it, once each", async () => {
    const r = await svc(root, "--target", "staging", "--json");
    expect(matrixOf(r.stdout).include.map((e) => `${e.project}:${e.target}`)).toEqual([
      "p04:staging",
      "p08:staging",
      "p12:staging",
      "p16:staging",
      "p20:staging",
    ]);
  });

  it("WHEN DIR is one folder of the repository THEN only the projects under it are listed, with folders still relative to the repository root", async () => {
    const r = await svc(join(root, "domains"), "p03", "--json");
    expect(matrixOf(r.stdout)).toEqual({ include: [{ project: "p03", dir: "domains/p03", target: "default" }] });
  });

  it("WHEN the reference does not exist, or looks like an option THEN it exits 1 naming it, and --json still prints an empty matrix", async () => {
    const r = await svc(root, "--changed-since", "no-such-branch", "--json");
    expect(r.code).toBe(1);
    expect(matrixOf(r.stdout)).toEqual({ include: [] });
    expect(r.stderr).toContain('"no-such-branch" is not a commit of this repository');
    expect((await svc(root, "--changed-since=--output=/tmp/x")).stderr).toContain("is not a git reference");
  });

  it("WHEN UDF settings files are hostile (an alias bomb, lists nested 5,000 deep) THEN they are read within the loader's bounds, refused and not expanded: the command ends, exit 0, with the readers of the changed helper", async () => {
    const bomb = [
      "a0: &a0 [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(", ")}]`),
    ].join("\n");
    writeFileSync(
      join(root, "domains/p05/canvases/p05_canvas/bomb.yaml"),
      `headers: [{module: geo, file: ../../../../shared/geo.py}]\n${bomb}\n`,
    );
    writeFileSync(
      join(root, "domains/p06/canvases/p06_canvas/deep.yaml"),
      `headers: ${"[".repeat(5000)}${"]".repeat(5000)}\n`,
    );
    commit();
    git(root, "tag", "-f", "hostile");
    appendFileSync(join(root, "shared/geo.py"), "# changed\n");
    const r = await svc(root, "--changed-since", "hostile", "--json");
    git(root, "tag", "-d", "hostile");
    expect(r.code).toBe(0);
    expect(projectsIn(r.stdout)).toEqual(["p01", "p02", "p03"]);
  });

  it("WHEN a project's svc.yaml does not load THEN it is named with file:line and the command exits 1", async () => {
    writeFileSync(join(root, "domains/p09/svc.yaml"), "project: [not, a, name]\n");
    const r = await svc(root, "--changed-since", "main");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: domains\/p09\/svc\.yaml:1:\d+: /);
  });

  it("WHEN a project declares a target of a bad name THEN the error names the file, line and the name found", async () => {
    writeFileSync(join(root, "domains/p09/svc.yaml"), "project: p09\ntargets:\n  prod: {}\n  'bad name': {}\n");
    const r = await svc(root);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: domains\/p09\/svc\.yaml:4:\d+: .*found target name "bad name"/);
  });

  it("WHEN an unaffected project's svc.yaml is broken THEN --changed-since does not read it: the affected project is listed, exit 0", async () => {
    writeFileSync(join(root, "domains/p09/svc.yaml"), "project: [not, a, name]\n");
    git(root, "commit", "-q", "-am", "break p09");
    git(root, "tag", "-f", "broken-p09");
    appendFileSync(join(root, "domains/p05/canvases/p05_canvas/hello.py"), "# changed\n");
    const r = await svc(root, "--changed-since", "broken-p09", "--json");
    git(root, "tag", "-d", "broken-p09");
    expect(r.code).toBe(0);
    expect(projectsIn(r.stdout)).toEqual(["p05"]);
  });

  it(`THEN every project is named as its svc.yaml names it (${projectName(1)} … ${projectName(20)})`, async () => {
    expect(projectsIn((await svc(root, "--json")).stdout)).toEqual(
      Array.from({ length: 20 }, (_, i) => projectName(i + 1)),
    );
  });
});
