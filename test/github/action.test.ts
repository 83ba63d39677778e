import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAction, type CommandFunctions } from "../../src/github/action";
import { planMarker } from "../../src/github/markers";
import { COMMENT_MAX_CHARS } from "../../src/github/pr-comment";
import type { CommandOptions, CommandResult } from "../../src/reconcile/commands/command-types";
import type { ApplyReport } from "../../src/reconcile/plan/plan-model";
import { driftOf, planCreatingUdfs, startFakeGithub, type FakeGithub } from "../helpers/fake-github";

/** Secrets planted in the environment and in what the fake commands produce; none may leak. */
const GITHUB_TOKEN = "ghs_plantedGithubToken0123456789";
const SECRETS_TOKEN = "github_pat_plantedSecretsWriter987";
const SVC_TOKEN = "svc_user_plantedPlatformToken4242";
const NEW_TOKEN = "svc_sa_freshlyRotatedToken_5f4e3d2c";

let gh: FakeGithub;
let workspace: string;
let prNumber: number;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  seen: CommandOptions[];
}

beforeEach(async () => {
  gh = await startFakeGithub();
  prNumber = gh.addPullRequest();
  workspace = await mkdtemp(join(tmpdir(), "svc-iac-action-"));
  await mkdir(join(workspace, "infra"));
  await writeFile(join(workspace, "infra", "svc.yaml"), "project: listings\n");
  await writeFile(
    join(workspace, "event.json"),
    JSON.stringify({ pull_request: { number: prNumber, head: { sha: "0123456789abcdef" } } }),
  );
});
afterEach(async () => {
  await gh.close();
});

