/**
 * The GitHub Action (`svc-iac action`, run by `action.yml`): runs one command and reports it
 * where a team looks: annotations on the files, the job summary, one plan comment per pull
 * request, one drift issue per project and target, the full report as files for an artifact,
 * and step outputs. The command's exit code is returned unchanged (0 nothing to do, 2 changes or
 * drift, 1 error); a failure to write to GitHub is a warning, never a different exit code.
 */
import { constants, existsSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { basename, join, posix, relative, sep } from "node:path";
import type { Octokit } from "@octokit/rest";
import { RepositoryJail } from "../repository/jail";
import { YAML_LIMITS } from "../repository/yaml-limits";
import { projectNameIn } from "../reconcile/projects/svc-names";
import type { CommandOptions, CommandResult, TokenPublisher } from "../reconcile/commands/command-types";
import { ActionInputError, readActionInputs, type ActionInputs } from "./action-inputs";
import { fullReport, resultLogText, resultMarkdown, type ReportLabels } from "./action-report";
import { loadErrorAnnotations, policyAnnotations } from "./annotations";
import { gitFetchCommit, gitHasCommit, POLICIES_FILE } from "../policy/source";
import { readActionContext, type ActionContext } from "./context";
import { driftFound, syncDriftIssue } from "./drift-issue";
import { syncDriftPullRequest } from "./drift-pull-request";
import type { RemediationReport } from "../reconcile/plan/plan-model";
import { createGithubClient } from "./github-client";
import { appendJobSummary } from "./job-summary";
import { planMarker } from "./markers";
import { fitCommentBody, upsertMarkedComment } from "./pr-comment";
import {
  CHECK_SUMMARY_MAX_CHARS,
  publishProjectList,
  publishProjectSection,
  type CombinedRef,
} from "./combined-comment";
import { runProjectsStep } from "./action-projects";
import type { ProjectsResult } from "../reconcile/commands/projects";
import { planSummaryLine } from "../reconcile/render/plan-text";
import { Redactor } from "./redact";
import { githubSecretsPublisher, maskPublisher } from "./secrets";
import { CommandGuard, logLine, logText } from "./command-guard";
import { annotation, appendOutputs, group, untrustedBlock } from "./workflow-commands";
import { inActionWords } from "./input-words";
import { resolveInWorkspace } from "./workspace-paths";
import { SvcError } from "../errors";

/** The command functions of `src/reconcile/commands`, injectable for tests. */
export interface CommandFunctions {
  validateCommand(opts: CommandOptions): Promise<CommandResult>;
  planCommand(opts: CommandOptions): Promise<CommandResult>;
  applyCommand(opts: CommandOptions): Promise<CommandResult>;
  driftCommand(opts: CommandOptions): Promise<CommandResult>;
  /** `drift --remediate` (input `remediate: true`). */
  remediateCommand?(opts: CommandOptions): Promise<CommandResult>;
  destroyCommand(opts: CommandOptions): Promise<CommandResult>;
}

export interface ActionDeps {
  /** @default the reconciler's commands */
  commands?: CommandFunctions;
  /**
   * The wait between a job's rebuilds of the combined comment (`comment: combined`), so that
   * jobs racing to edit it interleave. Tests pass a shorter one.
   * @default 0.3 to 1.5 s, at random
   */
  settle?: () => Promise<void>;
}

export interface ActionIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  deps?: ActionDeps;
}

/** Environment variables the command never sees: GitHub credentials and the action's own inputs. */
const HIDDEN_FROM_COMMAND = /^(INPUT_|GITHUB_TOKEN$|ACTIONS_RUNTIME_TOKEN$|ACTIONS_ID_TOKEN_REQUEST_TOKEN$)/;

/**
 * Runs the action and returns the command's exit code (0, 1 or 2), or 1 when the inputs are bad.
 * @example
 * process.exitCode = await runAction({ env: process.env, stdout: process.stdout, stderr: process.stderr });
 */
