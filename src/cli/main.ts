#!/usr/bin/env node
/** The `svc-iac` command. */
import { CommandGuard, underActions } from "../github/command-guard";
import { runEmulatorCommand } from "./emulator-command";
import { runImportCommand } from "./import-command";
import { runInitCommand } from "./init-command";
import { runReconcileCommand } from "./reconcile-command";
import { CliUsageError, formatHelp } from "./usage";

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  emulator: runEmulatorCommand,
  validate: (argv) => runReconcileCommand("validate", argv),
  plan: (argv) => runReconcileCommand("plan", argv),
  apply: (argv) => runReconcileCommand("apply", argv),
  drift: (argv) => runReconcileCommand("drift", argv),
  destroy: (argv) => runReconcileCommand("destroy", argv),
  import: runImportCommand,
  init: (argv) => runInitCommand(argv),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(formatHelp());
    return command ? 0 : 1;
  }
  if (command === "--version") {
    process.stdout.write(`${require("../../package.json").version}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) throw new CliUsageError(`Unknown command "${command}". Expected one of: ${Object.keys(COMMANDS).join(", ")}.`);
  return run(rest);
}

/** stderr for the last words: guarded under GitHub Actions, as the commands' own output is. */
function errorWriter(): (text: string) => void {
  if (!underActions(process.env)) return (text) => void process.stderr.write(text);
  const guard = new CommandGuard(process.stderr);
  return (text) => {
    guard.text(text);
    guard.flush();
  };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || !process.exitCode) process.exitCode = code;
  },
  (err) => {
    const write = errorWriter();
    if (err instanceof CliUsageError) {
      write(`svc-iac: ${err.message}\nRun "svc-iac --help" for usage.\n`);
      process.exitCode = 1;
      return;
    }
    write(`svc-iac: ${(err as Error)?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
