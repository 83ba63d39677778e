/**
 * The action's `projects` command, the detection job of a monorepo workflow: lists the projects a
 * pull request (or a push) affects and hands them to the next jobs as a matrix. The base defaults
 * to the pull request's base commit, or a push's previous head; with neither, every project is
 * listed. With `comment: combined`, it also opens the pull request's one comment, every planned
 * project pending until its plan job writes its section.
 */
import { resolve } from "node:path";
import type { ActionInputs } from "./action-inputs";
import type { ActionContext } from "./context";
import { projectsCommand, projectsText, type ProjectsResult } from "../reconcile/commands/projects";
import { GitError } from "../reconcile/projects/git-changes";
import { appendJobSummary } from "./job-summary";
import { annotation, appendOutputs, group, untrustedBlock } from "./workflow-commands";
import { logText } from "./command-guard";
import { code, markdownText } from "../reconcile/render/markdown-escape";

export interface ProjectsStepIo {
  out: (text: string) => void;
  cmd: (text: string) => void;
  /** Opens the combined comment (a pull request with `comment: combined`). */
  publishList?: (result: ProjectsResult) => Promise<string>;
}

/** The commit to compare with: the input, else the pull request's base, else a push's previous head (none for a new branch). */
export function detectionBase(inputs: Pick<ActionInputs, "changedSince">, ctx: ActionContext): string | undefined {
  if (inputs.changedSince) return inputs.changedSince;
  if (ctx.pullRequest?.baseSha) return ctx.pullRequest.baseSha;
  if (ctx.eventName === "push" && ctx.before && !/^0+$/.test(ctx.before)) return ctx.before;
  return undefined;
}

export async function runProjectsStep(
  inputs: ActionInputs,
  ctx: ActionContext,
  workspace: string,
  io: ProjectsStepIo,
): Promise<number> {
  const base = detectionBase(inputs, ctx);
  const outputs: Record<string, string> = {
    "exit-code": "1",
    matrix: JSON.stringify({ include: [] }),
    count: "0",
    removed: "[]",
  };
  let result: ProjectsResult;
  try {
    result = await projectsCommand({
      dir: resolve(workspace, inputs.workingDirectory),
      changedSince: base,
      targets: inputs.targets,
    });
  } catch (e) {
    const message = e instanceof GitError ? e.message : ((e as Error)?.message ?? String(e));
    io.cmd(annotation("error", `svc-iac projects failed: ${message}`, { title: "svc-iac projects" }));
    await appendOutputs(ctx.outputFile, outputs);
    return 1;
  }
  const text = projectsText(result, base);
  io.cmd(group(`svc-iac projects${base ? ` changed since ${base.slice(0, 12)}` : ""}`, untrustedBlock(logText(text))));
  for (const e of result.errors) io.cmd(annotation("error", e, { title: "svc-iac projects" }));
  const exitCode = result.errors.length ? 1 : 0;
  Object.assign(outputs, {
    "exit-code": String(exitCode),
    matrix: JSON.stringify(result.matrix),
    count: String(result.matrix.include.length),
    removed: JSON.stringify(result.removed),
    ...(result.base ? { "changed-since": result.base } : {}),
  });
  io.out(
    `svc-iac projects: ${result.matrix.include.length} to plan, ${result.removed.length} removed; exit code ${exitCode}\n`,
  );
  await appendJobSummary(ctx.stepSummaryFile, () => projectsMarkdown(result, base), "");
  if (io.publishList) {
    try {
      outputs["comment-url"] = await io.publishList(result);
    } catch (e) {
      io.cmd(
        annotation("warning", `Could not open the combined plan comment: ${(e as Error)?.message ?? String(e)}`, {
          title: "svc-iac",
        }),
      );
    }
  }
  await appendOutputs(ctx.outputFile, outputs);
  return exitCode;
}

/** The job summary: the projects to plan and the removed ones. */
function projectsMarkdown(r: ProjectsResult, base: string | undefined): string {
  const lines = [`### svc-iac projects${base ? ` changed since ${code(base.slice(0, 12))}` : ""}`, ""];
  if (!r.matrix.include.length) lines.push("No project to plan.");
  else
    lines.push(
      "| project | folder | target |",
      "| --- | --- | --- |",
      ...r.matrix.include.map((e) => `| ${markdownText(e.project)} | ${code(e.dir)} | ${markdownText(e.target)} |`),
    );
  if (r.removed.length)
    lines.push(
      "",
      `Removed: ${r.removed.map((p) => code(p.project ?? p.dir)).join(", ")} (their objects stay on the platform until destroyed).`,
    );
  return `${lines.join("\n")}\n`;
}
