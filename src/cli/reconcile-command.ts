/**
 * `svc-iac validate | plan | apply | drift | destroy [DIR]`: parses the command line, runs the command
 * function, renders its result. Documents go to stdout; notices, progress and errors to stderr.
 */
import { relative, resolve } from "node:path";
import { loadErrorAnnotations, policyAnnotations } from "../github/annotations";
import { policySummary } from "../reconcile/render/policy-text";
import { terminalLine } from "../reconcile/render/terminal-text";
import type { PolicyResult } from "../policy/model";
import { logText, underActions } from "../github/command-guard";
import { escapeIo, guardIo, unescapedStream } from "./actions-io";
import { forWorkflowLog, isUntrustedBlock } from "../github/workflow-commands";
import type { CommandOptions, CommandResult } from "../reconcile/commands/command-types";
import type { Plan } from "../reconcile/plan/plan-model";
import { RepositoryJail } from "../repository/jail";
import {
  failureJson,
  progressDisplay,
  renderApplyReportText,
  renderPlanText,
  stopCode,
  toJson,
} from "../reconcile/render";
import { confirmOnTerminal, type Prompt } from "./confirm-prompt";
import { DRIFT_FORMATS, driftDocument, driftFormat, stepSummaryIsStdout } from "./drift-format";
import { remediationJson, renderRemediationText } from "../reconcile/render/remediation-text";
import type { TestCommandResult } from "../reconcile/commands/test";
import { existsSync } from "node:fs";
import { planGraph } from "../reconcile/render/change-graph";
import { toDot, toMermaid } from "../reconcile/render/graph-text";
import { CONCURRENCY_RANGE } from "../reconcile/load/keys";
import { parseCommandArgs, wholeNumberFlag } from "./command-args";
import { checkRepositoryFolder, errorLine, splitFolderAndAddresses } from "./repository-folder";
import { shellQuote } from "./shell-quote";
import { interruptedLine, interruptsFor } from "./interrupts";
import { CliUsageError } from "./usage";

/** `apply --test`, loaded only when asked for. */
const testAfterApply: typeof import("./test-command").testAfterApply = (...args) =>
  (require("./test-command") as typeof import("./test-command")).testAfterApply(...args);

type Name = "validate" | "plan" | "apply" | "drift" | "destroy" | "rollback";

const COMMON = {
  target: { type: "string", short: "t" },
  json: { type: "boolean" },
  "no-color": { type: "boolean" },
} as const;

/** Where the policy rules come from (validate, plan, apply, drift). */
const POLICY_FLAGS = {
  policies: { type: "string" },
  "policies-ref": { type: "string" },
} as const;

const PLAN_FLAGS = {
  prune: { type: "boolean" },
  "max-deletions": { type: "string" },
  "allow-delete-all": { type: "boolean" },
  "allow-cascade": { type: "boolean" },
  outputs: { type: "string" },
  "discard-tokens": { type: "boolean" },
  only: { type: "string", multiple: true },
  replace: { type: "string", multiple: true },
} as const;

/** Flags that change what is planned: a saved plan carries its own, so `apply --plan` takes none of them. */
const PLANNING_FLAGS = ["prune", "max-deletions", "allow-delete-all", "allow-cascade", "only", "replace"] as const;

