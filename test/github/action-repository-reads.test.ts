/**
 * The action reads the repository only through its jail, on the failure path too: when the command
 * refuses `svc.yaml` (a link to a FIFO, to /dev/zero, to a YAML file outside the repository), the
 * action names the comment and job summary after the folder, without reading what the link leads to.
 * The real commands run (nothing faked): the attack is the committed link, as a pull request has it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAction } from "../../src/github/action";
import * as reconcileCommands from "../../src/reconcile/commands";
import { destroyCommand } from "../../src/reconcile/commands/destroy";
import { planMarker } from "../../src/github/markers";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";

const commands = { ...reconcileCommands, destroyCommand };
const GITHUB_TOKEN = "ghs_plantedGithubToken0123456789";
let gh: FakeGithub;
let top: string;
let workspace: string;
let prNumber: number;

beforeEach(async () => {
  gh = await startFakeGithub();
  prNumber = gh.addPullRequest();
  top = mkdtempSync(join(tmpdir(), "svc-iac-action-reads-"));
  workspace = join(top, "workspace");
  mkdirSync(join(workspace, "infra"), { recursive: true });
  writeFileSync(
    join(workspace, "event.json"),
    JSON.stringify({ pull_request: { number: prNumber, head: { sha: "0123456789abcdef" } } }),
  );
  // A file outside the checkout whose project name must never reach GitHub.
  writeFileSync(join(top, "outside.yaml"), "project: leaked_outside_name\n");
});
afterEach(async () => {
  await gh.close();
  rmSync(top, { recursive: true, force: true });
});

async function planWith(svcYaml: () => void) {
  svcYaml();
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "42",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: join(workspace, "event.json"),
    GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
    GITHUB_OUTPUT: join(workspace, "output"),
    GITHUB_WORKSPACE: workspace,
    GITHUB_TOKEN,
    INPUT_COMMAND: "plan",
    INPUT_WORKING_DIRECTORY: "infra",
    INPUT_GITHUB_TOKEN: GITHUB_TOKEN,
    SVC_CACHE_DIR: "",
  };
  writeFileSync(env.GITHUB_OUTPUT!, "");
  let stdout = "";
  const heapBefore = process.memoryUsage().rss;
  const code = await runAction({
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => true },
    deps: { commands },
  });
  const summary = readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8");
  return { code, stdout, summary, grew: process.memoryUsage().rss - heapBefore };
}

const svcPath = () => join(workspace, "infra", "svc.yaml");

describe("GIVEN a pull request whose svc.yaml is a link the command refuses", () => {
  it("WHEN it links to a FIFO THEN the failed plan is reported at once, named after the folder, and the job does not hang", async () => {
    execFileSync("mkfifo", [join(workspace, "infra", "pipe")]);
    const r = await planWith(() => symlinkSync("pipe", svcPath()));
    expect(r.code).toBe(1);
    expect(r.summary).toContain("infra");
    expect(gh.comments[0]!.body.startsWith(planMarker("infra", "default"))).toBe(true);
  }, 20_000);

  it("WHEN it links to /dev/zero THEN nothing of it is read: the job stays small and names the folder", async () => {
    const r = await planWith(() => symlinkSync("/dev/zero", svcPath()));
    expect(r.code).toBe(1);
    expect(r.grew).toBeLessThan(200 * 1024 * 1024);
    expect(gh.comments[0]!.body.startsWith(planMarker("infra", "default"))).toBe(true);
  }, 20_000);

  it("WHEN it links to a YAML file outside the repository THEN that file's project name appears nowhere", async () => {
    const r = await planWith(() => symlinkSync(join(top, "outside.yaml"), svcPath()));
    expect(r.code).toBe(1);
    const everything = [r.stdout, r.summary, ...gh.calls.map((c) => c.body)].join("\n");
    expect(everything).not.toContain("leaked_outside_name");
    expect(gh.comments[0]!.body.startsWith(planMarker("infra", "default"))).toBe(true);
    expect(r.stdout).toContain("outside the repository");
  }, 20_000);
});
