/**
 * Policy as code, end to end (issue #43's done-when): a repository with the starter rules refuses a
 * public canvas without a passcode at validate and plan (exit 1, the rule and the canvas's file and
 * line named), warns for an advisory rule (exit 0), lists the results in the JSON plan and the saved
 * plan, and a pull request that deletes the passcode rule is still refused by its base branch's rules.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { STARTER_POLICIES } from "../../src/policy/starter";
import { runInProcess as run } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { emulatorEnv } from "../helpers/repo";
import { planDocumentErrors, planSchemaErrors } from "../helpers/saved-plan";

const PASSCODE = "policy-passcode-secret-91c2";

/** A repository (a git work tree with one commit) holding the starter rules and a canvas `x`. */
function repository(canvas: string, udf?: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-policy-")), "repo");
  mkdirSync(join(dir, "canvases", "x"), { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), "project: policy_demo\n");
  writeFileSync(join(dir, "canvases", "x", "canvas.yaml"), canvas);
  if (udf) writeFileSync(join(dir, "canvases", "x", "Loader.py"), udf);
  writeFileSync(join(dir, "policies.yaml"), STARTER_POLICIES);
  git(dir, "init", "-q", "-b", "main");
  commit(dir, "starter rules");
  return dir;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });
}
const commit = (dir: string, message: string) => {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
};

const PUBLIC = "access_scope: public\n";

describe("GIVEN a repository with the starter rules and a public canvas without a passcode", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = repository(PUBLIC);
    env = emulatorEnv(fx.emu, { POLICY_PASSCODE: PASSCODE });
  });

  it("WHEN validate runs THEN it exits 1 naming the rule, canvases/x/canvas.yaml:line and the rule's line in policies.yaml", async () => {
    const r = await run("validate", [dir], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "canvases/x/canvas.yaml:1:1: error: policy rule public-canvas-needs-passcode (policies.yaml:3): canvas.x: canvas.x is public without a passcode",
    );
    expect(r.stdout).not.toContain("Valid");
  });

  it("WHEN plan runs THEN it exits 1 naming the rule and the canvas's file and line, and plan --json lists the results", async () => {
    const r = await run("plan", [dir], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "Policy rule public-canvas-needs-passcode (policies.yaml:3): canvas.x (canvases/x/canvas.yaml:1:1): canvas.x is public without a passcode",
    );
    expect(r.stdout).toContain("✗ public-canvas-needs-passcode  canvas.x (canvases/x/canvas.yaml:1:1)");
    const json = await run("plan", [dir, "--json"], env);
    expect(json.code).toBe(1);
    const plan = JSON.parse(json.stdout);
    expect(plan.policy).toMatchObject({ origin: "policies.yaml", stage: "plan", violations: 1 });
    expect(plan.policy.results[0]).toMatchObject({
      rule: "public-canvas-needs-passcode",
      severity: "mandatory",
      address: "canvas.x",
      source: { file: "canvases/x/canvas.yaml", line: 1 },
      rule_source: { file: "policies.yaml", line: 3 },
    });
    expect(plan.blocks.map((b: { rule: string }) => b.rule)).toContain("policy");
    expect(planDocumentErrors(plan)).toEqual([]);
  });

  it("WHEN apply runs THEN it stops before any change (exit 1) on the same rule", async () => {
    const r = await run("apply", [dir, "--auto-approve"], env);
    expect(r.code).toBe(1);
    expect(r.log).toContain("public-canvas-needs-passcode");
    const names = (await fx.user.canvases.listSelf().toArray()).map((c) => c.name);
    expect(names).not.toContain("x");
  });

  it("WHEN a pull request deletes the passcode rule from policies.yaml THEN plan --policies-ref main still refuses the canvas, and the rule change is shown for review", async () => {
    const rules = STARTER_POLICIES.replace(
      / {2}- name: public-canvas-needs-passcode[\s\S]*?severity: mandatory\n\n/,
      "",
    );
    expect(rules).not.toContain("public-canvas-needs-passcode");
    git(dir, "checkout", "-q", "-b", "weaken");
    writeFileSync(join(dir, "policies.yaml"), rules);
    commit(dir, "drop the passcode rule");
    // The pull request's own rules would let it through…
    expect((await run("validate", [dir], env)).code).toBe(0);
    // …the base branch's do not.
    const r = await run("plan", [dir, "--policies-ref", "main"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Policy rule public-canvas-needs-passcode (policies.yaml (at main):3)");
    expect(r.stdout).toContain("policies.yaml differs from main's (removed public-canvas-needs-passcode)");
    const v = await run("validate", [dir, "--policies-ref", "main"], env);
    expect(v.code).toBe(1);
  });
});