export async function runAction(io: ActionIo): Promise<number> {
  const redactor = Redactor.fromEnv(io.env);
  // Text (which may quote the platform, the repository or the inventory) cannot start a workflow
  // command; only the commands built here (annotations, groups, masks) reach the runner as such.
  const stdout = new CommandGuard(io.stdout);
  const stderr = new CommandGuard(io.stderr);
  const out = (text: string) => stdout.text(redactor.apply(text));
  const err = (text: string) => stderr.text(redactor.apply(text));
  const cmd = (text: string) => stdout.command(redactor.apply(text));
  try {
    return await runGuarded(io, { out, err, cmd, redactor, stdout });
  } finally {
    stdout.flush();
    stderr.flush();
  }
}

interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  cmd: (text: string) => void;
  redactor: Redactor;
  stdout: CommandGuard;
}

async function runGuarded(io: ActionIo, { out, err, cmd, redactor, stdout }: Output): Promise<number> {
  let inputs: ActionInputs;
  try {
    inputs = readActionInputs(io.env);
  } catch (e) {
    if (!(e instanceof ActionInputError)) throw e;
    for (const problem of e.problems) cmd(annotation("error", problem, { title: "svc-iac: invalid action input" }));
    return 1;
  }
  const ctx = await readActionContext(io.env);
  // Every path input stays inside the workspace (symlinks followed), or the step fails naming it.
  const resolved = await resolveInWorkspace(ctx.workspace ?? process.cwd(), {
    "working-directory": inputs.workingDirectory,
    "report-path": inputs.reportPath,
    "plan-file": inputs.planFile,
  });
  if (!resolved.ok) {
    for (const problem of resolved.problems)
      cmd(annotation("error", problem, { title: "svc-iac: invalid action input" }));
    return 1;
  }
  const workspace = resolved.workspace;
  if (inputs.command === "projects") {
    const github = inputs.combinedComment && ctx.pullRequest ? githubFor(inputs.githubToken, ctx, out, cmd) : undefined;
    const sha = ctx.pullRequest?.headSha ?? ctx.sha;
    const publishList =
      github && sha
        ? (r: ProjectsResult) =>
            publishProjectList(
              github,
              combinedRef(ctx, sha, io.deps?.settle),
              { include: r.matrix.include, removed: r.removed },
              combinedHeading(ctx),
            )
        : undefined;
    return runProjectsStep(inputs, ctx, workspace, { out, cmd, publishList });
  }
  const repoDir = resolved.paths["working-directory"];
  const reportDir = resolved.paths["report-path"];
  const planPath = resolved.paths["plan-file"];
  const warn = (what: string, e: unknown) =>
    cmd(annotation("warning", `${what}: ${describeGithubError(e)}`, { title: "svc-iac" }));
  const outputs: Record<string, string> = {
    "exit-code": "1",
    "has-changes": "false",
    "has-drift": "false",
    "report-path": reportDir,
  };

  let result: CommandResult;
  try {
    result = await runCommand(inputs, ctx, io, { repoDir, planPath }, { out, err, redactor, warn, stdout });
  } catch (e) {
    cmd(
      annotation("error", `svc-iac ${inputs.command} failed: ${(e as Error)?.message ?? String(e)}`, {
        title: "svc-iac",
      }),
    );
    await appendOutputs(ctx.outputFile, outputs);
    return 1;
  }
  const exitCode = stepExitCode(result, inputs);
  outputs["exit-code"] = String(exitCode);
  outputs["has-changes"] = String(hasChanges(result));
  // A mandatory rule the platform's objects do not meet is drift too (drift exits 2 for it).
  outputs["has-drift"] = String(
    result.command === "drift" && result.exitCode !== 1 && !!result.drift && driftFound(result.drift),
  );

  // Reporting never changes the exit code: each place that cannot be written is a warning.
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (e) {
      warn(what, e);
    }
  };
  const labels: ReportLabels = {
    project: projectOf(result) ?? projectFromSvcFile(repoDir),
    target: inputs.target,
    detailsLink: ctx.runUrl ? `[the workflow run's artifacts](${ctx.runUrl})` : "the workflow run's artifacts",
  };
  annotate(result, inputs, { repoDir, workspace }, cmd);
  printResult(result, labels, exitCode, outputs, out, cmd);
  await attempt("Could not write the report files", () => writeReportFiles(reportDir, result, labels, redactor));
  await attempt("Could not write the job summary", () =>
    appendJobSummary(
      ctx.stepSummaryFile,
      (maxChars) => redactor.apply(actionMarkdown(result, labels, maxChars)),
      `_Cut to fit GitHub's 1 MiB job summary limit; the full report is in ${labels.detailsLink}._`,
    ),
  );
  const comment = result.command === "plan" && !!ctx.pullRequest && inputs.comment;
  const issue = result.command === "drift" && !!result.drift && result.exitCode !== 1 && inputs.driftIssue;
  const github = comment || issue ? githubFor(inputs.githubToken, ctx, out, cmd) : undefined;
  if (github && comment) {
    const post = inputs.combinedComment ? postCombinedSection : postPlanComment;
    await attempt(
      "Could not post the plan comment",
      async () => (outputs["comment-url"] = await post(github, ctx, result, labels, redactor, io.deps?.settle)),
    );
  }
  if (github && issue && result.command === "drift") {
    await attempt(
      "Could not update the drift issue",
      async () => (outputs["drift-issue-url"] = await syncIssue(github, ctx, inputs, result, labels, redactor)),
    );
  }
  const kept = result.command === "drift" && inputs.remediate ? (result.remediation?.kept.length ?? 0) : 0;
  const prGithub = kept && result.exitCode !== 1 ? (github ?? githubFor(inputs.githubToken, ctx, out, cmd)) : undefined;
  if (prGithub && result.command === "drift" && result.remediation) {
    const remediation = result.remediation;
    await attempt("Could not open or update the drift pull request", async () => {
      const done = await syncDriftPullRequest(prGithub, {
        ...ctx.repository!,
        ...(ctx.branch ? { base: ctx.branch } : {}),
        ...(ctx.sha ? { baseSha: ctx.sha } : {}),
        files: keptFiles(remediation, repoDir, workspace),
        remediation,
        drift: remediation.drift,
        ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        redact: (text) => redactor.apply(text),
        linkPrefixes: [`${ctx.serverUrl}/${ctx.repository!.owner}/${ctx.repository!.repo}/`],
      });
      if (done.action !== "none") outputs["drift-pr-url"] = done.url;
    });
  }
  await appendOutputs(ctx.outputFile, outputs);
  return exitCode;
}