const OPTIONS = {
  validate: { ...COMMON, ...POLICY_FLAGS },
  plan: {
    ...COMMON,
    ...POLICY_FLAGS,
    ...PLAN_FLAGS,
    out: { type: "string" },
    "detailed-exitcode": { type: "boolean" },
    graph: { type: "string" },
  },
  apply: {
    ...COMMON,
    ...POLICY_FLAGS,
    ...PLAN_FLAGS,
    plan: { type: "string" },
    "auto-approve": { type: "boolean" },
    test: { type: "boolean" },
    concurrency: { type: "string" },
    "force-unlock": { type: "string" },
    verbose: { type: "boolean" },
  },
  drift: {
    ...COMMON,
    ...POLICY_FLAGS,
    format: { type: "string" },
    out: { type: "string" },
    remediate: { type: "boolean" },
    "force-restore": { type: "string", multiple: true },
  },
  rollback: {
    ...COMMON,
    to: { type: "string" },
    "auto-approve": { type: "boolean" },
    "max-deletions": { type: "string" },
    "allow-delete-all": { type: "boolean" },
    "allow-cascade": { type: "boolean" },
    outputs: { type: "string" },
    "discard-tokens": { type: "boolean" },
    concurrency: { type: "string" },
    "force-unlock": { type: "string" },
    verbose: { type: "boolean" },
  },
  destroy: {
    ...COMMON,
    "auto-approve": { type: "boolean" },
    "allow-cascade": { type: "boolean" },
    concurrency: { type: "string" },
    "force-unlock": { type: "string" },
    verbose: { type: "boolean" },
  },
} as const;

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/**
 * `plan --graph` alone means `--graph mermaid`; the next argument is its value only when it is a
 * format (`plan --graph DIR` plans DIR).
 */
function graphArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (a !== "--graph") {
      out.push(a);
      continue;
    }
    const next = argv[i + 1];
    const format = GRAPH_FORMATS.find((f) => f === next);
    // `--graph svg` meant a format: a bare word that names no folder is not DIR.
    if (!format && next !== undefined && /^[a-z][a-z0-9]*$/i.test(next) && !existsSync(next))
      throw new CliUsageError(
        `Invalid --graph "${next}". Expected mermaid or dot (for a picture file: svc-iac plan --graph dot | dot -Tsvg > plan.svg).`,
      );
    out.push(`--graph=${format ?? "mermaid"}`);
    if (format) i++;
  }
  return out;
}

const GRAPH_FORMATS = ["mermaid", "dot"] as const;

function parse(name: Name, argv: string[]) {
  const { values, positionals } = parseCommandArgs(name, name === "plan" ? graphArgs(argv) : argv, OPTIONS[name]);
  if (name === "rollback") {
    // rollback [DIR] --to ID [ADDRESS]...: the argument that is a folder is DIR.
    const { dir, addresses } = splitFolderAndAddresses(positionals);
    const v = values as Record<string, string | boolean | undefined>;
    if (v.to === undefined)
      throw new CliUsageError("rollback needs --to DEPLOYMENT: the id svc-iac history lists (e.g. --to 3).");
    return { values: v, dir, addresses };
  }
  if (positionals.length > 1)
    throw new CliUsageError(`Too many arguments: ${positionals.join(" ")}. Expected at most one repository folder.`);
  return {
    values: values as Record<string, string | boolean | undefined>,
    dir: positionals[0] ?? ".",
    addresses: [] as string[],
  };
}

/**
 * Colours: never with --no-color; else as FORCE_COLOR says when it is set (0 or false: off,
 * anything else: on, also into a pipe or a file); else on a terminal unless NO_COLOR.
 */
export function colorOn(v: Record<string, string | boolean | undefined>, io: Pick<Io, "stdout" | "env">): boolean {
  if (v["no-color"]) return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== "") return !["0", "false"].includes(force.toLowerCase());
  return !!io.stdout.isTTY && !io.env.NO_COLOR;
}

/** The command a plan's stops name: "Destroy will stop", else "Apply will stop". */
const stopWord = (command: string) =>
  command === "destroy" ? "Destroy" : command === "rollback" ? "Rollback" : "Apply";

const VERBOSE_HINT = "--verbose lists every object";

/**
 * The plan as apply and destroy show it: without --verbose, the objects they create (destroy:
 * delete) one line per canvas when many share one; what changes or goes keeps its diff. `plan`
 * itself always shows every object, as `terraform plan` does: it is the document a review reads.
 */
function changingPlanText(
  plan: Plan,
  name: string,
  v: Record<string, string | boolean | undefined>,
  color: boolean,
): string {
  const bulk = v.verbose
    ? undefined
    : { actions: [name === "destroy" ? "delete" : "create"] as const, hint: VERBOSE_HINT };
  return renderPlanText(plan, { color, command: stopWord(name), ...(bulk ? { bulk } : {}) });
}

