/**
 * Every command that reads a repository, run as a user runs it (the built command line, in this
 * process: `runSvc`), on a repository whose svc.yaml is a link to a FIFO, to /dev/zero, or to a YAML
 * file outside it: each ends at once (no read hangs on the FIFO or fills memory from /dev/zero),
 * fails naming svc.yaml, and prints nothing of the outside file. (`projects`, walking a folder without git, does not take a link
 * named svc.yaml for a project at all: it finds none.)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ran, runSvc } from "../helpers/cli-run";
import { builtCli } from "../helpers/repo";

const OUTSIDE_NAME = "outside_project_name_3f9a";
const COMMANDS: string[][] = [
  ["validate"],
  ["plan"],
  ["drift"],
  ["show", "--offline"],
  ["test"],
  ["import", "--all", "--dry-run"],
  ["projects"],
];
const LINKS: Record<string, (top: string, repo: string) => string> = {
  "a FIFO": (_top, repo) => (execFileSync("mkfifo", [join(repo, "pipe")]), "pipe"),
  "/dev/zero": () => "/dev/zero",
  "a YAML file outside the repository": (top) => join(top, "outside.yaml"),
};

const tops: string[] = [];
beforeAll(() => {
  builtCli();
}, 120_000);
afterAll(() => {
  for (const t of tops) rmSync(t, { recursive: true, force: true });
});

function repoWith(link: (top: string, repo: string) => string): string {
  const top = mkdtempSync(join(tmpdir(), "svc-links-"));
  tops.push(top);
  const repo = join(top, "repo");
  mkdirSync(join(repo, "canvases", "sales"), { recursive: true });
  writeFileSync(join(repo, "canvases", "sales", "canvas.yaml"), "access_scope: team\n");
  writeFileSync(join(top, "outside.yaml"), `project: ${OUTSIDE_NAME}\n`);
  symlinkSync(link(top, repo), join(repo, "svc.yaml"));
  return repo;
}

describe.each(Object.keys(LINKS))("GIVEN a repository whose svc.yaml links to %s", (what) => {
  it.each(COMMANDS.map((c) => [c.join(" "), c]))(
    "WHEN %s runs THEN it fails at once naming svc.yaml, and shows nothing of the target",
    async (_name, args) => {
      const repo = repoWith(LINKS[what]!);
      // The command line in this process, as the program runs it; a run still going after 20 s is
      // taken for a hang (a read blocked on the FIFO or filling memory from /dev/zero).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<Ran & { killed: boolean }>((resolve) => {
        timer = setTimeout(() => resolve({ code: -1, stdout: "", stderr: "", log: "", killed: true }), 20_000);
      });
      const r = await Promise.race([
        runSvc(args as string[], { SVC_CACHE_DIR: "" }, { cwd: repo }).then((ran) => ({ ...ran, killed: false })),
        hung,
      ]).finally(() => clearTimeout(timer));
      expect(r.killed).toBe(false);
      if (args[0] === "projects") expect([r.code, r.stdout]).toEqual([0, "No project.\n"]);
      else {
        expect(r.code).toBe(1);
        expect(r.stdout + r.stderr).toContain("svc.yaml");
      }
      expect(r.stdout + r.stderr).not.toContain(OUTSIDE_NAME);
    },
    30_000,
  );
});
