/**
 * Policy rules in the GitHub Action: on a pull request whose branch deletes the passcode rule and
 * makes a canvas public, the action reads policies.yaml at the pull request's base commit (its
 * default policies-ref), so the plan is refused; the comment, the job summary and an annotation on
 * the canvas's file and line say which rule.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAction } from "../../src/github/action";
import { STARTER_POLICIES } from "../../src/policy/starter";
import * as reconcileCommands from "../../src/reconcile/commands";
import { destroyCommand } from "../../src/reconcile/commands/destroy";
import { useEmulator } from "../helpers/emulator";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";

const commands = { ...reconcileCommands, destroyCommand };
const fx = useEmulator();
let gh: FakeGithub;
let workspace: string;

const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: workspace,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  }).trim();

beforeEach(async () => {
  gh = await startFakeGithub();
  workspace = await mkdtemp(join(tmpdir(), "svc-iac-action-policy-"));
  await mkdir(join(workspace, "infra", "canvases", "pr_canvas"), { recursive: true });
  await writeFile(join(workspace, "infra", "svc.yaml"), "project: gh_policy\n");
  await writeFile(join(workspace, "infra", "canvases", "pr_canvas", "canvas.yaml"), "access_scope: team\n");
  await writeFile(join(workspace, "infra", "policies.yaml"), STARTER_POLICIES);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "base");
});
afterEach(async () => {
  await gh.close();
});

async function plan(baseSha: string, inputs: Record<string, string> = {}) {
  const pr = gh.addPullRequest();
  await writeFile(
    join(workspace, "event.json"),
    JSON.stringify({ pull_request: { number: pr, head: { sha: git("rev-parse", "HEAD") }, base: { sha: baseSha } } }),
  );
  let stdout = "";
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: "7",
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
    GITHUB_OUTPUT: join(workspace, "output"),
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: join(workspace, "event.json"),
    INPUT_GITHUB_TOKEN: "ghs_policyTest_0123",
    INPUT_COMMAND: "plan",
    INPUT_WORKING_DIRECTORY: "infra",
    SVC_BASE_URL: fx.emu.baseUrl,
    SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
    SVC_TOKEN: fx.emu.tokens.user_token,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, "_")}`, v])),
  };
  const code = await runAction({
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => {} },
    deps: { commands },
  });
  return { code, stdout, summary: await readFile(join(workspace, "summary.md"), "utf8").catch(() => "") };
}

describe("GIVEN a pull request that deletes the passcode rule and makes a canvas public", () => {
  beforeEach(async () => {
    const base = git("rev-parse", "HEAD");
    git("checkout", "-q", "-b", "weaken");
    await writeFile(
      join(workspace, "infra", "policies.yaml"),
      STARTER_POLICIES.replace(/ {2}- name: public-canvas-needs-passcode[\s\S]*?severity: mandatory\n\n/, ""),
    );
    await writeFile(join(workspace, "infra", "canvases", "pr_canvas", "canvas.yaml"), "access_scope: public\n");
    git("commit", "-qam", "weaken the rules");
    process.env.__BASE_FOR_TEST = base;
  });
  afterEach(() => {
    delete process.env.__BASE_FOR_TEST;
  });

  it("WHEN the action plans THEN the base branch's rule refuses it: exit 1, the rule in the comment and the summary, an error annotation on the canvas's file and line", async () => {
    const r = await plan(process.env.__BASE_FOR_TEST!);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /::error file=infra\/canvases\/pr_canvas\/canvas\.yaml,line=1,col=1,title=svc-iac policy%3A public-canvas-needs-passcode::canvas\.pr_canvas: canvas\.pr_canvas is public without a passcode/,
    );
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain("#### Policy");
    expect(gh.comments[0]!.body).toContain("`public-canvas-needs-passcode`");
    expect(gh.comments[0]!.body).toContain("removed public-canvas-needs-passcode");
    expect(r.summary).toContain("`public-canvas-needs-passcode`");
  });

  it("WHEN the checkout is shallow (actions/checkout's default: no base commit) THEN the action fetches the base from origin and its rule still refuses the plan", async () => {
    const base = process.env.__BASE_FOR_TEST!;
    const origin = join(workspace, "..", `${basename(workspace)}-origin.git`);
    execFileSync("git", ["clone", "-q", "--bare", workspace, origin]);
    const shallow = join(workspace, "..", `${basename(workspace)}-shallow`);
    execFileSync("git", ["clone", "-q", "--depth=1", "--branch", "weaken", `file://${origin}`, shallow]);
    expect(() =>
      execFileSync("git", ["cat-file", "-e", `${base}^{commit}`], { cwd: shallow, stdio: "ignore" }),
    ).toThrow();
    workspace = shallow;
    const r = await plan(base);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("could not be fetched");
    expect(r.stdout).toMatch(/title=svc-iac policy%3A public-canvas-needs-passcode::canvas\.pr_canvas/);
    expect(gh.comments[0]!.body).toContain("removed public-canvas-needs-passcode");
  });

  it("WHEN the base commit is missing and there is no origin to fetch it from THEN the action warns that the work tree's rules were checked", async () => {
    const r = await plan("0".repeat(40));
    expect(r.stdout).toContain(
      "::warning title=svc-iac::Policy rules: the pull request's base commit 000000000000 is not in the checkout and could not be fetched",
    );
  });

  it("WHEN policies-ref names the pull request's own commit THEN its weakened rules let the plan through (exit 0)", async () => {
    const r = await plan(process.env.__BASE_FOR_TEST!, { "policies-ref": "weaken" });
    expect(r.code).toBe(0);
  });
});

describe("GIVEN a public canvas without a passcode applied before the passcode rule was added (no field drift)", () => {
  const driftEnv = (): Record<string, string> => ({
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: "8",
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
    GITHUB_OUTPUT: join(workspace, "output"),
    GITHUB_EVENT_NAME: "schedule",
    INPUT_GITHUB_TOKEN: "ghs_policyTest_0123",
    INPUT_COMMAND: "drift",
    INPUT_DETAILED_EXITCODE: "true",
    INPUT_WORKING_DIRECTORY: "infra",
    SVC_BASE_URL: fx.emu.baseUrl,
    SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
    SVC_TOKEN: fx.emu.tokens.user_token,
  });
  const driftAction = async () => {
    await rm(join(workspace, "output"), { force: true });
    await rm(join(workspace, "summary.md"), { force: true });
    let stdout = "";
    const code = await runAction({
      env: driftEnv(),
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => {} },
      deps: { commands },
    });
    const outputs = await readFile(join(workspace, "output"), "utf8");
    return { code, stdout, outputs, summary: await readFile(join(workspace, "summary.md"), "utf8") };
  };

  beforeEach(async () => {
    const dir = join(workspace, "infra");
    await writeFile(join(dir, "canvases", "pr_canvas", "canvas.yaml"), "access_scope: public\n");
    const none = join(workspace, "no-rules.yaml");
    await writeFile(none, "rules: []\n");
    const env = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
    };
    const applied = await commands.applyCommand({ dir, env, policies: none });
    expect(applied.exitCode, JSON.stringify(applied.errors)).toBe(0);
  });

  it("WHEN the scheduled drift action runs under the rules THEN has-drift is true and the drift issue lists the rule; once the canvas is fixed the issue closes", async () => {
    const r = await driftAction();
    expect(r.code).toBe(2);
    expect(r.outputs).toContain("has-drift=true\n");
    expect(r.stdout).toMatch(
      /::error file=infra\/canvases\/pr_canvas\/canvas\.yaml,line=1,col=1,title=svc-iac policy%3A public-canvas-needs-passcode::/,
    );
    expect(r.summary).toContain("`public-canvas-needs-passcode`");
    expect(gh.issues).toHaveLength(1);
    const issue = gh.issues[0]!;
    expect(issue.title).toBe("Drift: gh_policy (default): 1 mandatory policy rule is not met");
    expect(issue.body).toContain("The platform holds objects that mandatory policy rules refuse");
    expect(issue.body).toContain("`public-canvas-needs-passcode`");
    expect(issue.body).toContain("`canvas.pr_canvas`");
    expect(issue.state).toBe("open");

    // The same violation the next day: the issue is left alone.
    const again = await driftAction();
    expect(again.code).toBe(2);
    expect(gh.issues).toHaveLength(1);
    expect(gh.comments).toHaveLength(0);

    // The canvas made a team canvas again (repository and platform): no drift, the issue closes.
    await writeFile(join(workspace, "infra", "canvases", "pr_canvas", "canvas.yaml"), "access_scope: team\n");
    const fixed = await commands.applyCommand({
      dir: join(workspace, "infra"),
      env: { SVC_BASE_URL: fx.emu.baseUrl, SVC_UDF_BASE_URL: fx.emu.udfBaseUrl, SVC_TOKEN: fx.emu.tokens.user_token },
    });
    expect(fixed.exitCode).toBe(0);
    const clean = await driftAction();
    expect(clean.code).toBe(0);
    expect(clean.outputs).toContain("has-drift=false\n");
    expect(gh.issues[0]!.state).toBe("closed");
  });
});

describe("GIVEN the starter rules and an advisory naming rule, on a push", () => {
  const validateAction = async () => {
    await rm(join(workspace, "summary.md"), { force: true });
    let stdout = "";
    const code = await runAction({
      env: {
        GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
        GITHUB_API_URL: gh.url,
        GITHUB_RUN_ID: "9",
        GITHUB_WORKSPACE: workspace,
        GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
        GITHUB_OUTPUT: join(workspace, "output"),
        GITHUB_EVENT_NAME: "push",
        INPUT_COMMAND: "validate",
        INPUT_WORKING_DIRECTORY: "infra",
      },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => {} },
      deps: { commands },
    });
    return { code, stdout, summary: await readFile(join(workspace, "summary.md"), "utf8") };
  };
  beforeEach(async () => {
    await writeFile(
      join(workspace, "infra", "policies.yaml"),
      `${STARTER_POLICIES}
  - name: canvas-team-prefix
    match: kind == 'canvas'
    rule: address.startsWith('canvas.team_')
    message: "{{ address }} has no team_ prefix"
    severity: advisory
`,
    );
  });

  it("WHEN validate runs on a public canvas without a passcode THEN exit 1, and the job summary and the annotations hold both rules' results", async () => {
    await writeFile(join(workspace, "infra", "canvases", "pr_canvas", "canvas.yaml"), "access_scope: public\n");
    const r = await validateAction();
    expect(r.code).toBe(1);
    expect(r.summary).toContain(
      "### Validate failed for `gh_policy` (`default`): 1 object, 1 mandatory policy rule not met",
    );
    expect(r.summary).toContain("#### Policy");
    expect(r.summary).toMatch(
      /\| ✗ `public-canvas-needs-passcode` \| mandatory \| `canvas\.pr_canvas` `canvases\/pr_canvas\/canvas\.yaml:1:1` \| canvas\.pr\\_canvas is public without a passcode/,
    );
    expect(r.summary).toMatch(/\| ! `canvas-team-prefix` \| advisory \| `canvas\.pr_canvas`/);
    expect(r.summary).toContain(
      "Policy: 4 rules of policies.yaml checked, 1 mandatory not met, 1 advisory \\(skipped at validate: deletion-budget",
    );
    expect(r.stdout).toMatch(
      /::error file=infra\/canvases\/pr_canvas\/canvas\.yaml,line=1,col=1,title=svc-iac policy%3A public-canvas-needs-passcode::/,
    );
    expect(r.stdout).toMatch(
      /::warning file=infra\/canvases\/pr_canvas\/canvas\.yaml,line=1,col=1,title=svc-iac policy%3A canvas-team-prefix::/,
    );
  });

  it("WHEN validate runs on a team canvas THEN exit 0, and the summary still shows the advisory result", async () => {
    const r = await validateAction();
    expect(r.code).toBe(0);
    expect(r.summary).toContain("### Validate `gh_policy` (`default`): 1 object, no errors");
    expect(r.summary).toMatch(/\| ! `canvas-team-prefix` \| advisory \| `canvas\.pr_canvas`/);
    expect(r.summary).not.toContain("public-canvas-needs-passcode");
    expect(r.stdout).toMatch(
      /::warning file=infra\/canvases\/pr_canvas\/canvas\.yaml,line=1,col=1,title=svc-iac policy%3A canvas-team-prefix::/,
    );
  });
});