function commandOptions(
  name: Name,
  v: Record<string, string | boolean | undefined>,
  dir: string,
  io: Io,
  prompt: Prompt,
  addresses: readonly string[] = [],
): CommandOptions {
  const color = colorOn(v, io);
  const opts: CommandOptions = {
    dir,
    target: v.target as string | undefined,
    env: io.env,
    prune: v.prune ? true : undefined,
    maxDeletions: wholeNumberFlag("max-deletions", v["max-deletions"] as string | undefined, 0),
    allowDeleteAll: !!v["allow-delete-all"],
    allowCascade: !!v["allow-cascade"],
    outputs: v.outputs as string | undefined,
    discardTokens: !!v["discard-tokens"],
    detailedExitCode: !!v["detailed-exitcode"],
    concurrency: wholeNumberFlag(
      "concurrency",
      v.concurrency as string | undefined,
      CONCURRENCY_RANGE.min,
      CONCURRENCY_RANGE.max,
    ),
    ...(v.only ? { only: v.only as unknown as string[] } : {}),
    ...(v.replace ? { replace: v.replace as unknown as string[] } : {}),
    ...(name === "plan" && v.out ? { planOut: v.out as string } : {}),
    ...(v.remediate ? { remediate: true } : {}),
    ...(v["force-restore"] ? { forceRestore: v["force-restore"] as unknown as string[] } : {}),
    ...(typeof v.policies === "string" ? { policies: v.policies } : {}),
    ...(typeof v["policies-ref"] === "string" ? { policiesRef: v["policies-ref"] } : {}),
    log: (line) => io.stderr.write(`${line}\n`),
  };
  if (name === "apply" && v.plan !== undefined) {
    const given = PLANNING_FLAGS.filter((f) => v[f] !== undefined && v[f] !== false);
    if (given.length)
      throw new CliUsageError(
        `--plan cannot be combined with ${given.map((f) => `--${f}`).join(", ")}: a saved plan is applied with the options it was planned with.`,
      );
    opts.planFile = v.plan as string;
  }
  if (name === "rollback") opts.rollback = { to: v.to as string, addresses: [...addresses] };
  if (name === "apply" || name === "destroy" || name === "rollback") {
    const force = v["force-unlock"] as string | undefined;
    if (force !== undefined) opts.forceUnlock = force === "all" ? true : force;
    // The approved plan tells the display which canvas each action is on (see `run`).
    let approvedPlan: Plan | undefined;
    opts.approved = (plan) => void (approvedPlan = plan);
    // On a terminal the status line writes its own cursor moves; it escapes the names it shows itself.
    opts.progress = progressDisplay(io.stderr.isTTY ? unescapedStream(io.stderr) : io.stderr, {
      verbose: !!v.verbose,
      plan: () => approvedPlan,
    });
    // A saved plan was reviewed already: applying it is the approval, as `terraform apply FILE`.
    if (!v["auto-approve"] && v.plan === undefined) {
      if (!io.stdin.isTTY)
        throw new CliUsageError(
          `${name} needs --auto-approve when it cannot ask for confirmation (no terminal on stdin).`,
        );
      opts.confirm = async (plan) => {
        io.stdout.write(changingPlanText(plan, name, v, color));
        return confirmOnTerminal(
          io,
          plan,
          name === "destroy" ? "destroy" : name === "rollback" ? "roll back" : "apply",
          prompt,
        );
      };
    }
  }
  return opts;
}

/** A validate result as editors read it: `canvases/x/canvas.yaml:1:1: error: policy rule … (policies.yaml:3): message`. */
function policyValidateLine(r: PolicyResult): string {
  const where = r.source ? `${r.source.file}:${r.source.line}:${r.source.column}: ` : "";
  const level = r.exempted ? `exempted (${r.exempted})` : r.severity === "mandatory" ? "error" : "warning";
  return `${where}${level}: policy rule ${r.rule} (${r.rule_source.file}:${r.rule_source.line}): ${r.address ?? "the plan"}: ${r.message}`;
}