describe("GIVEN the starter rules and a public canvas with a passcode, and a UDF whose name is not snake_case", () => {
  const fx = useEmulator();

  it("WHEN validate, plan and apply run THEN the advisory rule warns with exit 0, the passcode never shows, and the saved plan records the results and the rules", async () => {
    const dir = repository(`${PUBLIC}passcode: \${env.POLICY_PASSCODE}\n`, "@fused.udf\ndef udf():\n    return 1\n");
    const env = emulatorEnv(fx.emu, { POLICY_PASSCODE: PASSCODE });
    const v = await run("validate", [dir], env);
    expect(v.code, v.log).toBe(0);
    expect(v.stderr).toContain("warning: policy rule udf-names (policies.yaml:27): udf.x/Loader");
    const p = await run("plan", [dir, "--out", join(dir, "..", "plan.json")], env);
    expect(p.code, p.log).toBe(0);
    expect(p.stdout).toContain("! udf-names (advisory)  udf.x/Loader");
    const saved = JSON.parse(readFileSync(join(dir, "..", "plan.json"), "utf8"));
    expect(saved.policies).toMatchObject({ origin: "policies.yaml" });
    expect(saved.plan.policy.warnings).toBe(1);
    expect(planSchemaErrors(saved)).toEqual([]);
    for (const out of [v.log, p.log, readFileSync(join(dir, "..", "plan.json"), "utf8")])
      expect(out).not.toContain(PASSCODE);
    // The saved plan under other rules: refused as stale, naming the rules file.
    const other = join(dir, "..", "other-rules.yaml");
    writeFileSync(other, STARTER_POLICIES.replace("at most 20", "at most 20 (stricter)"));
    const stale = await run("apply", [dir, "--plan", join(dir, "..", "plan.json"), "--policies", other], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("Saved plan is stale");
    expect(stale.stderr).toContain(`the rules of ${other} differ`);
    const a = await run("apply", [dir, "--plan", join(dir, "..", "plan.json")], env);
    expect(a.code, a.log).toBe(0);
  });
});

describe("GIVEN a team canvas applied under the starter rules, then made public by hand on the platform", () => {
  const fx = useEmulator();

  it("WHEN drift runs THEN it exits 2, reporting the changed canvas and the mandatory rule the platform's canvas breaks", async () => {
    const dir = repository("access_scope: team\n");
    const env = emulatorEnv(fx.emu);
    expect((await run("apply", [dir, "--auto-approve"], env)).code).toBe(0);
    const [canvas] = (await fx.user.canvases.listSelf().toArray()).filter((c) => c.name === "x");
    await fx.user.canvases.update(canvas!.id, { name: "x", access_scope: "public" });
    const r = await run("drift", [dir], env);
    expect(r.code, r.log).toBe(2);
    expect(r.stdout).toContain("✗ public-canvas-needs-passcode  canvas.x (canvases/x/canvas.yaml:1:1)");
    const json = JSON.parse((await run("drift", [dir, "--format", "json"], env)).stdout);
    expect(json.policy).toMatchObject({ stage: "drift", violations: 1 });
  });
});

describe("GIVEN drift --remediate under the starter rules", () => {
  const fx = useEmulator();

  it("WHEN a team canvas with on_drift: keep is made public by hand THEN its platform version is not written into the repository: reported with the rule, exit 2", async () => {
    const dir = repository("access_scope: team\non_drift: keep\n");
    const env = emulatorEnv(fx.emu);
    expect((await run("apply", [dir, "--auto-approve"], env)).code).toBe(0);
    const [canvas] = (await fx.user.canvases.listSelf().toArray()).filter((c) => c.name === "x");
    await fx.user.canvases.update(canvas!.id, { name: "x", access_scope: "public" });
    const r = await run("drift", [dir, "--remediate"], env);
    expect(r.code, r.log).toBe(2);
    expect(r.stdout).toContain(
      "not kept: the platform's version breaks the policy rule public-canvas-needs-passcode (policies.yaml:3): canvas.x is public without a passcode",
    );
    expect(r.stdout).toContain("✗ public-canvas-needs-passcode  canvas.x (canvases/x/canvas.yaml:1:1)");
    expect(readFileSync(join(dir, "canvases", "x", "canvas.yaml"), "utf8")).toBe(
      "access_scope: team\non_drift: keep\n",
    );
    const json = JSON.parse((await run("drift", [dir, "--remediate", "--json"], env)).stdout);
    expect(json.kept).toEqual([]);
    expect(json.policy).toMatchObject({ stage: "drift", violations: 1 });
  });

  it("WHEN a public canvas applied before the passcode rule existed (on_drift: restore) is changed by hand THEN the repository's version is not restored: exit 1 naming the rule, the platform left as it is", async () => {
    const dir = repository(`${PUBLIC}on_drift: restore\n`);
    const env = emulatorEnv(fx.emu);
    const none = join(dir, "..", "no-rules.yaml");
    writeFileSync(none, "rules: []\n");
    expect((await run("apply", [dir, "--auto-approve", "--policies", none], env)).code).toBe(0);
    const [canvas] = (await fx.user.canvases.listSelf().toArray()).filter((c) => c.name === "x");
    await fx.user.canvases.update(canvas!.id, { name: "x", access_scope: "team" });
    const r = await run("drift", [dir, "--remediate"], env);
    expect(r.code, r.log).toBe(1);
    expect(r.stderr).toContain("Nothing was restored: Policy rule public-canvas-needs-passcode (policies.yaml:3)");
    const [after] = (await fx.user.canvases.listSelf().toArray()).filter((c) => c.name === "x");
    expect(after!.access_scope).toBe("team");
  });
});
