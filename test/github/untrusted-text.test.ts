/**
 * Text an attacker controls, from the platform (error details, names of objects made by hand) and
 * from the inventory (addresses), reaches neither a workflow command nor live Markdown. The real
 * command runs as a child process with GITHUB_ACTIONS=true, through a proxy in front of the
 * emulator that injects error details; the action (its bundle) posts to the fake GitHub. The log is read as the
 * runner reads it (a lone `\r` ends a line), and the Markdown is rendered by a CommonMark parser
 * with GitHub's autolinks.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import MarkdownIt from "markdown-it";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { startFakeGithub, type FakeGithub } from "../helpers/fake-github";
import { startInjectingProxy, type InjectingProxy } from "../helpers/injecting-proxy";
import { runSvc } from "../helpers/cli-run";
import { builtCli, FIXTURE_SECRETS, platformView, stateDirOf } from "../helpers/repo";
import { foreignCommands, obeyedCommands } from "../helpers/workflow-log";
import { minimalEnv } from "../helpers/process-env";

const run = promisify(execFile);

/** Workflow commands behind a lone CR, a line feed and a Unicode line separator. */
const COMMANDS =
  "name rejected\r::warning title=x::pwn\r::add-mask::svc\n::error::pwn-lf\u2028::notice::pwn-ls\r  ##[warning]pwn-old";
/** Markdown that would mention, link, track and format. */
const MARKDOWN = "@octocat [x](https://e.example) ![t](https://e.example/t.png) <b>bold</b> www.e.example #1";
const EVIL = `${COMMANDS} ${MARKDOWN}`;
/** A cronjob name made by hand on the platform (the spec allows any name; UDF slugs and canvas names are [A-Za-z0-9_-]). */
const EVIL_CRONJOB = `hand\r::warning title=x::pwn-name\r::add-mask::svc ${MARKDOWN}`;
/** An address planted in the inventory. */
const EVIL_ADDRESS = `cronjob.planted\r::warning title=x::pwn-inventory ${MARKDOWN}`;

const markdown = new MarkdownIt({ html: true, linkify: true });