/** The kept files as the GitHub repository names them (from the workspace, the checkout's root), with their text. */
function keptFiles(
  remediation: RemediationReport,
  repoDir: string,
  workspace: string,
): { path: string; text: string }[] {
  const jail = RepositoryJail.forProject(repoDir);
  const inRepo = relative(workspace, repoDir).split(sep).join("/");
  const paths = [...new Set(remediation.kept.flatMap((k) => k.files ?? []))].sort();
  return paths.flatMap((file) => {
    const read = jail.readText(file);
    return read.kind === "text" ? [{ path: inRepo ? posix.join(inRepo, file) : file, text: read.text }] : [];
  });
}

/** Validation errors on their files, the command's failure, and a hint for the token guard. */
function annotate(
  result: CommandResult,
  inputs: ActionInputs,
  paths: { repoDir: string; workspace: string },
  cmd: (text: string) => void,
): void {
  for (const line of loadErrorAnnotations(result.errors, paths)) cmd(line);
  const policy =
    "plan" in result
      ? result.plan?.policy
      : result.command === "drift"
        ? result.drift?.policy
        : result.command === "validate"
          ? result.policy
          : undefined;
  if (policy) for (const line of policyAnnotations(policy, paths)) cmd(line);
  if (result.exitCode === 1 && "message" in result && result.message)
    cmd(annotation("error", inActionWords(result.message), { title: `svc-iac ${result.command}` }));
  if (inputs.githubSecrets.kind === "none" && plannedBlocks(result).some((b) => b.rule === "tokens-without-outputs")) {
    cmd(
      annotation(
        "notice",
        "A new token would have no destination. In this action, set github-secrets (repository or environment:<name>) and secrets-token to write it to GitHub secrets, or discard-tokens: true.",
        { title: "svc-iac" },
      ),
    );
  }
}