/** Writes a report: anywhere the operator chose, but inside the repository only through its jail (no link out, never .git). */
async function writeOut(dir: string, file: string, text: string): Promise<void> {
  RepositoryJail.forProject(dir).writeOperatorFile(file, text);
}

/** Errors of loading, one `file:line:column: message` per line (and annotations under GitHub Actions). */
function reportErrors(result: CommandResult, dir: string, io: Io, command: ((text: string) => void) | undefined): void {
  for (const e of result.errors) io.stderr.write(`${errorLine(result.command, dir, e)}\n`);
  if (result.errors.length) {
    io.stderr.write(
      `${result.errors.length} error${result.errors.length > 1 ? "s" : ""} in ${relative(".", resolve(dir)) || "."}; nothing was sent to the platform.\n`,
    );
    if (command) {
      for (const line of loadErrorAnnotations(result.errors, {
        repoDir: resolve(dir),
        workspace: io.env.GITHUB_WORKSPACE ?? process.cwd(),
      }))
        command(line.endsWith("\n") ? line : `${line}\n`);
    }
  }
  if ("message" in result && result.message) io.stderr.write(`${result.message}\n`);
}

/**
 * Writes a document to stdout. Plans and reports hold text from the repository and the platform
 * (diffs of code). Under Actions, a text with a line the runner would obey is shown whole with
 * commands switched off (its control characters shown as escapes); any other goes through the
 * guarded stdout.
 */
function printer(io: Io, command: ((text: string) => void) | undefined): (text: string) => void {
  return (text) => {
    const shown = command ? forWorkflowLog(logText(text), io.env) : text;
    if (command && isUntrustedBlock(shown)) command(shown);
    else io.stdout.write(text);
  };
}

async function render(
  name: Name,
  result: CommandResult,
  v: Record<string, string | boolean | undefined>,
  io: Io,
  dirArg: string,
  command: ((text: string) => void) | undefined,
  tests?: TestCommandResult,
  planShown = false,
  /** Why the apply stopped early (`interrupted (SIGINT)`): the report's verdict says so, not "failed". */
  stopped?: string,
): Promise<void> {
  const color = colorOn(v, io);
  const print = printer(io, command);
  const message = "message" in result ? result.message : undefined;
  const code = "code" in result && result.code ? { code: result.code } : {};
  if (result.command === "validate") {
    const policy = result.policy ? { policy: result.policy } : {};
    if (v.json)
      io.stdout.write(
        result.errors.length
          ? failureJson(result.errors, undefined, { valid: false })
          : toJson({ valid: result.exitCode === 0, objects: result.objects, ...policy } as never),
      );
    else {
      for (const note of result.notes ?? []) io.stderr.write(`${terminalLine(note)}\n`);
      if (result.policy) {
        for (const r of result.policy.results) io.stderr.write(`${terminalLine(policyValidateLine(r))}\n`);
        io.stderr.write(`${policySummary(result.policy)}\n`);
      }
      if (!result.errors.length && result.exitCode === 0)
        io.stdout.write(`Valid: ${result.objects} object${result.objects === 1 ? "" : "s"}.\n`);
    }
    if (command && result.policy)
      for (const line of policyAnnotations(result.policy, {
        repoDir: resolve(dirArg),
        workspace: io.env.GITHUB_WORKSPACE ?? process.cwd(),
      }))
        command(line);
    return;
  }
  const nothingToShow = (result.command === "plan" && !result.plan) || (result.command === "drift" && !result.drift);
  if (nothingToShow && (v.json || (result.command === "drift" && v.format === "json"))) {
    io.stdout.write(failureJson(result.errors, message, code));
    return;
  }
  if (result.command === "plan" && result.plan) {
    print(
      v.json
        ? toJson(result.plan)
        : v.graph
          ? planPicture(result.plan, v.graph as (typeof GRAPH_FORMATS)[number])
          : renderPlanText(result.plan, { color }),
    );
    if (v.out && result.exitCode !== 1)
      io.stderr.write(
        `Saved the plan to ${v.out as string}. To apply exactly this plan: svc-iac apply ${shellQuote(dirArg)} --plan ${shellQuote(v.out as string)}\n`,
      );
  }
  if (result.command === "apply" || result.command === "destroy") {
    if (v.json) {
      if (!result.plan && !result.report) return void io.stdout.write(failureJson(result.errors, message, code));
      const stopped =
        result.errors.length || message
          ? {
              errors: result.errors,
              code: stopCode(result.errors, message, code.code),
              ...(message ? { message } : {}),
            }
          : {};
      io.stdout.write(
        toJson({
          plan: result.plan,
          report: result.report,
          ...stopped,
          ...(tests ? { tests: tests.report ?? null } : {}),
        } as never),
      );
      return;
    }
    if (result.command === "destroy" && result.plan && !result.plan.actions.length && result.exitCode === 0) {
      io.stdout.write(
        `Nothing to destroy: the inventory of ${result.plan.project} (${result.plan.target}) records nothing that is still on the platform.\n`,
      );
      return;
    }
    // With --auto-approve the plan was printed before the first change (see `run`).
    if (result.plan && !planShown && (v["auto-approve"] || !result.report))
      print(changingPlanText(result.plan, result.command, v, color));
    const bulk = v.verbose ? {} : { bulk: { ...(result.plan ? { plan: result.plan } : {}), hint: VERBOSE_HINT } };
    if (result.report)
      print(
        `\n${renderApplyReportText(result.report, { command: name === "rollback" ? "Rollback" : result.command === "apply" ? "Apply" : "Destroy", ...bulk, ...(stopped ? { stopped } : {}) })}`,
      );
  }
  if (result.command === "drift" && result.remediation) {
    const r = result.remediation;
    const format = driftFormat(v, stepSummaryIsStdout(io) ? "md" : "text");
    print(format === "json" ? toJson(remediationJson(r) as never) : renderRemediationText(r, { color }));
    if (v.out) await writeOut(dirArg, v.out as string, toJson(remediationJson(r) as never));
    return;
  }
  if (result.command === "drift" && result.drift) {
    const shown = driftDocument(result.drift, driftFormat(v, stepSummaryIsStdout(io) ? "md" : "text"), color);
    print(shown.endsWith("\n") ? shown : `${shown}\n`);
    if (v.out)
      await writeOut(
        dirArg,
        v.out as string,
        driftDocument(result.drift, driftFormat(v, (v.out as string).endsWith(".json") ? "json" : "md"), false),
      );
  }
}

