import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readActionInputs } from "../../src/github/action-inputs";

const ROOT = join(__dirname, "..", "..");
const WORKFLOW_DIR = join(ROOT, "examples", "workflows");

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string; description: string }>;
  outputs: Record<string, { value: string; description: string }>;
  runs: { using: string; steps: { id?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, unknown> }[] };
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
const workflows = workflowFiles.map((file) => ({ file, wf: parse(readFileSync(join(WORKFLOW_DIR, file), "utf8")) as Workflow }));
const runStep = action.runs.steps.find((s) => s.id === "run")!;
const envName = (input: string) => `INPUT_${input.toUpperCase().replace(/-/g, "_")}`;

/** Steps of a workflow that use this repository as an action. */
function svcIacSteps(wf: Workflow): Step[] {
  return Object.values(wf.jobs).flatMap((job) => job.steps.filter((s) => s.uses?.startsWith("acme/svc-iac@")));
}

describe("action.yml", () => {
  it("is a composite action that sets up Node 24, builds, then runs the action command", () => {
    expect(action.runs.using).toBe("composite");
    const setup = action.runs.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    expect(setup?.with).toEqual({ "node-version": 24 });
    expect(action.runs.steps.some((s) => s.run?.includes("npm ci") && s.run.includes("npm run build"))).toBe(true);
    expect(runStep.run).toBe('node "${{ github.action_path }}/dist/cli/main.js" action');
    expect(runStep.shell).toBe("bash");
  });

  it("passes every input to the program as INPUT_<NAME>, and nothing else", () => {
    const expected = Object.fromEntries(Object.keys(action.inputs).map((name) => [envName(name), `\${{ inputs.${name} }}`]));
    expect(runStep.env).toEqual(expected);
  });

  it("never splices an input into a shell script", () => {
    for (const step of action.runs.steps) expect(step.run ?? "").not.toMatch(/\$\{\{\s*inputs\./);
  });

  it("has defaults the action accepts", () => {
    const env = Object.fromEntries(
      Object.entries(action.inputs)
        .filter(([, spec]) => spec.default !== undefined && !String(spec.default).includes("${{"))
        .map(([name, spec]) => [envName(name), String(spec.default)]),
    );
    expect(() => readActionInputs({ ...env, INPUT_COMMAND: "plan" })).not.toThrow();
  });

  it("maps every output from the step of the same name", () => {
    for (const [name, spec] of Object.entries(action.outputs)) expect(spec.value).toBe(`\${{ steps.run.outputs.${name} }}`);
    expect(Object.keys(action.outputs).sort()).toEqual(["comment-url", "drift-issue-url", "exit-code", "has-changes", "has-drift", "report-path"]);
  });
});

describe("example workflows", () => {
  it("are the five documented ones", () => {
    expect(workflowFiles.sort()).toEqual(["apply.yml", "drift.yml", "plan.yml", "preview.yml", "saved-plan.yml"]);
  });

  it("preview deploys each pull request to its own target state on opened and synchronize, and destroys it on closed", () => {
    const { wf } = workflows.find((w) => w.file === "preview.yml")!;
    expect(Object.keys(wf.on)).toEqual(["pull_request"]);
    expect(wf.on.pull_request).toMatchObject({ types: expect.arrayContaining(["opened", "synchronize", "closed"]) });
    expect(wf.concurrency).toMatchObject({ group: expect.stringContaining("github.event.pull_request.number"), "cancel-in-progress": false });
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
    const upload = wf.jobs.plan!.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@") && s.with?.path === "svc-iac-plan/plan.json");
    const download = wf.jobs.apply!.steps.find((s) => s.uses?.startsWith("actions/download-artifact@"));
    expect(download?.with?.name).toBe(upload?.with?.name);
    expect(wf.jobs.apply!.permissions).toMatchObject({ actions: "read" });
  });

  it.each(workflowFiles)("%s passes only inputs that action.yml declares, and every required one", (file) => {
    const wf = workflows.find((w) => w.file === file)!.wf;
    const steps = svcIacSteps(wf);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      for (const name of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${file}: input "${name}"`).toContain(name);
      for (const [name, spec] of Object.entries(action.inputs)) if (spec.required) expect(step.with, `${file}: required input "${name}"`).toHaveProperty(name);
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

  it.each(workflowFiles)("%s uploads the report folder as an artifact", (file) => {
    const wf = workflows.find((w) => w.file === file)!.wf;
    const upload = Object.values(wf.jobs).flatMap((j) => j.steps).find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    expect(String(upload?.with?.path)).toMatch(/steps\.\w+\.outputs\.report-path/);
  });
});