interface Writers {
  out: (text: string) => void;
  err: (text: string) => void;
  redactor: Redactor;
  warn: (what: string, e: unknown) => void;
  /** The guarded stdout, through which the mask commands go as they are. */
  stdout: CommandGuard;
}

/**
 * The revision the rules are read at: the `policies-ref` input, else on a pull request its base
 * commit, so that the pull request cannot weaken the rules it is checked against. A base missing
 * from a shallow checkout (actions/checkout's default) is fetched from `origin`; one that cannot
 * be fetched is a warning (the work tree's rules are checked then).
 */
async function policiesRefOf(
  inputs: ActionInputs,
  ctx: ActionContext,
  repoDir: string,
  w: Writers,
): Promise<string | undefined> {
  if (inputs.policiesRef) return inputs.policiesRef;
  const base = ctx.pullRequest?.baseSha;
  if (!base) return undefined;
  if (await gitHasCommit(repoDir, base)) return base;
  const fetchFailed = await gitFetchCommit(repoDir, base);
  if (!fetchFailed && (await gitHasCommit(repoDir, base))) return base;
  if (existsSync(join(repoDir, POLICIES_FILE)))
    w.warn(
      "Policy rules",
      new Error(
        `the pull request's base commit ${base.slice(0, 12)} is not in the checkout and could not be fetched (${fetchFailed ?? "not found"}), so the rules of the work tree's ${POLICIES_FILE} were checked (a pull request could weaken them). Check out with fetch-depth: 0, or set policies-ref.`,
      ),
    );
  return undefined;
}

/** Runs the chosen command with the token publishers: the log mask first, then GitHub secrets if asked. */
async function runCommand(
  inputs: ActionInputs,
  ctx: ActionContext,
  io: ActionIo,
  { repoDir, planPath }: { repoDir: string; planPath?: string },
  w: Writers,
): Promise<CommandResult> {
  const commands = io.deps?.commands ?? defaultCommands();
  const policiesRef = inputs.policies ? undefined : await policiesRefOf(inputs, ctx, repoDir, w);
  const opts: CommandOptions = {
    dir: repoDir,
    target: inputs.target,
    env: Object.fromEntries(Object.entries(io.env).filter(([name]) => !HIDDEN_FROM_COMMAND.test(name))),
    prune: inputs.prune || undefined,
    maxDeletions: inputs.maxDeletions,
    allowDeleteAll: inputs.allowDeleteAll || undefined,
    allowCascade: inputs.allowCascade || undefined,
    discardTokens: inputs.discardTokens || undefined,
    // Plan gets them too: it stops early when a new token would have no destination.
    publishers:
      inputs.command === "apply" || inputs.command === "plan" ? tokenPublishers(inputs, ctx, io, w) : undefined,
    detailedExitCode: inputs.detailedExitCode,
    ...(inputs.only.length ? { only: inputs.only } : {}),
    ...(inputs.replace.length ? { replace: inputs.replace } : {}),
    // A saved plan: written by plan (for an artifact on the pull request), executed exactly by apply.
    ...(planPath && inputs.command === "plan" ? { planOut: planPath } : {}),
    ...(planPath && inputs.command === "apply" ? { planFile: planPath } : {}),
    ...(inputs.policies ? { policies: inputs.policies } : {}),
    ...(policiesRef ? { policiesRef } : {}),
    lockOwner: ctx.runUrl ? `GitHub Actions ${ctx.runUrl}` : "GitHub Actions",
    log: (line) => w.err(`${line}\n`),
    progress: (e) => {
      // One line per object, starting with the action word: no line can begin a workflow command.
      if (e.type === "end")
        w.out(
          `${e.action} ${logLine(e.address)}: ${e.status}${e.message ? ` (${logLine(e.message.replace(/\s*\r?\n\s*/g, " "))})` : ""}\n`,
        );
    },
  };
  switch (inputs.command) {
    case "validate":
      return commands.validateCommand(opts);
    case "plan":
      return commands.planCommand(opts);
    case "apply":
      return commands.applyCommand(opts);
    case "drift":
      if (inputs.remediate) {
        if (!commands.remediateCommand)
          throw new SvcError("action_input_invalid", "remediate: true needs the drift --remediate command.");
        return commands.remediateCommand({ ...opts, remediate: true });
      }
      return commands.driftCommand(opts);
    case "destroy":
      // A workflow cannot answer a prompt: choosing the destroy command is the approval.
      return commands.destroyCommand(opts);
    case "projects":
      throw new SvcError("internal", "projects runs before any repository command (runProjectsStep)");
  }
}