/** `plan --graph`: the plan's diagram, as the pull-request comment draws it (Mermaid) or as DOT. */
function planPicture(plan: Plan, format: (typeof GRAPH_FORMATS)[number]): string {
  const graph = planGraph(plan);
  return format === "dot" ? toDot(graph) : toMermaid(graph);
}

/** The command function, loaded when used: validate needs neither the API client nor the engine. */
async function commandFunction(
  name: Name,
  remediate = false,
): Promise<(opts: CommandOptions) => Promise<CommandResult>> {
  if (name === "validate") return (await import("../reconcile/commands/validate.js")).validateCommand;
  if (name === "destroy") return (await import("../reconcile/commands/destroy.js")).destroyCommand;
  const commands = await import("../reconcile/commands/index.js");
  return {
    plan: commands.planCommand,
    apply: commands.applyCommand,
    rollback: commands.applyCommand,
    drift: remediate ? commands.remediateCommand : commands.driftCommand,
  }[name];
}

/**
 * Runs one reconciler command from its arguments; returns the exit code. Under GitHub Actions
 * every line goes through a {@link CommandGuard} (see `actions-io.ts`): only svc-iac's own
 * annotations can be workflow commands. Elsewhere every control character is shown as an escape,
 * but svc-iac's own colours (see `escapeIo`).
 */
export async function runReconcileCommand(name: Name, argv: string[], io: Io = defaultIo()): Promise<number> {
  if (!underActions(io.env)) return run(name, argv, escapeIo(io), undefined);
  const guarded = guardIo(io);
  try {
    return await run(name, argv, guarded.io, guarded.command);
  } finally {
    guarded.flush();
  }
}

