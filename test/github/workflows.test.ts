import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readActionInputs, type ActionInputs } from "../../src/github/action-inputs";

const ROOT = join(__dirname, "..", "..");
const WORKFLOW_DIR = join(ROOT, "examples", "workflows");

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string; description: string }>;
  outputs: Record<string, { value?: string; description: string }>;
  runs: { using: string; main?: string; steps?: unknown[] };
}

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
}

interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress"?: boolean };
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
}

const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYml;
const workflowFiles = readdirSync(WORKFLOW_DIR).filter((f) => f.endsWith(".yml"));
const workflows = workflowFiles.map((file) => ({
  file,
  wf: parse(readFileSync(join(WORKFLOW_DIR, file), "utf8")) as Workflow,
}));
/** The variable the runner sets for a JavaScript action's input: upper case, spaces as `_`, hyphens kept. */
const envName = (input: string) => `INPUT_${input.replace(/ /g, "_").toUpperCase()}`;

/** Steps of a workflow that use this repository as an action. */
function svcIacSteps(wf: Workflow): Step[] {
  return Object.values(wf.jobs).flatMap((job) => job.steps.filter((s) => s.uses?.startsWith("acme/svc-iac@")));
}

describe("action.yml", () => {
  it("is a JavaScript action that runs the committed bundle on Node 24, with no install or build step", () => {
    expect(action.runs).toEqual({ using: "node24", main: "dist-action/index.js" });
    expect(existsSync(join(ROOT, "dist-action", "index.js"))).toBe(true);
  });

  it("and every example workflow are valid for GitHub's own workflow parser", () => {
    const run = spawnSync(process.execPath, [join(ROOT, "scripts", "validate-actions.mjs"), "--json"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    const results = JSON.parse(run.stdout) as Record<string, string[]>;
    expect(Object.keys(results).sort()).toEqual(
      ["action.yml", ...workflowFiles.map((f) => `examples/workflows/${f}`)].sort(),
    );
    expect(results).toEqual(Object.fromEntries(Object.keys(results).map((f) => [f, []])));
    expect(run.status).toBe(0);
  });

  it("WHEN an action or workflow is broken THEN the validator names the file, line and problem and fails", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-validate-"));
    writeFileSync(
      join(dir, "action.yml"),
      readFileSync(join(ROOT, "action.yml"), "utf8").replace("using: node24", "using: node99"),
    );
    writeFileSync(
      join(dir, "plan.yml"),
      "on: push\njobs:\n  plan:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: acme/svc-iac@v1\n        run: echo\n",
    );
    const run = spawnSync(
      process.execPath,
      [join(ROOT, "scripts", "validate-actions.mjs"), "--json", join(dir, "action.yml"), join(dir, "plan.yml")],
      { cwd: dir, encoding: "utf8" },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(run.status).toBe(1);
    const results = JSON.parse(run.stdout) as Record<string, string[]>;
    expect(results["action.yml"].join("\n")).toMatch(/Line: \d+, Col: \d+\): Unexpected value 'node99'/);
    expect(results["plan.yml"].join("\n")).toMatch(/Line: 7, Col: 9\): Unexpected value 'run'/);
  });

  it("reads every input under the name the runner gives it (INPUT_ + upper case, hyphens kept)", () => {
    const samples: Record<string, [string, Partial<ActionInputs>]> = {
      // plan: apply refuses only and replace beside plan-file (a saved plan carries its own).
      command: ["plan", { command: "plan" }],
      "working-directory": ["infra", { workingDirectory: "infra" }],
      target: ["prod", { target: "prod" }],
      prune: ["true", { prune: true }],
      "max-deletions": ["3", { maxDeletions: 3 }],
      "allow-delete-all": ["true", { allowDeleteAll: true }],
      "allow-cascade": ["true", { allowCascade: true }],
      "discard-tokens": ["true", { discardTokens: true }],
      "detailed-exitcode": ["false", { detailedExitCode: false }],
      comment: ["false", { comment: false }],
      "drift-issue": ["false", { driftIssue: false }],
      "drift-issue-label": ["infra-drift", { driftIssueLabel: "infra-drift" }],
      remediate: ["true", { remediate: true }],
      "github-secrets": ["environment:prod", { githubSecrets: { kind: "environment", name: "prod" } }],
      "secrets-token": ["pat-1", { secretsToken: "pat-1" }],
      "github-token": ["ghs-1", { githubToken: "ghs-1" }],
      "report-path": ["out/report", { reportPath: "out/report" }],
      "plan-file": ["plan.json", { planFile: "plan.json" }],
      only: ["udf.listings/*\ncronjob.daily", { only: ["udf.listings/*", "cronjob.daily"] }],
      replace: ["share.listings", { replace: ["share.listings"] }],
      "changed-since": ["origin/main", { changedSince: "origin/main" }],
      targets: ["default prod", { targets: ["default", "prod"] }],
      policies: ["../rules/policies.yaml", { policies: "../rules/policies.yaml" }],
      "policies-ref": ["origin/main", { policiesRef: "origin/main" }],
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(action.inputs).sort());
    const inputs = readActionInputs(
      Object.fromEntries(Object.entries(samples).map(([name, [value]]) => [envName(name), value])),
    );
    for (const [, expected] of Object.values(samples)) expect(inputs).toMatchObject(expected);
  });

  it("has defaults the action accepts", () => {
    const env = Object.fromEntries(
      Object.entries(action.inputs)
        .filter(([, spec]) => spec.default !== undefined && !String(spec.default).includes("${{"))
        .map(([name, spec]) => [envName(name), String(spec.default)]),
    );
    expect(() => readActionInputs({ ...env, INPUT_COMMAND: "plan" })).not.toThrow();
  });

  it("declares every output the program writes", () => {
    expect(Object.keys(action.outputs).sort()).toEqual([
      "changed-since",
      "comment-url",
      "count",
      "drift-issue-url",
      "drift-pr-url",
      "exit-code",
      "has-changes",
      "has-drift",
      "matrix",
      "removed",
      "report-path",
    ]);
    for (const spec of Object.values(action.outputs)) expect(spec.description).toBeTruthy();
  });
});