/**
 * Token destinations: GitHub secrets when asked, each token masked in the log first, before
 * anything could print it. With no destination the list is empty, so the command's own guard
 * stops an apply that would mint a token nobody receives.
 */
function tokenPublishers(inputs: ActionInputs, ctx: ActionContext, io: ActionIo, w: Writers): TokenPublisher[] {
  if (inputs.githubSecrets.kind === "none") return [];
  if (!ctx.repository)
    throw new SvcError(
      "action_input_invalid",
      'Input "github-secrets" needs GITHUB_REPOSITORY to name the repository whose secrets are written; it is not set.',
    );
  const token = inputs.secretsToken ?? inputs.githubToken;
  if (!token)
    throw new SvcError(
      "action_input_invalid",
      'Input "github-secrets" needs a token that may write secrets in "secrets-token" (the workflow\'s GITHUB_TOKEN cannot); none was given.',
    );
  // The mask line goes to stdout as is (the runner must read the value to mask it); from then
  // on the redactor knows the token too, so no later line of ours can carry it.
  const mask = maskPublisher((text) => w.stdout.command(text));
  const octokit = createGithubClient({ token, baseUrl: ctx.apiUrl, warn: (line) => w.err(`${line}\n`) });
  const environment = inputs.githubSecrets.kind === "environment" ? inputs.githubSecrets.name : undefined;
  const secrets = githubSecretsPublisher(octokit, { ...ctx.repository, environment });
  // One destination in the report ("GitHub Actions secrets of …"): masking is not a place the token goes.
  return [
    {
      name: secrets.name,
      publish: async (t) => {
        await mask.publish(t);
        w.redactor.add(t.token);
        await secrets.publish(t);
      },
    },
  ];
}

function defaultCommands(): CommandFunctions {
  // Loaded on first use: the action module stays importable (and testable) on its own.
  const commands: typeof import("../reconcile/commands") = require("../reconcile/commands");
  const { destroyCommand }: typeof import("../reconcile/commands/destroy") = require("../reconcile/commands/destroy");
  return { ...commands, destroyCommand };
}

/** Plan, apply or destroy with at least one action; drift is reported in `has-drift`. */
function hasChanges(result: CommandResult): boolean {
  if (result.command === "plan" || result.command === "apply" || result.command === "destroy")
    return result.exitCode !== 1 && (result.plan?.actions.length ?? 0) > 0;
  return false;
}

/**
 * The command's exit code, unchanged, except that `detailed-exitcode: false` turns drift's 2 into
 * 0 as the command itself does for plan: the drift issue is the notification, and a red
 * scheduled run every day the same drift persists would be the noise the issue avoids.
 */
function stepExitCode(result: CommandResult, inputs: ActionInputs): number {
  return result.command === "drift" && result.exitCode === 2 && !inputs.detailedExitCode ? 0 : result.exitCode;
}

function plannedBlocks(result: CommandResult): { rule: string }[] {
  return result.command === "plan" || result.command === "apply" || result.command === "destroy"
    ? (result.plan?.blocks ?? [])
    : [];
}

function projectOf(result: CommandResult): string | undefined {
  if (result.command === "plan" || result.command === "apply" || result.command === "destroy")
    return result.plan?.project ?? (result.command !== "plan" ? result.report?.project : undefined);
  if (result.command === "drift") return result.drift?.project;
  return undefined;
}

