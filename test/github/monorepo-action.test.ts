/**
 * The monorepo workflow as the runner runs it: a detection job (`command: projects`) on a pull
 * request, then one plan job per affected project, all writing into ONE pull-request comment
 * (`comment: combined`) against the local GitHub stand-in; the plan jobs run concurrently, as a
 * matrix does.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runAction, type CommandFunctions } from "../../src/github/action";
import { COMBINED_MARKER } from "../../src/github/combined-comment";
import { COMMENT_MAX_CHARS } from "../../src/github/pr-comment";
import type { CommandOptions, CommandResult } from "../../src/reconcile/commands/command-types";
import { createGithubClient } from "../../src/github/github-client";
import { planCreatingUdfs, startFakeGithub, type FakeGithub } from "../helpers/fake-github";
import { git, monorepo, writeFiles } from "../helpers/monorepo";

const GITHUB_TOKEN = "ghs_plantedGithubToken0123456789";
/** A token of another GitHub App installed on the repository, which may write check runs. */
const OTHER_APP_TOKEN = "ghs_otherAppInstallationToken777";
let gh: FakeGithub;
let root: string;
let prNumber: number;
let baseSha: string;
let headSha: string;

beforeAll(() => {
  root = monorepo(20);
  baseSha = git(root, "rev-parse", "HEAD").trim();
  git(root, "checkout", "-q", "-b", "feature");
  appendFileSync(join(root, "shared/geo.py"), "# shared change\n");
  appendFileSync(join(root, "domains/p05/canvases/p05_canvas/hello.py"), "# p05 change\n");
  git(root, "commit", "-q", "-am", "change");
  headSha = git(root, "rev-parse", "HEAD").trim();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(async () => {
  gh = await startFakeGithub({ apps: { [OTHER_APP_TOKEN]: { id: 4242, slug: "helpful-bot" } } });
  prNumber = gh.addPullRequest();
});
afterEach(async () => gh.close());

function env(inputs: Record<string, string>, head = headSha): Record<string, string> {
  const event = join(root, ".git", `event-${Math.random()}.json`);
  writeFileSync(
    event,
    JSON.stringify({ pull_request: { number: prNumber, head: { sha: head }, base: { sha: baseSha } } }),
  );
  const output = join(root, ".git", `output-${Math.random()}`);
  writeFileSync(output, "");
  const e: Record<string, string> = {
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "7",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_SHA: "f".repeat(40),
    GITHUB_OUTPUT: output,
    GITHUB_WORKSPACE: root,
    GITHUB_TOKEN,
    INPUT_GITHUB_TOKEN: GITHUB_TOKEN,
  };
  for (const [name, value] of Object.entries(inputs)) e[`INPUT_${name.toUpperCase().replace(/-/g, "_")}`] = value;
  return e;
}

const outputsOf = (e: Record<string, string>) => {
  const text = readFileSync(e.GITHUB_OUTPUT!, "utf8");
  const out: Record<string, string> = {};
  // name<<DELIM\nvalue\nDELIM, or name=value
  const re = /^([^=<\n]+)<<(\S+)\n([\s\S]*?)\n\2$|^([^=<\n]+)=(.*)$/gm;
  for (const m of text.matchAll(re))
    if (m[1]) out[m[1]] = m[3]!;
    else out[m[4]!] = m[5]!;
  return out;
};

/** A plan job's command: plans `count(project)` changes for the project of its folder. */
function planning(count: (project: string) => number): CommandFunctions {
  const plan = async (opts: CommandOptions): Promise<CommandResult> => {
    const project = /project: (\S+)/.exec(readFileSync(join(opts.dir, "svc.yaml"), "utf8"))![1]!;
    const n = count(project);
    return {
      command: "plan",
      exitCode: n && opts.detailedExitCode ? 2 : 0,
      errors: [],
      plan: planCreatingUdfs(n, project, opts.target ?? "default"),
    };
  };
  const never = async (): Promise<CommandResult> => {
    throw new Error("not in this test");
  };
  return { validateCommand: never, planCommand: plan, applyCommand: never, driftCommand: never, destroyCommand: never };
}

const quiet = { write: () => true };
/**
 * The wait between a job's rebuilds of the comment: 3 to 15 ms at random (production waits 0.3 to
 * 1.5 s), so racing jobs still interleave.
 */
const settle = () => new Promise<void>((ok) => setTimeout(ok, 3 + Math.floor(Math.random() * 12)));
const detect = async (extra: Record<string, string> = {}, head = headSha) => {
  const e = env({ command: "projects", comment: "combined", ...extra }, head);
  const code = await runAction({ env: e, stdout: quiet, stderr: quiet, deps: { settle } });
  return { code, outputs: outputsOf(e) };
};
const planJob = (dir: string, commands: CommandFunctions, head = headSha) =>
  runAction({
    env: env({ command: "plan", comment: "combined", "working-directory": dir, "detailed-exitcode": "false" }, head),
    stdout: quiet,
    stderr: quiet,
    deps: { commands, settle },
  });
const combined = () => gh.comments.filter((c) => c.body.startsWith(COMBINED_MARKER));

describe("GIVEN a pull request that changes a helper module three projects read, and one other project", () => {
  it("WHEN the detection job runs THEN its matrix holds exactly those four projects, its count says 4, and the one comment lists them as planning", async () => {
    const r = await detect();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.outputs.matrix!).include.map((e: { project: string }) => e.project)).toEqual([
      "p01",
      "p02",
      "p03",
      "p05",
    ]);
    expect(r.outputs.count).toBe("4");
    expect(r.outputs["changed-since"]).toBe(baseSha);
    expect(combined()).toHaveLength(1);
    expect(combined()[0]!.body.match(/⏳ planning/g)).toHaveLength(4);
  });

  it("WHEN the four plan jobs run at once THEN the one comment ends with a section per project and a summary row for each, and each project has its own check", async () => {
    const { outputs } = await detect();
    const include = JSON.parse(outputs.matrix!).include as { dir: string }[];
    const codes = await Promise.all(
      include.map((e) =>
        planJob(
          e.dir,
          planning((p) => (p === "p02" ? 0 : 2)),
        ),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(combined()).toHaveLength(1);
    const body = combined()[0]!.body;
    expect(body).not.toContain("planning");
    for (const p of ["p01", "p03", "p05"])
      expect(body).toMatch(new RegExp(`\\| ${p} \\| default \\| 📝 changes \\| 2 to update \\|`));
    expect(body).toMatch(/\| p02 \| default \| ✅ no changes \| No changes/);
    expect(body.match(/<summary><b>p\d\d<\/b>/g)).toHaveLength(4);
    expect(gh.checkRuns.map((r) => r.name).sort()).toEqual([
      "svc-iac plan: p01 (default)",
      "svc-iac plan: p02 (default)",
      "svc-iac plan: p03 (default)",
      "svc-iac plan: p05 (default)",
      "svc-iac projects",
    ]);
  });
});

describe("GIVEN twenty plan jobs finishing at the same time", () => {
  it("THEN no section is lost to a concurrent edit: the comment holds all twenty, and only one comment exists", async () => {
    // At their worst: a job reads the check runs before another's is written, and its edit, which
    // knew the least, lands last.
    await gh.close();
    gh = await startFakeGithub({
      apps: { [OTHER_APP_TOKEN]: { id: 4242, slug: "helpful-bot" } },
      race: { checkRunDelayMs: 60, holdEditsMs: 200 },
    });
    prNumber = gh.addPullRequest();
    await detect({ "changed-since": "", targets: "default" }, headSha);
    const jobs = Array.from({ length: 20 }, (_, i) => `domains/p${String(i + 1).padStart(2, "0")}`);
    await Promise.all(
      jobs.map((dir) =>
        planJob(
          dir,
          planning(() => 1),
        ),
      ),
    );
    expect(combined()).toHaveLength(1);
    const body = combined()[0]!.body;
    for (let i = 1; i <= 20; i++)
      expect(body).toContain(`<b>p${String(i).padStart(2, "0")}</b> (default): 1 to update`);
  }, 120_000);
});

describe("GIVEN plans too long to show together", () => {
  it("THEN the comment stays within GitHub's 65,536 characters, the longest sections point to their check runs, and the short ones are shown", async () => {
    const { outputs } = await detect();
    const include = JSON.parse(outputs.matrix!).include as { dir: string }[];
    await Promise.all(
      include.map((e) =>
        planJob(
          e.dir,
          planning((p) => (p === "p05" ? 1 : 120)),
        ),
      ),
    );
    const body = combined()[0]!.body;
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body).toContain("<b>p05</b> (default): 1 to update");
    expect(body.match(/Too long to show beside the other projects/g)!.length).toBeGreaterThanOrEqual(2);
    expect(body).toMatch(/\| p01 \| default \| 📝 changes \| 120 to update \|/);
    // Each collapsed section's plan is whole in its check run.
    expect(gh.checkRuns.find((r) => r.name === "svc-iac plan: p01 (default)")!.output.summary).toContain(
      "udf.sales/loader_00119",
    );
  });
});

describe("GIVEN a new push after which only one project is affected", () => {
  it("THEN the comment is rebuilt for the new commit: the sections of projects the push no longer touches leave it", async () => {
    const { outputs } = await detect();
    await Promise.all(
      (JSON.parse(outputs.matrix!).include as { dir: string }[]).map((e) =>
        planJob(
          e.dir,
          planning(() => 1),
        ),
      ),
    );
    git(root, "checkout", "-q", "-b", "second", baseSha);
    appendFileSync(join(root, "domains/p07/canvases/p07_canvas/hello.py"), "# p07\n");
    git(root, "commit", "-q", "-am", "p07 only");
    const second = git(root, "rev-parse", "HEAD").trim();
    const again = await detect({}, second);
    expect(JSON.parse(again.outputs.matrix!).include.map((e: { project: string }) => e.project)).toEqual(["p07"]);
    await planJob(
      "domains/p07",
      planning(() => 1),
      second,
    );
    const body = combined()[0]!.body;
    expect(combined()).toHaveLength(1);
    expect(body).toContain("<b>p07</b>");
    expect(body).not.toContain("p01");
    git(root, "checkout", "-q", "feature");
  });
});

describe("GIVEN a pull request adding a folder that claims another project's name", () => {
  it("THEN the detection job fails naming both folders as annotations, and plans neither of them", async () => {
    const repo = monorepo(3);
    try {
      writeFiles(repo, { "contrib/svc.yaml": "project: p02\n" });
      git(repo, "add", "-A");
      git(repo, "commit", "-q", "-m", "contrib");
      const output = join(repo, ".git", "output");
      writeFileSync(output, "");
      let stdout = "";
      const code = await runAction({
        env: { GITHUB_WORKSPACE: repo, GITHUB_OUTPUT: output, INPUT_COMMAND: "projects" },
        stdout: { write: (t: string) => (stdout += t) },
        stderr: quiet,
      });
      expect(code).toBe(1);
      expect(stdout).toContain(
        '::error title=svc-iac projects::contrib/svc.yaml:1:10: project: "p02" is also the project of domains/p02 (domains/p02/svc.yaml).',
      );
      expect(stdout).toContain("::error title=svc-iac projects::domains/p02/svc.yaml:1:10:");
      const matrix = JSON.parse(outputsOf({ GITHUB_OUTPUT: output }).matrix!) as { include: { dir: string }[] };
      expect(matrix.include.map((e) => e.dir)).toEqual(["domains/p01", "domains/p03"]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe("GIVEN check runs named like ours written by another app, and by another workflow run", () => {
  /** A check run as another writer would make it: our name, a copied marker, a hostile summary. */
  const forge = (token: string, externalId: string, summary: string) =>
    createGithubClient({ token, baseUrl: gh.url, warn: () => {} }).rest.checks.create({
      owner: gh.owner,
      repo: gh.repo,
      name: "svc-iac plan: p01 (default)",
      head_sha: headSha,
      external_id: externalId,
      status: "completed",
      conclusion: "success",
      output: {
        title: "No changes",
        summary,
        text: JSON.stringify({ project: "p01", target: "default", status: "no changes", title: "No changes" }),
      },
    });
  const HOSTILE = "@octocat <img src=x onerror=alert(1)> [click](https://evil.example/steal)";

  it("THEN the comment shows only this run's plans, lists the forged runs as ignored, and none of their text renders", async () => {
    const { outputs } = await detect();
    const include = JSON.parse(outputs.matrix!).include as { dir: string }[];
    // Before our job: another app (copying this run's marker) and another workflow run (our app).
    await forge(OTHER_APP_TOKEN, "svc-iac run 7", HOSTILE);
    await forge(GITHUB_TOKEN, "svc-iac run 999", HOSTILE);
    await planJob(
      "domains/p01",
      planning(() => 2),
    );
    // After it: newer than ours, so GitHub's "latest" would have shown this one.
    await forge(OTHER_APP_TOKEN, "svc-iac run 7", HOSTILE);
    await Promise.all(
      include
        .filter((e) => e.dir !== "domains/p01")
        .map((e) =>
          planJob(
            e.dir,
            planning(() => 2),
          ),
        ),
    );
    const body = combined()[0]!.body;
    expect(body).toMatch(/\| p01 \| default \| 📝 changes \| 2 to update \|/);
    expect(body).toContain("<b>p01</b> (default): 2 to update");
    expect(body).not.toContain("onerror");
    expect(body).not.toContain("@octocat");
    expect(body).not.toContain("evil.example");
    expect(body).toContain(
      "**Ignored**: 3 check runs named like svc-iac's that this workflow run did not write (another app, or another run): `svc-iac plan: p01 (default)` by `github-actions`, `svc-iac plan: p01 (default)` by `helpful-bot`, `svc-iac plan: p01 (default)` by `helpful-bot`",
    );
  });

  it("WHEN the forged run is the only one for a project THEN that project stays pending rather than taking the forged status", async () => {
    await detect();
    await forge(OTHER_APP_TOKEN, "svc-iac run 7", HOSTILE);
    await planJob(
      "domains/p02",
      planning(() => 0),
    );
    const body = combined()[0]!.body;
    expect(body).toMatch(/\| p01 \| default \| ⏳ planning \|/);
    expect(body).not.toContain("@octocat");
  });
});