describe("example workflows", () => {
  it("are the seven documented ones", () => {
    expect(workflowFiles.sort()).toEqual([
      "apply.yml",
      "drift-remediate.yml",
      "drift.yml",
      "monorepo.yml",
      "plan.yml",
      "preview.yml",
      "saved-plan.yml",
    ]);
  });

  it("monorepo detects the affected projects once, then plans, applies and checks drift per project and target in a matrix that is skipped when empty", () => {
    const { wf } = workflows.find((w) => w.file === "monorepo.yml")!;
    const jobs = wf.jobs as unknown as Record<
      string,
      { needs?: string; if?: string; strategy?: { matrix?: string }; concurrency?: { group: string }; steps: Step[] }
    >;
    expect(svcIacSteps({ ...wf, jobs: { detect: jobs.detect! } } as Workflow)[0]!.with).toMatchObject({
      command: "projects",
      comment: "combined",
    });
    for (const name of ["plan", "apply", "drift"]) {
      expect(jobs[name]!.needs).toBe("detect");
      expect(jobs[name]!.if).toContain("needs.detect.outputs.count != '0'");
      expect(jobs[name]!.strategy!.matrix).toBe("${{ fromJSON(needs.detect.outputs.matrix) }}");
    }
    expect(jobs.apply!.concurrency!.group).toContain("${{ matrix.project }}-${{ matrix.target }}");
    expect((wf as unknown as { permissions: Record<string, string> }).permissions).toMatchObject({
      checks: "write",
      "pull-requests": "write",
    });
  });

  it("preview deploys each pull request to its own target state on opened and synchronize, and destroys it on closed", () => {
    const { wf } = workflows.find((w) => w.file === "preview.yml")!;
    expect(Object.keys(wf.on)).toEqual(["pull_request"]);
    expect(wf.on.pull_request).toMatchObject({ types: expect.arrayContaining(["opened", "synchronize", "closed"]) });
    expect(wf.concurrency).toMatchObject({
      group: expect.stringContaining("github.event.pull_request.number"),
      "cancel-in-progress": false,
    });
    const jobs = wf.jobs as Record<string, { if?: string; steps: Step[] }>;
    const deploy = jobs.deploy!.steps.find((s) => s.id === "deploy")!;
    const destroy = jobs.destroy!.steps.find((s) => s.id === "destroy")!;
    expect(jobs.deploy!.if).toBe("github.event.action != 'closed'");
    expect(jobs.destroy!.if).toBe("github.event.action == 'closed'");
    expect(deploy.with).toMatchObject({ command: "apply", target: "preview" });
    expect(destroy.with).toMatchObject({ command: "destroy", target: "preview" });
    // The pull request's number names its copy (name_prefix) and its state (see examples/repo/svc.yaml).
    for (const step of [deploy, destroy]) expect(step.env?.PR_NUMBER).toBe("${{ github.event.pull_request.number }}");
    const svc = readFileSync(join(ROOT, "examples/repo/svc.yaml"), "utf8");
    expect(svc).toMatch(/ {2}preview:\n(?: {4}.*\n)*? {4}name_prefix: pr_\$\{env\.PR_NUMBER\}_\n/);
    expect(svc).toMatch(/ {4}state: \S*pr-\$\{env\.PR_NUMBER\}\n/);
  });

  it("saved-plan uploads the pull request's saved plan and applies that artifact on merge", () => {
    const { wf } = workflows.find((w) => w.file === "saved-plan.yml")!;
    expect(wf.on.pull_request).toMatchObject({ types: expect.arrayContaining(["synchronize", "closed"]) });
    const [plan, apply] = svcIacSteps(wf);
    expect(plan!.with).toMatchObject({ command: "plan", "plan-file": "svc-iac-plan/plan.json" });
    expect(apply!.with).toMatchObject({ command: "apply", "plan-file": "svc-iac-plan/plan.json" });
    const upload = wf.jobs.plan!.steps.find(
      (s) => s.uses?.startsWith("actions/upload-artifact@") && s.with?.path === "svc-iac-plan/plan.json",
    );
    const download = wf.jobs.apply!.steps.find((s) => s.uses?.startsWith("actions/download-artifact@"));
    expect(download?.with?.name).toBe(upload?.with?.name);
    expect(wf.jobs.apply!.permissions).toMatchObject({ actions: "read" });
  });

  it.each(workflowFiles)("%s passes only inputs that action.yml declares, and every required one", (file) => {
    const wf = workflows.find((w) => w.file === file)!.wf;
    const steps = svcIacSteps(wf);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      for (const name of Object.keys(step.with ?? {}))
        expect(Object.keys(action.inputs), `${file}: input "${name}"`).toContain(name);
      for (const [name, spec] of Object.entries(action.inputs))
        if (spec.required) expect(step.with, `${file}: required input "${name}"`).toHaveProperty(name);
    }
  });

  it.each(workflowFiles)("%s reads only outputs that action.yml declares", (file) => {
    const text = readFileSync(join(WORKFLOW_DIR, file), "utf8");
    const wf = workflows.find((w) => w.file === file)!.wf;
    const ids = new Set(svcIacSteps(wf).map((s) => s.id));
    for (const m of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      expect(ids.has(m[1]), `${file}: step "${m[1]}"`).toBe(true);
      expect(Object.keys(action.outputs)).toContain(m[2]);
    }
  });

  it("plan runs on pull requests with permission to comment, one run per pull request", () => {
    const { wf } = workflows.find((w) => w.file === "plan.yml")!;
    expect(Object.keys(wf.on)).toEqual(["pull_request"]);
    expect(wf.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    expect(wf.concurrency?.group).toContain("github.event.pull_request.number");
    expect(svcIacSteps(wf)[0].with).toMatchObject({ command: "plan" });
  });

  it("apply runs on push to main in a concurrency group that queues instead of cancelling", () => {
    const { wf } = workflows.find((w) => w.file === "apply.yml")!;
    expect(wf.on.push).toMatchObject({ branches: ["main"] });
    expect(wf.concurrency).toMatchObject({ group: expect.any(String), "cancel-in-progress": false });
    expect(wf.permissions).toEqual({ contents: "read" });
    const step = svcIacSteps(wf)[0];
    expect(step.with).toMatchObject({ command: "apply", "github-secrets": "environment:prod" });
    // Secrets cannot be written with the workflow's GITHUB_TOKEN.
    expect(String(step.with?.["secrets-token"])).toMatch(/^\$\{\{ secrets\.(?!GITHUB_TOKEN)/);
  });

  it("drift runs on a schedule with permission to manage issues", () => {
    const { wf } = workflows.find((w) => w.file === "drift.yml")!;
    expect(wf.on.schedule).toEqual([{ cron: expect.any(String) }]);
    expect(wf.permissions).toEqual({ contents: "read", issues: "write" });
    expect(svcIacSteps(wf)[0].with).toMatchObject({ command: "drift", "drift-issue": "true" });
  });

  it("drift-remediate runs on a schedule with remediate: true, may write the pull request's branch, the pull request and the issue, and gives the webhook's URL only through the environment", () => {
    const { wf, text } = {
      ...workflows.find((w) => w.file === "drift-remediate.yml")!,
      text: readFileSync(join(WORKFLOW_DIR, "drift-remediate.yml"), "utf8"),
    };
    expect(wf.on.schedule).toEqual([{ cron: expect.any(String) }]);
    expect(wf.permissions).toEqual({ contents: "write", "pull-requests": "write", issues: "write" });
    const step = svcIacSteps(wf)[0]!;
    expect(step.with).toMatchObject({ command: "drift", remediate: "true", "drift-issue": "true" });
    expect(step.env?.CHAT_WEBHOOK_URL).toBe("${{ secrets.CHAT_WEBHOOK_URL }}");
    expect(text).not.toMatch(/hooks\.slack\.com|https:\/\/[^\s]*webhook/i);
  });

  it.each(workflowFiles)("%s uploads the report folder as an artifact", (file) => {
    const wf = workflows.find((w) => w.file === file)!.wf;
    const upload = Object.values(wf.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    expect(String(upload?.with?.path)).toMatch(/steps\.\w+\.outputs\.report-path/);
  });
});