/**
 * The project name when the command produced no document (validation failed): read from
 * svc.yaml if it parses, else the folder's name, so a failed plan edits the same comment a
 * successful one wrote. Read through the repository's jail, as the command reads it: the svc.yaml
 * of a failed run may be the very link (to a FIFO, /dev/zero, a file outside) the command refused.
 */
function projectFromSvcFile(repoDir: string): string {
  const read = RepositoryJail.forProject(repoDir).readText("svc.yaml", { maxBytes: YAML_LIMITS.fileBytes });
  // Bounded as the loader parses it: svc.yaml is the pull request's, and may be an alias bomb.
  const project = read.kind === "text" ? projectNameIn(read.text)?.trim() : undefined;
  return project || basename(repoDir);
}

/**
 * The result's Markdown within `maxChars`, in the action's words (inputs, not flags). Rendered with
 * room to spare, since naming an input takes a few more characters than naming its flag.
 */
function actionMarkdown(result: CommandResult, labels: ReportLabels, maxChars: number): string {
  const text = inActionWords(resultMarkdown(result, labels, Math.max(Math.floor(maxChars / 2), maxChars - 2_000)));
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}

/**
 * The log: the plan as text (or the report) in the action's words, with workflow commands off
 * while printing it, then the step's exit code as the exit-code output says it.
 */
function printResult(
  result: CommandResult,
  labels: ReportLabels,
  exitCode: number,
  outputs: Record<string, string>,
  out: (text: string) => void,
  cmd: (text: string) => void,
): void {
  const text = resultLogText(result);
  if (text)
    cmd(
      group(
        `svc-iac ${result.command}: ${logLine(labels.project)} (${logLine(labels.target)})`,
        untrustedBlock(logText(inActionWords(text))),
      ),
    );
  const told =
    result.command === "drift" ? `has-drift: ${outputs["has-drift"]}` : `has-changes: ${outputs["has-changes"]}`;
  out(`svc-iac ${result.command}: exit code ${exitCode} (${told})\n`);
}

async function writeReportFiles(
  dir: string,
  result: CommandResult,
  labels: ReportLabels,
  redactor: Redactor,
): Promise<void> {
  const report = fullReport(result, labels);
  await mkdir(dir, { recursive: true });
  await writeNoFollow(join(dir, `${result.command}.md`), redactor.apply(inActionWords(report.markdown)));
  if (report.json) await writeNoFollow(join(dir, `${result.command}.json`), redactor.apply(report.json));
}

/** Writes a report file, refusing one that is a symlink (committed by a pull request, it could point anywhere). */
async function writeNoFollow(path: string, text: string): Promise<void> {
  const file = await open(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o644,
  ).catch((e: NodeJS.ErrnoException) => {
    throw e.code === "ELOOP"
      ? new SvcError("report_file_refused", `${path} is a symlink; the report is not written through it.`)
      : e;
  });
  try {
    await file.writeFile(text, "utf8");
  } finally {
    await file.close();
  }
}

function githubFor(
  token: string | undefined,
  ctx: ActionContext,
  out: (text: string) => void,
  cmd: (text: string) => void,
): Octokit | undefined {
  if (!ctx.repository) return undefined;
  if (!token) {
    cmd(
      annotation(
        "warning",
        "No GitHub token: the plan comment and drift issue are skipped. Pass github-token (the default is the workflow's GITHUB_TOKEN).",
        { title: "svc-iac" },
      ),
    );
    return undefined;
  }
  return createGithubClient({ token, baseUrl: ctx.apiUrl, warn: (line) => out(`${line}\n`) });
}