function baseEnv(inputs: Record<string, string>, event = "pull_request"): Record<string, string> {
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "42",
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: join(workspace, "event.json"),
    GITHUB_SHA: "fedcba9876543210",
    GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
    GITHUB_OUTPUT: join(workspace, "output"),
    GITHUB_WORKSPACE: workspace,
    GITHUB_TOKEN,
    SVC_TOKEN,
    INPUT_WORKING_DIRECTORY: "infra",
    INPUT_GITHUB_TOKEN: GITHUB_TOKEN,
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, "_")}`] = value;
  return env;
}

/** Fake command functions: each returns what `respond` gives and records the options it saw. */
function fakeCommands(
  respond: (command: string, opts: CommandOptions) => Promise<CommandResult> | CommandResult,
  seen: CommandOptions[],
): CommandFunctions {
  const wrap = (command: string) => async (opts: CommandOptions) => {
    seen.push(opts);
    return respond(command, opts);
  };
  return {
    validateCommand: wrap("validate"),
    planCommand: wrap("plan"),
    applyCommand: wrap("apply"),
    driftCommand: wrap("drift"),
    destroyCommand: wrap("destroy"),
  };
}

async function run(
  inputs: Record<string, string>,
  respond: (command: string, opts: CommandOptions) => Promise<CommandResult> | CommandResult,
  event?: string,
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const seen: CommandOptions[] = [];
  const env = baseEnv(inputs, event);
  await writeFile(env.GITHUB_OUTPUT, "");
  const code = await runAction({
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    deps: { commands: fakeCommands(respond, seen) },
  });
  const outputs = Object.fromEntries(
    (await readFile(env.GITHUB_OUTPUT, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const summary = await readFile(env.GITHUB_STEP_SUMMARY, "utf8").catch(() => "");
  return { code, stdout, stderr, outputs, summary, seen };
}

const planResult = (count: number, exitCode: 0 | 2 = count > 0 ? 2 : 0): CommandResult => ({
  command: "plan",
  exitCode,
  errors: [],
  plan: planCreatingUdfs(count),
});

describe("the action on a pull request", () => {
  it("posts the plan comment, then edits it on the next run instead of adding one", async () => {
    const first = await run({ command: "plan" }, () => planResult(1));
    const second = await run({ command: "plan" }, () => planResult(3));

    const marked = gh.comments.filter((c) => c.body.startsWith(planMarker("listings", "default")));
    expect(marked).toHaveLength(1);
    expect(marked[0].body).toContain("udf.sales/loader_00002");
    expect(marked[0].body).toContain("for 0123456");
    expect(marked[0].body).toContain("https://github.com/acme/infra/actions/runs/42");
    expect(gh.writes().map((c) => c.method)).toEqual(["POST", "PATCH"]);
    expect(first.outputs["comment-url"]).toBe(second.outputs["comment-url"]);
  });

  it("cuts an oversized plan comment below the limit and links the full report", async () => {
    const r = await run({ command: "plan" }, () => planResult(3000));
    const body = gh.comments[0].body;
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body).toMatch(/shortened to fit|cut to fit/i);
    expect(body).toContain("https://github.com/acme/infra/actions/runs/42");
    // The full plan is in the report folder, uncut.
    const full = await readFile(join(r.outputs["report-path"], "plan.md"), "utf8");
    expect(full).toContain("udf.sales/loader_02999");
    expect(JSON.parse(await readFile(join(r.outputs["report-path"], "plan.json"), "utf8")).actions).toHaveLength(3000);
  });

  it("does not comment when comments are switched off or the event is not a pull request", async () => {
    await run({ command: "plan", comment: "false" }, () => planResult(1));
    await run({ command: "plan" }, () => planResult(1), "push");
    expect(gh.calls).toEqual([]);
  });

  it("reports a failure to comment as a warning and keeps the exit code", async () => {
    gh.failNext("POST", `/issues/${prNumber}/comments`, 403, "Resource not accessible by integration");
    const r = await run({ command: "plan" }, () => planResult(1));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /::warning title=svc-iac::Could not post the plan comment: Resource not accessible by integration.*pull-requests: write/,
    );
  });

  it("warns, and keeps the exit code, when the job summary cannot be written", async () => {
    await mkdir(join(workspace, "summary.md"));
    const r = await run({ command: "plan" }, () => planResult(1));
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("::warning title=svc-iac::Could not write the job summary");
    expect(gh.comments).toHaveLength(1);
  });

  it("turns validation errors into annotations on the right files and comments the failure", async () => {
    const r = await run({ command: "plan" }, () => ({
      command: "plan",
      exitCode: 1,
      errors: [
        {
          file: "canvases/sales/canvas.yaml",
          line: 7,
          column: 5,
          path: "share.rotate_every",
          message: 'expected a duration such as "30d", found "weekly"',
        },
        {
          file: "canvases/sales/loader.py",
          line: 2,
          column: 1,
          path: "",
          message: "the UDF has no function named udf",
        },
      ],
    }));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '::error file=infra/canvases/sales/canvas.yaml,line=7,col=5,title=svc-iac%3A invalid configuration::share.rotate_every: expected a duration such as "30d", found "weekly"\n',
    );
    expect(r.stdout).toContain("::error file=infra/canvases/sales/loader.py,line=2,col=1,");
    // The project comes from svc.yaml, so the failure lands in the same comment a good plan uses.
    expect(gh.comments[0].body.startsWith(planMarker("listings", "default"))).toBe(true);
    expect(gh.comments[0].body).toContain("canvases/sales/canvas.yaml:7:5: share.rotate_every");
    expect(r.outputs).toMatchObject({ "exit-code": "1", "has-changes": "false" });
  });
});

describe("exit codes and outputs", () => {
  it.each([
    [0, "false"],
    [2, "true"],
  ] as const)("passes plan exit code %i through unchanged, with has-changes %s", async (exitCode, hasChanges) => {
    const r = await run({ command: "plan" }, () => planResult(exitCode === 2 ? 2 : 0, exitCode));
    expect(r.code).toBe(exitCode);
    expect(r.outputs).toEqual({
      "exit-code": String(exitCode),
      "has-changes": hasChanges,
      "has-drift": "false",
      "report-path": join(workspace, "svc-iac-report"),
      "comment-url": expect.stringContaining("#issuecomment-"),
    });
  });

  it("passes exit code 1 through when the command fails", async () => {
    const r = await run({ command: "plan" }, () => ({
      command: "plan",
      exitCode: 1,
      errors: [],
      message: "Could not reach the platform at https://svc.example: connection refused",
    }));
    expect(r.code).toBe(1);
    expect(r.outputs["exit-code"]).toBe("1");
    expect(r.stdout).toContain(
      "::error title=svc-iac plan::Could not reach the platform at https://svc.example: connection refused",
    );
  });

  it("turns an exception from the command into exit code 1 with an error annotation, outputs still written", async () => {
    const r = await run({ command: "plan" }, () => {
      throw new Error("boom");
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("::error title=svc-iac::svc-iac plan failed: boom");
    expect(r.outputs["exit-code"]).toBe("1");
  });

  it("asks for no detailed exit code by default (a plan with changes keeps the check green), and for one when detailed-exitcode is true", async () => {
    const off = await run({ command: "plan" }, () => planResult(0));
    const on = await run({ command: "plan", "detailed-exitcode": "true" }, () => planResult(0));
    expect(on.seen[0].detailedExitCode).toBe(true);
    expect(off.seen[0].detailedExitCode).toBe(false);
  });

  it("rejects bad inputs all at once with exit code 1 and runs nothing", async () => {
    const r = await run({ command: "deploy", prune: "yes", "github-secrets": "org" }, () => planResult(0));
    expect(r.code).toBe(1);
    expect(r.seen).toEqual([]);
    expect(r.stdout).toContain(
      'Input "command" is "deploy"; expected one of validate, plan, apply, drift, destroy, projects.',
    );
    expect(r.stdout).toContain('Input "prune" is "yes"; expected true or false.');
    expect(r.stdout).toContain('Input "github-secrets" is "org"');
  });

  it("takes max-deletions as digits only, as the command line does", async () => {
    for (const bad of ["1e3", "0x10", "-1", "2.5"]) {
      const r = await run({ command: "plan", "max-deletions": bad }, () => planResult(0));
      expect(r.code, bad).toBe(1);
      expect(r.seen).toEqual([]);
      expect(r.stdout).toContain(`Input "max-deletions" is "${bad}"; expected a whole number, 0 or more.`);
    }
  });

  it("runs the command in the working directory with the inputs, and without GitHub credentials in its environment", async () => {
    const r = await run({ command: "plan", target: "prod", prune: "true", "max-deletions": "3" }, () => planResult(0));
    const opts = r.seen[0];
    expect(opts).toMatchObject({ dir: join(workspace, "infra"), target: "prod", prune: true, maxDeletions: 3 });
    expect(opts.env.SVC_TOKEN).toBe(SVC_TOKEN);
    expect(opts.env.GITHUB_TOKEN).toBeUndefined();
    expect(Object.keys(opts.env).filter((k) => k.startsWith("INPUT_"))).toEqual([]);
  });

  it("with plan-file, has plan write the saved plan there and apply execute exactly that file", async () => {
    const plan = await run({ command: "plan", "plan-file": "svc-iac-plan/plan.json" }, () => planResult(1));
    expect(plan.seen[0]).toMatchObject({ planOut: join(workspace, "svc-iac-plan/plan.json") });
    expect(plan.seen[0].planFile).toBeUndefined();
    const apply = await run({ command: "apply", "plan-file": "svc-iac-plan/plan.json" }, () => ({
      command: "apply",
      exitCode: 0,
      errors: [],
    }));
    expect(apply.seen[0]).toMatchObject({ planFile: join(workspace, "svc-iac-plan/plan.json") });
    expect(apply.seen[0].planOut).toBeUndefined();
  });

  it("passes only and replace (separated by spaces or newlines) to plan and apply, and refuses them beside plan-file on apply", async () => {
    const r = await run(
      { command: "apply", only: "udf.listings/*\n  cronjob.daily", replace: "share.listings" },
      () => ({ command: "apply", exitCode: 0, errors: [] }),
    );
    expect(r.seen[0]).toMatchObject({ only: ["udf.listings/*", "cronjob.daily"], replace: ["share.listings"] });
    const none = await run({ command: "plan" }, () => planResult(0));
    expect(none.seen[0].only).toBeUndefined();
    const bad = await run({ command: "apply", "plan-file": "plan.json", only: "canvas.a" }, () => ({
      command: "apply",
      exitCode: 0,
      errors: [],
    }));
    expect(bad.code).toBe(1);
    expect(bad.seen).toEqual([]);
    expect(bad.stdout).toContain('Input "only" cannot be combined with "plan-file" on apply');
  });

  it("with command destroy and allow-cascade, runs destroy with allowCascade and no token destination", async () => {
    const calls: string[] = [];
    const r = await run({ command: "destroy", "allow-cascade": "true" }, (command) => {
      calls.push(command);
      return { command: "destroy", exitCode: 0, errors: [] };
    });
    expect(calls).toEqual(["destroy"]);
    expect(r.code).toBe(0);
    expect(r.seen[0]).toMatchObject({ allowCascade: true });
    expect(r.seen[0].publishers).toBeUndefined();
  });

  it("writes the job summary with the plan", async () => {
    const r = await run({ command: "plan" }, () => planResult(2));
    expect(r.summary).toContain("| Action | Count |");
    expect(r.summary).toContain("udf.sales/loader_00001");
  });
});

describe("apply", () => {
  const applyReport = (): ApplyReport => ({
    version: 1,
    project: "listings",
    target: "default",
    ok: true,
    results: [{ address: "service_account.ci", kind: "ServiceAccount", action: "rotate", status: "done", id: "sa_1" }],
    counts: { done: 1, failed: 0, skipped: 0 },
    published: [{ address: "service_account.ci", to: ["GitHub Actions secrets"] }],
  });

  async function applyPublishing(inputs: Record<string, string>): Promise<Run> {
    return run({ command: "apply", ...inputs }, async (_command, opts) => {
      for (const p of opts.publishers ?? [])
        await p.publish({
          address: "service_account.ci",
          kind: "ServiceAccount",
          name: "SVC_SERVICE_ACCOUNT_CI_TOKEN",
          token: NEW_TOKEN,
        });
      // A careless message carrying the token: the action's redaction must catch it.
      opts.log?.(`rotated service_account.ci, new token ${NEW_TOKEN}`);
      return { command: "apply", exitCode: 0, errors: [], plan: planCreatingUdfs(1), report: applyReport() };
    });
  }

  it("writes a rotated token to an environment secret, sealed so that only the key holder can read it", async () => {
    const r = await applyPublishing({ "github-secrets": "environment:prod", "secrets-token": SECRETS_TOKEN });
    expect(r.code).toBe(0);
    expect(gh.decryptSecret("SVC_SERVICE_ACCOUNT_CI_TOKEN", "prod")).toBe(NEW_TOKEN);
    const put = gh.calls.find((c) => c.method === "PUT")!;
    expect(put.authorization).toBe(`token ${SECRETS_TOKEN}`);
    expect(r.stdout).toContain(`::add-mask::${NEW_TOKEN}\n`);
    // The mask comes before anything else that mentions the rotation.
    expect(r.stdout.indexOf("::add-mask::")).toBeLessThan(r.stdout.indexOf("service_account.ci"));
  });

  it("publishes the apply report to the job summary", async () => {
    const r = await applyPublishing({ "github-secrets": "repository", "secrets-token": SECRETS_TOKEN });
    expect(r.summary).toContain("### Apply `listings` (`default`): complete");
    expect(r.summary).toContain("Apply complete: 1 done, 0 failed, 0 skipped.");
    expect(gh.decryptSecret("SVC_SERVICE_ACCOUNT_CI_TOKEN")).toBe(NEW_TOKEN);
  });

  it("leaks no token: not in any request body but the sealed secret, nor in the log, summary or report files", async () => {
    const r = await applyPublishing({ "github-secrets": "repository", "secrets-token": SECRETS_TOKEN });
    const planted = [GITHUB_TOKEN, SECRETS_TOKEN, SVC_TOKEN, NEW_TOKEN];
    for (const call of gh.calls) {
      for (const secret of planted) expect(`${call.path}\n${call.body}`).not.toContain(secret);
    }
    const logWithoutMask = r.stdout
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    const reportDir = r.outputs["report-path"];
    const files = [
      await readFile(join(reportDir, "apply.md"), "utf8"),
      await readFile(join(reportDir, "apply.json"), "utf8"),
    ];
    for (const secret of planted) {
      for (const text of [
        logWithoutMask,
        r.stderr,
        r.summary,
        ...files,
        await readFile(join(workspace, "output"), "utf8"),
      ])
        expect(text).not.toContain(secret);
    }
    expect(r.stderr).toContain("new token [REDACTED]");
  });

  it("groups the objects created on one canvas in the log and the summary, and lists each in the report file", async () => {
    const slugs = Array.from({ length: 40 }, (_, i) => `u${String(i).padStart(5, "0")}`);
    const actions = slugs.map((slug) => ({
      address: `udf.sales/${slug}`,
      kind: "Udf" as const,
      action: "create" as const,
      fields: [],
      notes: [],
      references: ["canvas.sales"],
    }));
    const plan = { ...planCreatingUdfs(0), actions, summary: { ...planCreatingUdfs(0).summary, create: 40 } };
    const results = actions.map((a, i) => ({
      address: a.address,
      kind: a.kind,
      action: a.action,
      status: "done" as const,
      id: `udf_${i}`,
    }));
    const report = {
      version: 1 as const,
      project: "listings",
      target: "default",
      ok: true,
      results,
      counts: { done: 40, failed: 0, skipped: 0 },
      published: [],
    };
    const r = await run({ command: "apply" }, () => ({ command: "apply", exitCode: 0, errors: [], plan, report }));
    expect(r.code).toBe(0);
    for (const shown of [r.stdout, r.summary]) {
      expect(shown).toContain("✓ created 40 UDFs on canvas.sales (u00000 … u00039)");
      expect(shown).toContain("(40 objects shown in groups; the report files list every object.)");
      expect(shown).not.toContain("✓ created udf.sales/u00007");
    }
    const full = await readFile(join(r.outputs["report-path"], "apply.md"), "utf8");
    expect(full).toContain("✓ created udf.sales/u00007 (id udf_7)");
    expect(full).not.toContain("shown in groups");
  });

  it("gives the command no token destination when github-secrets is none, so its guard can stop a lost token", async () => {
    const r = await run({ command: "apply" }, () => ({
      command: "apply",
      exitCode: 0,
      errors: [],
      report: applyReport(),
    }));
    expect(r.seen[0].publishers).toEqual([]);
  });

  it("fails clearly when secrets are asked for without any token", async () => {
    let stdout = "";
    const env = baseEnv({ command: "apply", "github-secrets": "repository" });
    delete env.INPUT_GITHUB_TOKEN;
    delete env.GITHUB_TOKEN;
    const code = await runAction({
      env,
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => true },
      deps: { commands: fakeCommands(() => planResult(0), []) },
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/needs a token that may write secrets in "secrets-token"/);
  });
});

describe("drift", () => {
  const drift = (addresses: string[]): CommandResult => ({
    command: "drift",
    exitCode: addresses.length ? 2 : 0,
    errors: [],
    drift: driftOf(addresses, "listings", "default"),
  });

  it("opens the drift issue, stays quiet on the same drift, closes it when clean, with outputs", async () => {
    const opened = await run(
      { command: "drift", "detailed-exitcode": "true" },
      () => drift(["canvas.sales"]),
      "schedule",
    );
    expect(opened.code).toBe(2);
    expect(opened.outputs).toMatchObject({
      "exit-code": "2",
      "has-drift": "true",
      "drift-issue-url": expect.stringContaining("/issues/"),
    });
    expect(gh.issues.filter((i) => !i.isPullRequest && i.state === "open")).toHaveLength(1);
    expect(opened.summary).toContain("canvas.sales");
    // The summary and the issue get Markdown; the log shows the text report a terminal shows.
    expect(opened.summary).toContain("| Drift | Count |");
    const issue = gh.issues.find((i) => !i.isPullRequest && i.state === "open")!;
    expect(issue.body).toContain("| Drift | Count |");
    expect(opened.stdout).toContain("Drift in listings (default): 1 changed.");
    expect(opened.stdout).not.toContain("| Drift | Count |");

    const writes = gh.writes().length;
    await run({ command: "drift" }, () => drift(["canvas.sales"]), "schedule");
    expect(gh.writes().length).toBe(writes);

    const clean = await run({ command: "drift" }, () => drift([]), "schedule");
    expect(clean.code).toBe(0);
    expect(clean.outputs["has-drift"]).toBe("false");
    expect(gh.issues.filter((i) => !i.isPullRequest).map((i) => i.state)).toEqual(["closed"]);
  });

  it("exits 0 on drift by default (detailed-exitcode false), has-drift still true, errors still 1", async () => {
    const quiet = await run({ command: "drift" }, () => drift(["canvas.sales"]), "schedule");
    expect(quiet.code).toBe(0);
    expect(quiet.outputs).toMatchObject({ "exit-code": "0", "has-drift": "true" });
    const failed = await run(
      { command: "drift", "detailed-exitcode": "false" },
      () => ({ command: "drift", exitCode: 1, errors: [], message: "platform unreachable" }),
      "schedule",
    );
    expect(failed.code).toBe(1);
  });

  it("leaves the issue alone when the drift check itself failed", async () => {
    await run({ command: "drift" }, () => drift(["canvas.sales"]), "schedule");
    const writes = gh.writes().length;
    const r = await run(
      { command: "drift" },
      () => ({ command: "drift", exitCode: 1, errors: [], message: "platform unreachable" }),
      "schedule",
    );
    expect(r.code).toBe(1);
    expect(gh.writes().length).toBe(writes);
  });
});

describe("the log", () => {
  it("prints the plan with workflow commands switched off, so text from the repository cannot issue commands", async () => {
    const plan = planCreatingUdfs(1);
    plan.warnings.push("::add-mask::ghost");
    plan.actions[0].address = "udf.sales/::error::injected";
    const r = await run({ command: "plan" }, () => ({ command: "plan", exitCode: 2, errors: [], plan }));
    const stop = /::stop-commands::(\S+)\n/.exec(r.stdout);
    expect(stop).not.toBeNull();
    const start = r.stdout.indexOf(stop![0]);
    const end = r.stdout.indexOf(`::${stop![1]}::`);
    expect(r.stdout.indexOf("::error::injected")).toBeGreaterThan(start);
    expect(r.stdout.indexOf("::error::injected")).toBeLessThan(end);
  });
});
