/**
 * The action as the runner runs it: the committed bundle (dist-action/index.js), alone in an empty
 * folder, started by Node with nothing but the runner's environment (GITHUB_*, INPUT_* named as
 * the runner names them, the output and summary files), against the fake GitHub and the emulator.
 * Also: the committed bundle is exactly what a fresh build of the sources gives.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { starterFiles } from "../../src/reconcile/init/starter-repository";
import { useEmulator } from "../helpers/emulator";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";

const ROOT = join(__dirname, "..", "..");
const GITHUB_TOKEN = "ghs_bundleWorkflowToken_0123456789";
const fx = useEmulator();
const root = mkdtempSync(join(tmpdir(), "svc-action-bundle-"));
const actionDir = join(root, "_actions", "acme", "svc-iac", "v1");
const workspace = join(root, "workspace");
let gh: FakeGithub;

interface ActionYml {
  inputs: Record<string, { default?: string }>;
}
const declared = (parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYml).inputs;

beforeAll(async () => {
  gh = await startFakeGithub();
  mkdirSync(actionDir, { recursive: true });
  copyFileSync(join(ROOT, "dist-action", "index.js"), join(actionDir, "index.js"));
  for (const [path, text] of Object.entries(
    starterFiles({ project: "bundle", schemaBase: "node_modules/svc-iac/schemas" }),
  )) {
    mkdirSync(dirname(join(workspace, "infra", path)), { recursive: true });
    writeFileSync(join(workspace, "infra", path), text);
  }
});
afterAll(async () => {
  await gh?.close();
  rmSync(root, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/**
 * Runs the bundle as the runner does: every declared input set (given value or its default),
 * named `INPUT_` + the name upper-cased with spaces as `_` (hyphens kept).
 */
async function runBundle(
  inputs: Record<string, string>,
  runner: Record<string, string>,
  step: Record<string, string> = {},
): Promise<Run> {
  const run = mkdtempSync(join(root, "run-"));
  const env: Record<string, string> = {
    PATH: dirname(process.execPath),
    HOME: run,
    // V8's compiled code of the 7 MB bundle kept between the runs of this test run (a runner
    // compiles it once per job): the same program, started in about half the time.
    NODE_COMPILE_CACHE: join(tmpdir(), "action-compile-cache"),
    RUNNER_TEMP: run,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "42",
    GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
    GITHUB_WORKSPACE: workspace,
    GITHUB_ACTION_PATH: actionDir,
    GITHUB_OUTPUT: join(run, "output"),
    GITHUB_STEP_SUMMARY: join(run, "summary"),
    ...runner,
    ...step,
  };
  for (const [name, spec] of Object.entries(declared)) {
    const value = inputs[name] ?? (spec.default === "${{ github.token }}" ? GITHUB_TOKEN : (spec.default ?? ""));
    env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
  }
  writeFileSync(env.GITHUB_OUTPUT, "");
  writeFileSync(env.GITHUB_STEP_SUMMARY, "");
  const child = spawn(process.execPath, [join(actionDir, "index.js")], {
    cwd: workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += String(c)));
  child.stderr.on("data", (c) => (stderr += String(c)));
  const code = await new Promise<number | null>((res) => child.on("close", res));
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputs(readFileSync(env.GITHUB_OUTPUT, "utf8")),
    summary: readFileSync(env.GITHUB_STEP_SUMMARY, "utf8"),
  };
}

