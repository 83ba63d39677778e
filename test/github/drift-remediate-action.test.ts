/**
 * The action's `command: drift` with `remediate: true`, end to end: the real commands against the
 * emulator, GitHub answered by the fake server. A `keep` object becomes one pull request on the
 * branch `svc-iac/drift/<target>`, made through the git data API; the drift issue lists only
 * what remains; a second run with nothing new writes nothing to GitHub.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAction } from "../../src/github/action";
import * as reconcileCommands from "../../src/reconcile/commands";
import { destroyCommand } from "../../src/reconcile/commands/destroy";
import { useEmulator } from "../helpers/emulator";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";

const commands = { ...reconcileCommands, destroyCommand };
const fx = useEmulator();
const GITHUB_TOKEN = "ghs_remediateToken_0123456789";
const PASSCODE = "canvas-passcode-never-shown-4411";
const CODE = "@fused.udf\ndef udf():\n    a = 1\n    return a\n";
const FILES: Record<string, string> = {
  "infra/svc.yaml": "project: gh_remediate\n",
  "infra/canvases/kept/canvas.yaml": "passcode: ${env.KEPT_PASSCODE}\n",
  "infra/canvases/kept/main.py": CODE,
  "infra/canvases/kept/main.yaml": "on_drift: keep\n",
  "infra/canvases/told/canvas.yaml": 'dashboard_body: "As written"\n',
};

describe("GIVEN a repository applied from its main branch, with a keep UDF and a report canvas changed by hand", () => {
  let gh: FakeGithub;
  let workspace: string;
  let mainSha: string;
  const env = () => ({
    SVC_BASE_URL: fx.emu.baseUrl,
    SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
    SVC_TOKEN: fx.emu.tokens.user_token,
    KEPT_PASSCODE: PASSCODE,
  });

  async function checkout() {
    for (const [path, text] of Object.entries(FILES)) {
      await mkdir(join(workspace, path, ".."), { recursive: true });
      await writeFile(join(workspace, path), text);
    }
  }

  let outputFile = "";
  async function action(inputs: Record<string, string>) {
    outputFile = join(workspace, "..", `output-${gh.calls.length}`);
    let stdout = "";
    let stderr = "";
    const code = await runAction({
      env: {
        GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
        GITHUB_API_URL: gh.url,
        GITHUB_RUN_ID: "9",
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: outputFile,
        GITHUB_TOKEN,
        GITHUB_EVENT_NAME: "schedule",
        GITHUB_REF: "refs/heads/main",
        GITHUB_SHA: mainSha,
        INPUT_GITHUB_TOKEN: GITHUB_TOKEN,
        INPUT_WORKING_DIRECTORY: "infra",
        ...env(),
        ...Object.fromEntries(
          Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, "_")}`, v]),
        ),
      },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      deps: { commands },
    });
    return { code, stdout, stderr };
  }

  let first: Awaited<ReturnType<typeof action>>;
  let firstOutput = "";
  const platformCode = "@fused.udf\ndef udf():\n    a = 100  # tuned on the platform\n    return a\n";

  beforeAll(async () => {
    gh = await startFakeGithub();
    workspace = join(await mkdtemp(join(tmpdir(), "svc-iac-remediate-")), "ws");
    await mkdir(workspace);
    mainSha = gh.seedBranch("main", FILES);
    await checkout();
    const applied = await commands.applyCommand({ dir: join(workspace, "infra"), env: env() });
    if (applied.exitCode !== 0) throw new Error(JSON.stringify(applied));
    const canvases = await fx.user.canvases.listExecEnv();
    const kept = canvases.find((c) => c.name === "kept")!;
    const told = canvases.find((c) => c.name === "told")!;
    const main = (await fx.user.udfs.listExecEnv().toArray()).find(
      (u) => u.collection_id === kept.id && u.slug === "main",
    )!;
    const body = JSON.parse(main.udf_body) as { code: string };
    await fx.user.udfs.update(main.id, { udf_body: JSON.stringify({ ...body, code: platformCode }) });
    await fx.user.canvases.update(told.id, {
      name: "told",
      access_scope: told.access_scope,
      allow_public_read: told.allow_public_read,
      dashboard_body: "Edited by hand",
    } as never);
    first = await action({ command: "drift", remediate: "true", "detailed-exitcode": "true" });
    firstOutput = outputFile;
  });

  afterAll(async () => {
    await gh?.close();
  });

  it("THEN it exits 2 (the report canvas remains) and opens one pull request from svc-iac/drift/default into main", () => {
    expect(first.code).toBe(2);
    expect(gh.pulls.map((p) => [p.head, p.base, p.state])).toEqual([["svc-iac/drift/default", "main", "open"]]);
    expect(first.stdout).toContain(
      "Drift in gh_remediate (default), remediated: 0 restored, 1 kept, 1 reported, 0 contested.",
    );
  });

  it("THEN the branch is main plus the kept file, as the platform has it, made without git", () => {
    const files = gh.branchFiles("svc-iac/drift/default")!;
    expect(files).toEqual({ ...FILES, "infra/canvases/kept/main.py": platformCode });
    expect(gh.branchFiles("main")).toEqual(FILES);
  });

  it("THEN the pull request names the object and its diff, and carries no secret", () => {
    const pr = gh.pulls[0]!;
    expect(pr.title).toBe("svc-iac: keep the platform's version of udf.kept/main (gh_remediate, default)");
    expect(pr.body).toContain("`udf.kept/main`");
    expect(pr.body).toContain("+    a = 1");
    expect(pr.body).toContain("-    a = 100  # tuned on the platform");
    for (const secret of [PASSCODE, GITHUB_TOKEN, fx.emu.tokens.user_token])
      expect(JSON.stringify(gh.calls.map((c) => [c.path, c.body]))).not.toContain(secret);
  });

  it("THEN the drift issue lists only what remains: the report canvas, not the kept UDF", () => {
    expect(gh.issues).toHaveLength(1);
    expect(gh.issues[0]!.body).toContain("canvas.told");
    expect(gh.issues[0]!.body).not.toContain("udf.kept/main");
  });

  it("THEN the drift-pr-url output names the pull request", async () => {
    const outputs = await readFile(firstOutput, "utf8");
    expect(outputs).toContain(`drift-pr-url=${gh.url}/web/${gh.owner}/${gh.repo}/pull/${gh.pulls[0]!.number}`);
    expect(outputs).toContain("has-drift=true");
    expect(first.stdout + first.stderr).not.toContain(PASSCODE);
  });

  it("WHEN the next scheduled run (a fresh checkout) finds the same drift THEN nothing is written to GitHub", async () => {
    await checkout();
    const writes = gh.writes().length;
    const again = await action({ command: "drift", remediate: "true", "detailed-exitcode": "true" });
    expect(again.code).toBe(2);
    expect(gh.writes().length).toBe(writes);
    expect(gh.pulls).toHaveLength(1);
  });

  it("WHEN the platform's version changes again THEN the same pull request is updated: its branch rebuilt on main with the new file, its body edited", async () => {
    const kept = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "kept")!;
    const main = (await fx.user.udfs.listExecEnv().toArray()).find(
      (u) => u.collection_id === kept.id && u.slug === "main",
    )!;
    const body = JSON.parse(main.udf_body) as { code: string };
    const newer = platformCode.replace("a = 100", "a = 200");
    await fx.user.udfs.update(main.id, { udf_body: JSON.stringify({ ...body, code: newer }) });
    await checkout();
    const third = await action({ command: "drift", remediate: "true", "detailed-exitcode": "true" });
    expect(third.code).toBe(2);
    expect(gh.pulls).toHaveLength(1);
    expect(gh.branchFiles("svc-iac/drift/default")!["infra/canvases/kept/main.py"]).toBe(newer);
    expect(gh.pulls[0]!.body).toContain("-    a = 200  # tuned on the platform");
    const refWrites = gh.writes().filter((c) => c.method === "PATCH" && c.path.includes("/git/refs/"));
    expect(refWrites).toHaveLength(1);
    expect(JSON.parse(refWrites[0]!.body)).toMatchObject({ force: true });
  });
});