/** What of `md` is live once GitHub renders it: links, images, HTML elements of the attacker, mentions outside code. */
function liveMarkup(md: string): string[] {
  const html = markdown.render(md);
  const found: string[] = [];
  for (const m of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) if (m[1].includes("e.example")) found.push(`link ${m[1]}`);
  for (const m of html.matchAll(/<img\s[^>]*>/g)) found.push(`image ${m[0]}`);
  if (/<b>/.test(html)) found.push("html <b>");
  // GitHub finds mentions and references in text outside code, after rendering.
  const text = html
    .replace(/<pre>[\s\S]*?<\/pre>/g, "")
    .replace(/<code>[\s\S]*?<\/code>/g, "")
    .replace(/<[^>]+>/g, "");
  if (/(^|[^\w`])@octocat\b/.test(text)) found.push("mention @octocat");
  if (/(^|\s)#1\b/.test(text)) found.push("reference #1");
  return found;
}

const fx = useEmulator();
let proxy: InjectingProxy;
let dir: string;

/** The command as a user's workflow runs it under GitHub Actions (its command line, in this process). */
function svc(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runSvc(args, { ...actionsEnv(), ...env });
}

/** The action as the runner runs it: its committed bundle. */
function actionBundle(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return node([join(__dirname, "../../dist-action/index.js")], env);
}

/** A workflow's environment: under GitHub Actions, the platform behind the injecting proxy. */
const actionsEnv = (): Record<string, string> => ({
  ...minimalEnv(),
  HOME: process.env.HOME ?? "",
  GITHUB_ACTIONS: "true",
  SVC_BASE_URL: proxy.url,
  SVC_UDF_BASE_URL: fx.emu.udfBaseUrl,
  SVC_TOKEN: fx.emu.tokens.user_token,
  ...FIXTURE_SECRETS,
});

async function node(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, args, { env: { ...actionsEnv(), ...env }, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    if (typeof x.code !== "number") throw e;
    return { code: x.code, stdout: x.stdout ?? "", stderr: x.stderr ?? "" };
  }
}

function expectNoInjection(r: { stdout: string; stderr: string }): void {
  expect(foreignCommands(r.stdout), r.stdout).toEqual([]);
  expect(foreignCommands(r.stderr), r.stderr).toEqual([]);
}

beforeAll(async () => {
  builtCli();
  proxy = await startInjectingProxy(fx.emu.baseUrl);
  dir = join(mkdtempSync(join(tmpdir(), "svc-untrusted-")), "infra");
  cpSync(join(__dirname, "../fixtures/valid-full"), dir, { recursive: true });
}, 180_000);
afterAll(async () => {
  await proxy?.close();
});

describe("GIVEN a platform that answers with workflow commands and Markdown in its error details and names", () => {
  it("WHEN apply fails on them under GitHub Actions THEN progress, report and error lines start no workflow command, and the detail is still shown", async () => {
    proxy.failWith(/^POST \/cronjob\/create$/, EVIL);
    const r = await svc(["apply", dir, "--auto-approve", "--outputs", join(dir, "..", "outputs.json")]);
    proxy.failWith(undefined);
    expect(r.code).toBe(1);
    expectNoInjection(r);
    // The detail is still shown, as text, on the line of the object it belongs to.
    expect(r.stdout).toMatch(
      /failed to create cronjob\.daily-stats: [^\r\n]*name rejected[^\r\n]*::warning title=x::pwn[^\r\n]*::add-mask::svc/,
    );
    // The runner would read these lines without obeying any.
    expect(obeyedCommands(r.stdout + r.stderr).join("\n")).not.toContain("pwn");
  });

  it("WHEN a listing fails with such a detail THEN the error line starts no workflow command", async () => {
    proxy.failWith(/^GET \/cronjob\/get-self$/, EVIL);
    const r = await svc(["plan", dir]);
    proxy.failWith(undefined);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("name rejected");
    expectNoInjection(r);
  });

  it("WHEN a pull request's file names carry terminal escape sequences and Unicode line separators THEN validate's annotations show them as escapes: no line holds a raw control character", async () => {
    const repo = join(mkdtempSync(join(tmpdir(), "svc-untrusted-names-")), "infra");
    cpSync(join(__dirname, "../fixtures/valid-full"), repo, { recursive: true });
    writeFileSync(join(repo, "canvases/listings/\x1b]0;owned\x07\x1b[2Jx.py"), "def udf():\n    return 1\n");
    writeFileSync(join(repo, "canvases/listings/y\u2028::error::pwn-ls.py"), "def udf():\n    return 1\n");
    const r = await svc(["validate", repo]);
    expect(r.code).toBe(1);
    expectNoInjection(r);
    expect(
      r.stdout
        .split("\n")
        .filter(
          (l) =>
            l.startsWith("::error file=") &&
            l.includes("/canvases/listings/\\x1b]0;owned\\x07\\x1b[2Jx.py,line=1,col=1,"),
        ),
    ).toHaveLength(1);
    expect(r.stdout).toContain("y\\u2028%3A%3Aerror%3A%3Apwn-ls.py");
    expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
  });

  it("WHEN the command line itself carries them (a branch name pasted into a flag) THEN the usage error starts no workflow command", async () => {
    const usage = await svc(["plan", dir, COMMANDS]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/^svc-iac: plan: Too many arguments: .*name rejected/);
    expectNoInjection(usage);
    const target = await svc(["plan", dir, `--target=${COMMANDS}`]);
    expect(target.code).toBe(1);
    expect(target.stderr).toContain("name rejected");
    expectNoInjection(target);
    // With --json the same message also goes to stdout, as one document, guarded too.
    const json = await svc(["plan", dir, COMMANDS, "--json"]);
    expect(json.code).toBe(1);
    expect(json.stdout).toContain("name rejected");
    expectNoInjection(json);
  });

  it("WHEN objects made by hand and an inventory address carry them THEN plan and drift print them without starting a workflow command", async () => {
    await plantNames();
    for (const args of [
      ["plan", dir],
      ["drift", dir],
      ["drift", dir, "--format", "json"],
      ["plan", dir, "--json"],
    ]) {
      const r = await svc(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).not.toBe(1);
      expect(r.stdout).toContain("hand");
      expectNoInjection(r);
    }
  });
});

/** A hand-made cronjob on a UDF of the project, and an inventory entry whose address is planted. */
async function plantNames(): Promise<void> {
  const view = await platformView(fx.user);
  const stats = view.udfs.find((u) => u.slug === "stats" && u.collection_name === "listings")!;
  const spec = { enabled: false, minute: [0], hour: [], day_of_month: [], month: [], day_of_week: [], udf: stats.id };
  if (!view.cronjobs.some((c) => c.name === EVIL_CRONJOB))
    await fx.user.cronjobs.create({ ...spec, name: EVIL_CRONJOB });
  const target =
    view.cronjobs.find((c) => c.name === "planted-target") ??
    (await fx.user.cronjobs.create({ ...spec, name: "planted-target" }));
  const file = join(stateDirOf(dir), "inventory.json");
  const inventory = JSON.parse(readFileSync(file, "utf8"));
  const now = new Date().toISOString();
  inventory.objects[EVIL_ADDRESS] = {
    kind: "Cronjob",
    id: target.id,
    key: "planted-target",
    createdAt: now,
    appliedAt: now,
  };
  writeFileSync(file, JSON.stringify(inventory, null, 2));
}

describe("GIVEN the action on a pull request, with the same names and details", () => {
  let gh: FakeGithub;
  let workspace: string;

  beforeAll(async () => {
    gh = await startFakeGithub();
    workspace = mkdtempSync(join(tmpdir(), "svc-untrusted-ws-"));
    cpSync(dir, join(workspace, "infra"), { recursive: true });
  });
  afterAll(async () => {
    await gh?.close();
  });

  async function action(inputs: Record<string, string>, event: Record<string, string>) {
    mkdirSync(join(workspace, "run"), { recursive: true });
    const summary = join(workspace, "run", `summary-${Date.now()}.md`);
    const env = {
      GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
      GITHUB_API_URL: gh.url,
      GITHUB_RUN_ID: "7",
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: join(workspace, "run", "output"),
      GITHUB_TOKEN: "ghs_untrustedTextToken_0123456789",
      "INPUT_GITHUB-TOKEN": "ghs_untrustedTextToken_0123456789",
      "INPUT_WORKING-DIRECTORY": "infra",
      ...event,
      // As the runner names them: upper case, hyphens kept.
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    };
    const r = await actionBundle(env);
    return { ...r, summary: readFileSync(summary, "utf8") };
  }

  function pullRequest(): Record<string, string> {
    const pr = gh.addPullRequest("untrusted names");
    writeFileSync(
      join(workspace, "event.json"),
      JSON.stringify({ pull_request: { number: pr, head: { sha: "abc1234def" } } }),
    );
    return { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: join(workspace, "event.json") };
  }

  it("WHEN it plans THEN the plan comment and the job summary hold the names as inert text, and the log starts no foreign command", async () => {
    const r = await action({ command: "plan", "detailed-exitcode": "true" }, pullRequest());
    expect(r.code, r.stderr).toBe(2);
    expectNoInjection(r);
    const comment = gh.comments.at(-1)!.body;
    expect(comment).toContain("hand");
    expect(comment).toContain("planted");
    expect(liveMarkup(comment)).toEqual([]);
    expect(liveMarkup(r.summary)).toEqual([]);
  });

  it("WHEN the plan fails on an injected detail THEN the comment quotes it as inert text", async () => {
    proxy.failWith(/^GET \/cronjob\/get-self$/, EVIL);
    const r = await action({ command: "plan" }, pullRequest());
    proxy.failWith(undefined);
    expect(r.code).toBe(1);
    expectNoInjection(r);
    const comment = gh.comments.at(-1)!.body;
    expect(comment).toContain("name rejected");
    expect(liveMarkup(comment)).toEqual([]);
    expect(liveMarkup(r.summary)).toEqual([]);
  });

  it("WHEN it reports drift THEN the drift issue and the job summary hold the names as inert text", async () => {
    const r = await action(
      { command: "drift", "drift-issue": "true", "detailed-exitcode": "true" },
      { GITHUB_EVENT_NAME: "schedule" },
    );
    expect(r.code, r.stderr).toBe(2);
    expectNoInjection(r);
    const issue = gh.issues.at(-1)!;
    expect(issue.body).toContain("hand");
    expect(liveMarkup(issue.body)).toEqual([]);
    expect(liveMarkup(r.summary)).toEqual([]);
  });

  it("WHEN apply fails on an injected detail THEN the job summary quotes it as inert text and the log starts no foreign command", async () => {
    proxy.failWith(/^POST \/cronjob\/(create|by-id\/.*)$/, EVIL);
    const r = await action({ command: "apply", "discard-tokens": "true" }, { GITHUB_EVENT_NAME: "push" });
    proxy.failWith(undefined);
    expect(r.code).toBe(1);
    expectNoInjection(r);
    expect(r.summary).toContain("name rejected");
    expect(liveMarkup(r.summary)).toEqual([]);
  });
});