/** The `GITHUB_OUTPUT` file as the runner reads it: `name=value` lines and `name<<DELIM` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([\w-]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      out[heredoc[1]] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (lines[i].includes("="))
      out[lines[i].slice(0, lines[i].indexOf("="))] = lines[i].slice(lines[i].indexOf("=") + 1);
  }
  return out;
}

function pullRequestEvent(number: number): Record<string, string> {
  const path = join(root, `event-${number}.json`);
  writeFileSync(
    path,
    JSON.stringify({ number, pull_request: { number, head: { sha: "fedcba9876543210fedcba9876543210fedcba98" } } }),
  );
  return { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: path };
}

describe("the bundled action", () => {
  it("is exactly a fresh build of the sources", async () => {
    const child = spawn(process.execPath, [join(ROOT, "scripts", "build-action.mjs"), "--check"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c) => (out += String(c)));
    child.stderr.on("data", (c) => (out += String(c)));
    const code = await new Promise((res) => child.on("close", res));
    expect(out).toContain("dist-action/index.js equals a fresh build");
    expect(code).toBe(0);
  }, 120_000);

  it("GIVEN only its file in the action folder WHEN plan runs on a pull request THEN it sets the outputs, writes the summary and posts one comment, and the check stays green", async () => {
    expect(readdirSync(actionDir)).toEqual(["index.js"]);
    const pr = gh.addPullRequest("Add the hello UDF");
    const platform = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
    };
    const r = await runBundle({ command: "plan", "working-directory": "infra" }, pullRequestEvent(pr), platform);
    expect(r.stderr).not.toMatch(/Error|Cannot find module/);
    // Changes are not a failure: the step exits 0 by default, and the log, the outputs and action.yml agree.
    expect(declared["detailed-exitcode"]?.default).toBe("false");
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({
      "exit-code": "0",
      "has-changes": "true",
      "has-drift": "false",
      "report-path": join(workspace, "svc-iac-report"),
    });
    expect(r.stdout).toContain("svc-iac plan: exit code 0 (has-changes: true)\n");
    const comments = gh.comments.filter((c) => c.issueNumber === pr);
    expect(comments).toHaveLength(1);
    expect(r.outputs["comment-url"]).toBe(
      `${gh.url}/web/${gh.owner}/${gh.repo}/issues/${pr}#issuecomment-${comments[0].id}`,
    );
    expect(comments[0].body).toContain("<!-- svc-iac:plan project=bundle target=default -->");
    for (const text of [comments[0].body, r.summary]) {
      expect(text).toContain("canvas.bundle");
      expect(text).toContain("udf.bundle/hello");
    }
    expect(readdirSync(join(workspace, "svc-iac-report")).sort()).toEqual(["plan.json", "plan.md"]);
    for (const secret of [GITHUB_TOKEN, fx.emu.tokens.user_token]) {
      for (const text of [r.stdout, r.stderr, r.summary, comments[0].body]) expect(text).not.toContain(secret);
    }
  });

  it("WHEN apply runs on push with no platform configured THEN the emulator inside the bundle applies it, and a second plan finds nothing to do", async () => {
    const push = { GITHUB_EVENT_NAME: "push" };
    const applied = await runBundle({ command: "apply", "working-directory": "infra" }, push);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain("using the embedded emulator");
    expect(applied.outputs).toMatchObject({ "exit-code": "0", "has-changes": "true" });
    expect(applied.stdout).toContain("create udf.bundle/hello: done");
    expect(applied.summary).toContain("udf.bundle/hello");
    const again = await runBundle({ command: "plan", "working-directory": "infra" }, push);
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false" });
  });

  it("WHEN apply mints a service-account token with github-secrets set THEN the bundle seals it into a GitHub secret that decrypts to the token, masked in the log", async () => {
    mkdirSync(join(workspace, "accounts"), { recursive: true });
    writeFileSync(join(workspace, "accounts", "svc.yaml"), "project: bundle_accounts\n");
    writeFileSync(
      join(workspace, "accounts", "service-accounts.yaml"),
      'service_accounts:\n  deployer:\n    rotation: "1"\n',
    );
    const secretsToken = "github_pat_bundleSecretsWriter_42";
    const r = await runBundle(
      {
        command: "apply",
        "working-directory": "accounts",
        "github-secrets": "repository",
        "secrets-token": secretsToken,
      },
      { GITHUB_EVENT_NAME: "push" },
    );
    expect(r.code).toBe(0);
    const token = gh.decryptSecret("SVC_SERVICE_ACCOUNT_DEPLOYER_TOKEN");
    expect(token).toBeTruthy();
    expect(r.stdout).toContain(`::add-mask::${token}`);
    const rest = r.stdout
      .split("\n")
      .filter((l) => !l.startsWith("::add-mask::"))
      .join("\n");
    for (const secret of [token!, secretsToken, GITHUB_TOKEN])
      for (const text of [rest, r.stderr, r.summary]) expect(text).not.toContain(secret);
  });

  it("GIVEN an applied UDF whose file was removed WHEN plan runs (prune off) THEN the log, summary and report name the prune input, not the --prune flag; with detailed-exitcode true it exits 2 and says so", async () => {
    const push = { GITHUB_EVENT_NAME: "push" };
    const applied = await runBundle({ command: "apply", "working-directory": "infra" }, push);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const files = ["hello.py", "hello.yaml"].map((name) => join(workspace, "infra", "canvases", "bundle", name));
    const texts = files.map((file) => readFileSync(file, "utf8"));
    for (const file of files) rmSync(file);
    try {
      const quiet = await runBundle({ command: "plan", "working-directory": "infra" }, push);
      expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
      expect(quiet.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false" });
      const report = readFileSync(join(workspace, "svc-iac-report", "plan.md"), "utf8");
      for (const shown of [quiet.stdout, quiet.summary, report]) {
        expect(shown).toContain("udf.bundle/hello");
        expect(shown).toMatch(/the input `?prune: true`?/);
        expect(shown).not.toContain("--prune");
      }
      const strict = await runBundle(
        { command: "plan", "working-directory": "infra", prune: "true", "detailed-exitcode": "true" },
        push,
      );
      expect(strict.code, strict.stdout + strict.stderr).toBe(2);
      expect(strict.outputs).toMatchObject({ "exit-code": "2", "has-changes": "true" });
      expect(strict.stdout).toContain("svc-iac plan: exit code 2 (has-changes: true)\n");
    } finally {
      files.forEach((file, i) => writeFileSync(file, texts[i]!));
    }
  }, 180_000);

  it("GIVEN path inputs that leave the workspace (.., an absolute path, symlinks committed by a pull request) WHEN the action runs THEN each step fails naming the input, runs nothing and writes nothing outside", async () => {
    // GIVEN a folder beside the workspace holding a repository, and symlinks inside the workspace that lead to it
    const outside = mkdtempSync(join(root, "outside-"));
    mkdirSync(join(outside, "infra"));
    writeFileSync(join(outside, "infra", "svc.yaml"), "project: escaped\n");
    symlinkSync(join(outside, "infra"), join(workspace, "linked-infra"));
    symlinkSync(outside, join(workspace, "linked-reports"));
    symlinkSync(join(outside, "nowhere"), join(workspace, "dangling"));
    const push = { GITHUB_EVENT_NAME: "push" };
    const platform = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
    };
    const cases: [Record<string, string>, string][] = [
      [{ command: "plan", "working-directory": "../.." }, 'Input "working-directory" is "../.."'],
      [
        { command: "plan", "working-directory": join(outside, "infra") },
        `Input "working-directory" is "${join(outside, "infra")}"`,
      ],
      [
        { command: "plan", "working-directory": "linked-infra" },
        `Input "working-directory" is "linked-infra" (it leads to ${realpathSync(join(outside, "infra"))})`,
      ],
      [
        { command: "plan", "working-directory": "infra", "report-path": "../reports" },
        'Input "report-path" is "../reports"',
      ],
      [
        { command: "plan", "working-directory": "infra", "report-path": "linked-reports/svc-iac-report" },
        'Input "report-path" is "linked-reports/svc-iac-report"',
      ],
      [{ command: "plan", "working-directory": "infra", "report-path": "dangling/report" }, "is a symlink to nothing"],
      [
        { command: "plan", "working-directory": "infra", "plan-file": "linked-reports/plan.json" },
        'Input "plan-file" is "linked-reports/plan.json"',
      ],
    ];
    for (const [inputs, named] of cases) {
      // WHEN the runner runs the step
      const r = await runBundle(inputs, push, platform);
      // THEN it fails with an annotation naming the input, and nothing ran
      expect(r.code, JSON.stringify(inputs)).toBe(1);
      expect(r.stdout).toContain("::error title=svc-iac%3A invalid action input::");
      expect(r.stdout).toContain(named);
      expect(r.stdout).toContain("expected a path relative to the workspace");
      expect(r.stdout).not.toContain("svc-iac plan: exit code");
      expect(r.summary).toBe("");
    }
    expect(readdirSync(outside).sort()).toEqual(["infra"]);
    expect(readdirSync(join(outside, "infra"))).toEqual(["svc.yaml"]);
    expect(existsSync(join(root, "reports"))).toBe(false);
  }, 180_000);

  it("GIVEN a report file committed as a symlink to a file outside the workspace WHEN plan runs THEN the report is not written through it and the target is untouched", async () => {
    const outside = mkdtempSync(join(root, "target-"));
    writeFileSync(join(outside, "bashrc"), "echo original\n");
    mkdirSync(join(workspace, "trap-report"), { recursive: true });
    symlinkSync(join(outside, "bashrc"), join(workspace, "trap-report", "plan.md"));
    const platform = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
    };
    const r = await runBundle(
      { command: "plan", "working-directory": "infra", "report-path": "trap-report", "detailed-exitcode": "true" },
      { GITHUB_EVENT_NAME: "push" },
      platform,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("::warning title=svc-iac::Could not write the report files: ");
    expect(r.stdout).toContain("plan.md is a symlink; the report is not written through it.");
    expect(readFileSync(join(outside, "bashrc"), "utf8")).toBe("echo original\n");
  });

  it("WHEN an input is invalid THEN it fails with an error annotation naming each bad input", async () => {
    const r = await runBundle({ command: "deploy", "max-deletions": "-1" }, { GITHUB_EVENT_NAME: "push" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '::error title=svc-iac%3A invalid action input::Input "command" is "deploy"; expected one of validate, plan, apply, drift, destroy, projects.',
    );
    expect(r.stdout).toContain('Input "max-deletions" is "-1"; expected a whole number, 0 or more.');
  });
});
