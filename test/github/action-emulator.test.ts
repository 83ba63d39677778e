/**
 * The action end to end with the real commands: the reconciler against the platform emulator,
 * GitHub answered by the fake server. Proves the pieces fit: a new service-account token lands
 * in a GitHub secret that the test decrypts and then signs in with, and appears nowhere else.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAction } from "../../src/github/action";
import * as reconcileCommands from "../../src/reconcile/commands";
import { destroyCommand } from "../../src/reconcile/commands/destroy";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";
import { useEmulator } from "../helpers/emulator";
import { mermaidBlocks, parseMermaid } from "../helpers/mermaid";

const commands = { ...reconcileCommands, destroyCommand };

const fx = useEmulator();
const GITHUB_TOKEN = "ghs_e2eGithubToken_0123456789";
const SECRETS_TOKEN = "github_pat_e2eSecretsWriter_9876";

let gh: FakeGithub;
let workspace: string;

beforeEach(async () => {
  gh = await startFakeGithub();
  workspace = await mkdtemp(join(tmpdir(), "svc-iac-action-e2e-"));
  await mkdir(join(workspace, "infra"));
  await writeFile(join(workspace, "infra", "svc.yaml"), "project: gh_e2e\n");
  await writeFile(join(workspace, "infra", "service-accounts.yaml"), 'service_accounts:\n  ci:\n    rotation: "1"\n');
});
afterEach(async () => {
  await gh.close();
});

async function action(inputs: Record<string, string>, runner: Record<string, string> = { GITHUB_EVENT_NAME: "push" }) {
  let stdout = "";
  let stderr = "";
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: "7",
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: join(workspace, "summary.md"),
    GITHUB_OUTPUT: join(workspace, "output"),
    GITHUB_TOKEN,
    SVC_BASE_URL: fx.emu.baseUrl,
    SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
    SVC_TOKEN: fx.emu.tokens.user_token,
    INPUT_GITHUB_TOKEN: GITHUB_TOKEN,
    INPUT_WORKING_DIRECTORY: "infra",
    ...runner,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, "_")}`, v])),
  };
  const code = await runAction({
    env,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    deps: { commands },
  });
  return { code, stdout, stderr };
}

describe("the action with the real commands", () => {
  it("stops an apply that would mint a token with no destination", async () => {
    const r = await action({ command: "apply" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("::notice title=svc-iac::A new token would have no destination.");
  });

  it("writes a new service-account token to a GitHub secret that decrypts to a working token, and leaks it nowhere else", async () => {
    const r = await action({ command: "apply", "github-secrets": "repository", "secrets-token": SECRETS_TOKEN });
    expect(r.code).toBe(0);

    const token = gh.decryptSecret("SVC_SERVICE_ACCOUNT_CI_TOKEN");
    expect(token).toBeTruthy();
    const signedIn = fx.client({ serviceToken: token! });
    await expect(signedIn.canvases.listExecEnvLite()).resolves.toBeInstanceOf(Array);

    const planted = [token!, GITHUB_TOKEN, SECRETS_TOKEN, fx.emu.tokens.user_token];
    const log = r.stdout
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    expect(r.stdout).toContain(`::add-mask::${token}`);
    const files = [
      await readFile(join(workspace, "summary.md"), "utf8"),
      await readFile(join(workspace, "svc-iac-report", "apply.md"), "utf8"),
      await readFile(join(workspace, "svc-iac-report", "apply.json"), "utf8"),
    ];
    for (const secret of planted) {
      for (const call of gh.calls) expect(`${call.path}\n${call.body}`).not.toContain(secret);
      for (const text of [log, r.stderr, ...files]) expect(text).not.toContain(secret);
    }
  });

  it("destroys what an apply made with command: destroy, and reports it", async () => {
    await writeFile(
      join(workspace, "infra", "service-accounts.yaml"),
      'service_accounts:\n  destroy_me:\n    rotation: "1"\n',
    );
    await mkdir(join(workspace, "infra", "canvases", "gh_destroy"), { recursive: true });
    await writeFile(join(workspace, "infra", "canvases", "gh_destroy", "canvas.yaml"), "");
    await writeFile(join(workspace, "infra", "canvases", "gh_destroy", "hello.py"), "def udf():\n    return 1\n");
    const applied = await action({ command: "apply", "discard-tokens": "true" });
    expect(applied.code).toBe(0);
    expect((await fx.user.canvases.listSelf().toArray()).map((c) => c.name)).toContain("gh_destroy");

    const destroyed = await action({ command: "destroy" });
    expect(destroyed.code).toBe(0);
    expect((await fx.user.canvases.listSelf().toArray()).map((c) => c.name)).not.toContain("gh_destroy");
    expect(
      (await fx.user.environment.listServiceAccounts()).map((a) => a.name).filter((n) => n.startsWith("destroy_me")),
    ).toEqual([]);
    expect(await readFile(join(workspace, "output"), "utf8")).toMatch(
      /exit-code=0\nhas-changes=true\nhas-drift=false\nreport-path=[^\n]*\n$/,
    );
    const report = await readFile(join(workspace, "svc-iac-report", "destroy.md"), "utf8");
    expect(report).toContain("### Destroy `gh_e2e` (`default`): complete");
    expect(report).toContain("canvas.gh_destroy");
    expect(destroyed.stdout).toContain("delete canvas.gh_destroy: done");
  });

  it("plans on a pull request into one comment, with the exit code of the plan", async () => {
    // A name no other test of this file created on the shared emulator.
    await writeFile(
      join(workspace, "infra", "service-accounts.yaml"),
      'service_accounts:\n  pr_bot:\n    rotation: "1"\n',
    );
    const pr = gh.addPullRequest();
    await writeFile(
      join(workspace, "event.json"),
      JSON.stringify({ pull_request: { number: pr, head: { sha: "abc1234def" } } }),
    );
    const inputs = {
      command: "plan",
      "detailed-exitcode": "true",
      "github-secrets": "repository",
      "secrets-token": SECRETS_TOKEN,
    };
    const runner = { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: join(workspace, "event.json") };
    const first = await action(inputs, runner);
    const second = await action(inputs, runner);
    expect([first.code, second.code]).toEqual([2, 2]);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0].body).toContain("service_account.pr_bot");
  });

  it("draws in the pull request's plan comment a Mermaid diagram of what changes and what it refers to, which Mermaid parses", async () => {
    const infra = join(workspace, "infra");
    await rm(join(infra, "service-accounts.yaml"));
    await writeFile(join(infra, "svc.yaml"), "project: gh_e2e_picture\n");
    await mkdir(join(infra, "canvases", "e2e_picture"), { recursive: true });
    await writeFile(join(infra, "canvases", "e2e_picture", "canvas.yaml"), "access_scope: team\n");
    await writeFile(join(infra, "canvases", "e2e_picture", "main.py"), "@fused.udf\ndef udf():\n    return 1\n");
    const pr = gh.addPullRequest();
    await writeFile(
      join(workspace, "event.json"),
      JSON.stringify({ pull_request: { number: pr, head: { sha: "abc1234def" } } }),
    );
    const run = await action(
      { command: "plan" },
      { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: join(workspace, "event.json") },
    );
    expect(run.code).toBe(0); // plan steps with changes are green by default (detailed-exitcode: false)
    const blocks = mermaidBlocks(gh.comments[0]!.body);
    expect(blocks).toHaveLength(1);
    expect(await parseMermaid(blocks[0]!)).toBe("flowchart-v2");
    expect(blocks[0]).toContain('n1["canvas.e2e_picture<br/>create"]');
    expect(blocks[0]).toContain('n2["udf.e2e_picture/main<br/>create"]');
    expect(blocks[0]).toContain("n2 --> n1");
  });

  it("opens the drift issue for a canvas dropped from the repository (orphaned) and a UDF edited by hand (its diff and the commands)", async () => {
    // GIVEN two applied canvases, of which one is then dropped from the repository (prune off) and the other's UDF is edited by hand
    const infra = join(workspace, "infra");
    await rm(join(infra, "service-accounts.yaml"));
    await writeFile(join(infra, "svc.yaml"), "project: gh_e2e_drift\n");
    for (const canvas of ["e2e_kept", "e2e_dropped"]) {
      await mkdir(join(infra, "canvases", canvas), { recursive: true });
      await writeFile(join(infra, "canvases", canvas, "canvas.yaml"), "access_scope: team\n");
      await writeFile(
        join(infra, "canvases", canvas, "main.py"),
        "@fused.udf\ndef udf():\n    a = 1\n    b = 2\n    return a + b\n",
      );
    }
    const env = {
      SVC_BASE_URL: fx.emu.baseUrl,
      SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
      SVC_TOKEN: fx.emu.tokens.user_token,
    };
    expect((await commands.applyCommand({ dir: infra, env })).exitCode).toBe(0);
    await rm(join(infra, "canvases", "e2e_dropped"), { recursive: true });
    const kept = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "e2e_kept")!;
    const main = (await fx.user.udfs.listExecEnv().toArray()).find(
      (u) => u.collection_id === kept.id && u.slug === "main",
    )!;
    const body = JSON.parse(main.udf_body) as { code: string };
    await fx.user.udfs.update(main.id, {
      udf_body: JSON.stringify({ ...body, code: body.code.replace("    b = 2", "    b = 20") }),
    });

    // WHEN the scheduled drift run of the action runs
    const run = await action({ command: "drift", "detailed-exitcode": "true" }, { GITHUB_EVENT_NAME: "schedule" });

    // THEN it exits 2 and the issue names the orphan with the prune hint, and shows the changed line with both commands
    expect(run.code).toBe(2);
    expect(gh.issues).toHaveLength(1);
    const issue = gh.issues[0]!.body;
    expect(issue).toContain("| Orphaned | 2 |");
    expect(issue).toContain("- `canvas.e2e_dropped` (id `");
    expect(issue).toContain("an apply with the input `prune: true` deletes them");
    expect(issue).toContain(
      "```diff\n--- code (platform)\n+++ code (repository)\n@@ -1,5 +1,5 @@\n @fused.udf\n def udf():\n     a = 1\n-    b = 20\n+    b = 2\n     return a + b\n```",
    );
    expect(issue).toContain("`svc-iac import --target default --keep udf.e2e_kept/main`");
  });
});