async function run(name: Name, argv: string[], io: Io, command: ((text: string) => void) | undefined): Promise<number> {
  const { values, dir, addresses } = parse(name, argv);
  checkRepositoryFolder(name, dir);
  if (name === "drift" && values.format !== undefined && !DRIFT_FORMATS.includes(values.format as never)) {
    throw new CliUsageError(`Invalid --format "${values.format}". Expected text, md (or markdown) or json.`);
  }
  if (name === "drift" && values["force-restore"] && !values.remediate)
    throw new CliUsageError(
      "--force-restore takes effect with --remediate: svc-iac drift --remediate --force-restore ADDRESS.",
    );
  if (values.graph !== undefined) {
    if (!GRAPH_FORMATS.includes(values.graph as never))
      throw new CliUsageError(`Invalid --graph "${values.graph}". Expected ${GRAPH_FORMATS.join(" or ")}.`);
    if (values.json) throw new CliUsageError("--graph cannot be combined with --json: each prints one document.");
  }
  const prompt: Prompt = {};
  const opts = commandOptions(name, values, dir, io, prompt, addresses);
  // Approved without asking: the plan is shown before the first change, as terraform does, so a
  // log of a run killed half-way still says what it was doing.
  let planShown = false;
  const changing = name === "apply" || name === "destroy" || name === "rollback";
  if (changing && values["auto-approve"] && !values.json) {
    const color = colorOn(values, io);
    const print = printer(io, command);
    const noted = opts.approved;
    opts.approved = (plan) => {
      noted?.(plan);
      print(changingPlanText(plan, name, values, color));
      planShown = true;
    };
  }
  // Ctrl-C stops starting steps instead of killing the process half-way; before the approval (the
  // plan is made under the lock) it means "change nothing", and the lock is released all the same.
  const interrupts = changing ? interruptsFor((text) => io.stderr.write(text)) : undefined;
  if (interrupts) {
    const shown = opts.approved;
    opts.approved = (plan) => {
      shown?.(plan);
      interrupts.approve();
    };
    opts.interrupted = interrupts.reason;
    const ask = opts.confirm;
    // The `yes` prompt answers Ctrl-C itself.
    if (ask) {
      opts.confirm = async (plan) => {
        interrupts.close();
        try {
          return await ask(plan);
        } finally {
          if (!prompt.interrupted) interrupts.listen();
        }
      };
    }
    interrupts.listen();
  }
  let result: CommandResult;
  try {
    result = await (await commandFunction(name, !!values.remediate))(opts);
  } finally {
    interrupts?.close();
  }
  if (prompt.interrupted || interrupts?.beforeApproval()) {
    // A script still gets its one document: the plan, and the message that nothing was changed.
    if (values.json && !prompt.interrupted) await render(name, result, values, io, dir, command, undefined, planShown);
    io.stderr.write(`\nInterrupted before any change; nothing was ${name === "destroy" ? "destroyed" : "applied"}.\n`);
    return 130;
  }
  if (interrupts?.reason() && (result.command === "apply" || result.command === "destroy")) {
    await render(name, result, values, io, dir, command, undefined, planShown, interrupts.reason());
    io.stderr.write(interruptedLine(result.report, result.command));
    return 130;
  }
  // apply --test: with --json the tests' report goes into the one JSON document, else after the apply's.
  const testing = name === "apply" && !!values.test;
  const json = !!values.json;
  let tests =
    testing && json
      ? await testAfterApply(result, { dir, target: values.target as string | undefined, json }, io)
      : undefined;
  await render(name, result, values, io, dir, command, tests, planShown);
  reportErrors(result, dir, io, command);
  const policy = "plan" in result ? result.plan?.policy : result.command === "drift" ? result.drift?.policy : undefined;
  if (command && policy)
    for (const line of policyAnnotations(policy, {
      repoDir: resolve(dir),
      workspace: io.env.GITHUB_WORKSPACE ?? process.cwd(),
    }))
      command(line);
  if (testing && !json)
    tests = await testAfterApply(result, { dir, target: values.target as string | undefined, json }, io);
  return tests && tests.exitCode !== 0 ? 1 : result.exitCode;
}
