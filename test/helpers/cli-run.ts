/** Runs a reconciler command of the CLI in this process, with its output captured. */
import { PassThrough } from "node:stream";
import { runImportCommand } from "../../src/cli/import-command";
import { createRequire } from "node:module";
import { builtCli } from "./repo";
import { runReconcileCommand } from "../../src/cli/reconcile-command";
import type { CommandResult } from "../../src/reconcile/commands/command-types";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, in the order they were written (as a terminal or a CI log shows them). */
  log: string;
}

/** Streams for a command run in this process, and what was written to them. */
function capturedIo(opts: { tty?: boolean; input?: string; stdoutTty?: boolean } = {}) {
  const stdout = Object.assign(new PassThrough(), { isTTY: opts.stdoutTty ?? false });
  const stderr = Object.assign(new PassThrough(), { isTTY: false });
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty ?? false });
  const written = { stdout: "", stderr: "", log: "" };
  stdout.on("data", (c) => ((written.stdout += String(c)), (written.log += String(c))));
  stderr.on("data", (c) => ((written.stderr += String(c)), (written.log += String(c))));
  if (opts.input !== undefined) stdin.end(opts.input);
  return { stdout, stderr, stdin, written };
}

/**
 * `svc-iac NAME ...argv` in-process; `tty` makes stdin a terminal, fed with `input`; `stdoutTty`
 * makes stdout one (colours, progress).
 */
export async function runInProcess(
  name: Parameters<typeof runReconcileCommand>[0],
  argv: string[],
  env: Record<string, string>,
  opts: { tty?: boolean; input?: string; stdoutTty?: boolean } = {},
): Promise<Ran> {
  const { written, ...io } = capturedIo(opts);
  const code = await runReconcileCommand(name, argv, { ...io, env });
  return { code, ...written };
}

/** `svc-iac import ...argv` in-process, with its output captured. */
export async function runImportInProcess(argv: string[], env: Record<string, string>): Promise<Ran> {
  const { stdout, stderr, written } = capturedIo();
  const code = await runImportCommand(argv, { stdout, stderr, env });
  return { code, ...written };
}

/** What a plan or apply result planned, for assertions. */
export function planOf(r: CommandResult) {
  if (r.command !== "plan" && r.command !== "apply") throw new Error("plan expected");
  if (!r.plan) throw new Error(`no plan: ${messageOf(r)}`);
  return r.plan;
}

export const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");

/** The planned actions as `action address` lines. */
export const actionsOf = (r: CommandResult) => planOf(r).actions.map((a) => `${a.action} ${a.address}`);

/** A command of the CLI that takes its streams and environment (`runShowCommand`, `runRunCommand`, `runForgetCommand`, …). */
type CommandWithIo = (
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
) => Promise<number>;

/** Runs such a command in this process with `env`, its output captured. */
export async function runCaptured(
  command: CommandWithIo,
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { stdout, stderr, written } = capturedIo();
  const code = await command(argv, { stdout, stderr, env });
  return { code, stdout: written.stdout, stderr: written.stderr };
}

/**
 * `svc-iac ...argv` in this process, as the program runs it (the command line's own parsing, help
 * and error reporting), with `env` as its whole environment beside PATH and HOME-less like a CI
 * job: no process start and no module load per call. `cwd` is where relative paths resolve
 * (the process's folder is changed for the call: test files run one test at a time).
 */
export async function runSvc(
  argv: string[],
  env: Record<string, string> = {},
  opts: { cwd?: string; input?: string; tty?: boolean; stdoutTty?: boolean } = {},
): Promise<Ran> {
  const { written, ...io } = capturedIo({ ...opts, input: opts.input ?? "" });
  // The built command line, as the program runs it (its lazy `require`s load the built modules).
  const { runCli } = createRequire(__filename)(
    builtCli().replace(/main\.js$/, "run-cli.js"),
  ) as typeof import("../../src/cli/run-cli");
  const before = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  try {
    const code = await runCli(argv, { ...io, env: { PATH: process.env.PATH ?? "", ...env }, cwd: opts.cwd ?? before });
    return { code, ...written };
  } finally {
    if (opts.cwd) process.chdir(before);
  }
}
