/** Runs a reconciler command of the CLI in this process, with its output captured. */
import { PassThrough } from "node:stream";
import { runReconcileCommand } from "../../src/cli/reconcile-command";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `svc-iac NAME ...argv` in-process; `tty` makes stdin a terminal, fed with `input`. */
export async function runInProcess(
  name: Parameters<typeof runReconcileCommand>[0], argv: string[], env: Record<string, string>, opts: { tty?: boolean; input?: string } = {},
): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty ?? false });
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += String(c)));
  stderr.on("data", (c) => (err += String(c)));
  if (opts.input !== undefined) stdin.end(opts.input);
  const code = await runReconcileCommand(name, argv, { stdout, stderr, stdin, env });
  return { code, stdout: out, stderr: err };
}