async function postPlanComment(
  github: Octokit,
  ctx: ActionContext,
  result: CommandResult,
  labels: ReportLabels,
  redactor: Redactor,
): Promise<string> {
  const pr = ctx.pullRequest!;
  const sha = pr.headSha ?? ctx.sha;
  const heading = `<sub>svc-iac plan${sha ? ` for ${sha.slice(0, 7)}` : ""}${ctx.runUrl ? ` · [workflow run](${ctx.runUrl})` : ""} · this comment is edited on every run</sub>`;
  const body = fitCommentBody(
    planMarker(labels.project, labels.target),
    heading,
    (maxChars) => redactor.apply(actionMarkdown(result, labels, maxChars)),
    `_The plan was cut to fit GitHub's comment limit; the full plan is in ${labels.detailsLink}._`,
  );
  const done = await upsertMarkedComment(
    github,
    { ...ctx.repository!, number: pr.number },
    planMarker(labels.project, labels.target),
    body,
  );
  return done.url;
}

/** The first line under the combined comment's marker. */
function combinedHeading(ctx: ActionContext): string {
  const sha = ctx.pullRequest?.headSha ?? ctx.sha;
  return `<sub>svc-iac plan of every affected project${sha ? ` for ${sha.slice(0, 7)}` : ""}${ctx.runUrl ? ` · [workflow run](${ctx.runUrl})` : ""} · this comment is rebuilt as each project's plan finishes</sub>`;
}

/** The pull request's combined comment, built from the check runs of this workflow run (`GITHUB_RUN_ID`). */
function combinedRef(ctx: ActionContext, sha: string, settle?: () => Promise<void>): CombinedRef {
  const { owner, repo } = ctx.repository!;
  return {
    owner,
    repo,
    number: ctx.pullRequest!.number,
    sha,
    ...(ctx.runId ? { runId: ctx.runId } : {}),
    linkPrefixes: [`${ctx.serverUrl}/${owner}/${repo}/`],
    ...(settle ? { settle } : {}),
  };
}

/** `comment: combined`: this project's section of the pull request's one comment (see combined-comment.ts). */
async function postCombinedSection(
  github: Octokit,
  ctx: ActionContext,
  result: CommandResult,
  labels: ReportLabels,
  redactor: Redactor,
  settle?: () => Promise<void>,
): Promise<string> {
  const sha = ctx.pullRequest!.headSha ?? ctx.sha;
  if (!sha)
    throw new SvcError(
      "action_input_invalid",
      "comment: combined needs the pull request's head commit (the event payload's pull_request.head.sha, or GITHUB_SHA); neither is set.",
    );
  const plan = result.command === "plan" ? result.plan : undefined;
  const status = result.exitCode === 1 || !plan ? "error" : plan.actions.length ? "changes" : "no changes";
  const title =
    status === "error"
      ? `Error: ${("message" in result && result.message ? result.message : "the plan failed").split("\n")[0]!}`
      : planSummaryLine(plan!)
          .replace(/^Plan: /, "")
          .replace(/\.$/, "");
  const markdown = redactor.apply(resultMarkdown(result, labels, CHECK_SUMMARY_MAX_CHARS - 100));
  return publishProjectSection(
    github,
    combinedRef(ctx, sha, settle),
    { project: labels.project, target: labels.target, status, title: redactor.apply(title), markdown },
    combinedHeading(ctx),
  );
}

async function syncIssue(
  github: Octokit,
  ctx: ActionContext,
  inputs: ActionInputs,
  result: CommandResult & { command: "drift" },
  labels: ReportLabels,
  redactor: Redactor,
): Promise<string> {
  const outcome = await syncDriftIssue(github, result.drift!, {
    ...ctx.repository!,
    label: inputs.driftIssueLabel,
    runUrl: ctx.runUrl,
    render: (maxChars) => redactor.apply(actionMarkdown(result, labels, maxChars)),
  });
  return outcome.action === "none" ? "" : outcome.url;
}

/** An Octokit error as one sentence, with a hint for the usual permission problem. */
function describeGithubError(e: unknown): string {
  const status = (e as { status?: unknown })?.status;
  const message = (e as Error)?.message ?? String(e);
  if (status === 403 || status === 401) {
    return `${message} (HTTP ${status}). The token lacks permission: give the job "pull-requests: write" and "issues: write"; pull requests from forks only get a read-only GITHUB_TOKEN.`;
  }
  return typeof status === "number" ? `${message} (HTTP ${status})` : message;
}
