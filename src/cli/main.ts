#!/usr/bin/env node
/**
 * The `svc-iac` command. Each command's module is loaded only when that command runs (`require`
 * inside the handler), so `--help` loads nothing but the usage text, `validate` never loads the
 * emulator, the API client or the GitHub code, and no command loads the Pulumi SDK.
 */
import { enableCompileCache } from "node:module";
import { nodeVersionProblem } from "./node-version";
import { CliUsageError, formatCommandHelp, formatHelp, isCommandName } from "./usage";

// V8's compiled code of svc-iac and its dependencies is kept on disk (the OS temp folder) and
// reused by the next run: startup is mostly module loading.
enableCompileCache?.();

const reconcile = (name: "validate" | "plan" | "apply" | "drift" | "destroy") => (argv: string[]) => {
  // These hold the repository, the inventory and the platform's objects at once: keep the heap small.
  const heap = name !== "validate" ? (require("./young-generation") as typeof import("./young-generation")) : undefined;
  if (name === "plan" || name === "drift") heap?.keepHeapSmall();
  else heap?.capYoungGeneration();
  return (require("./reconcile-command") as typeof import("./reconcile-command")).runReconcileCommand(name, argv);
};

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  emulator: (argv) => (require("./emulator-command") as typeof import("./emulator-command")).runEmulatorCommand(argv),
  validate: reconcile("validate"),
  plan: reconcile("plan"),
  apply: reconcile("apply"),
  drift: reconcile("drift"),
  destroy: reconcile("destroy"),
  import: (argv) => (require("./import-command") as typeof import("./import-command")).runImportCommand(argv),
  init: (argv) => (require("./init-command") as typeof import("./init-command")).runInitCommand(argv),
  forget: (argv) => (require("./forget-command") as typeof import("./forget-command")).runForgetCommand(argv),
  test: (argv) => (require("./test-command") as typeof import("./test-command")).runTestCommand(argv),
  show: (argv) => (require("./show-command") as typeof import("./show-command")).runShowCommand(argv),
  run: (argv) => (require("./run-command") as typeof import("./run-command")).runRunCommand(argv),
  projects: (argv) => (require("./projects-command") as typeof import("./projects-command")).runProjectsCommand(argv),
};

/** `--help` or `-h` among the options (not after `--`, where every argument is a folder or a value). */
const asksForHelp = (argv: string[]) => {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
};

async function main(argv: string[]): Promise<number> {
  // Before anything else loads: on an older Node a command would fail later, in other words.
  const tooOld = nodeVersionProblem();
  if (tooOld) {
    process.stderr.write(tooOld);
    return 1;
  }
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    // `svc-iac help plan`, as `svc-iac plan --help`.
    const about = command === "help" ? rest[0] : undefined;
    if (about !== undefined && !isCommandName(about))
      throw new CliUsageError(
        `help: unknown command "${about}". Expected one of: ${Object.keys(COMMANDS).join(", ")}.`,
      );
    process.stdout.write(
      about !== undefined ? formatCommandHelp(about as Parameters<typeof formatCommandHelp>[0]) : formatHelp(),
    );
    return command ? 0 : 1;
  }
  // Before the command's module loads: `apply --help` never applies, whatever else it holds.
  if (isCommandName(command) && asksForHelp(rest)) {
    process.stdout.write(formatCommandHelp(command));
    return 0;
  }
  if (command === "--version") {
    process.stdout.write(`${require("../../package.json").version}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    // Loaded only for this error: the help and every command start without it.
    const { closest } = require("../reconcile/load/diagnostics") as typeof import("../reconcile/load/diagnostics");
    const meant = command.startsWith("-") ? undefined : closest(command, Object.keys(COMMANDS));
    throw new CliUsageError(
      `Unknown command "${command}".${meant ? ` Did you mean "${meant}"?` : ""} Expected one of: ${Object.keys(COMMANDS).join(", ")}.`,
    );
  }
  return run(rest);
}

/** stderr for the last words: guarded under GitHub Actions, escaped elsewhere, as the commands' own output is. */
function errorWriter(): (text: string) => void {
  const { CommandGuard, underActions } = require("../github/command-guard") as typeof import("../github/command-guard");
  if (!underActions(process.env)) {
    // A message may hold a name or an error detail from the repository or the platform.
    const { terminalText } =
      require("../reconcile/render/terminal-text") as typeof import("../reconcile/render/terminal-text");
    return (text) => void process.stderr.write(terminalText(text));
  }
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
    // --json promises one document on stdout, also when the command stops before it has one.
    if (process.argv.slice(3).includes("--json")) {
      const { failureJson } = require("../reconcile/render/json") as typeof import("../reconcile/render/json");
      const { terminalText } =
        require("../reconcile/render/terminal-text") as typeof import("../reconcile/render/terminal-text");
      // Still JSON: C0 characters are JSON escapes already, the others become `\u` escapes.
      process.stdout.write(terminalText(failureJson([], (err as Error)?.message ?? String(err))));
    }
    if (err instanceof CliUsageError) {
      const command = process.argv[2];
      const known = command !== undefined && isCommandName(command);
      // Every usage error names the command it is about.
      const about = known && !err.message.startsWith(command) ? `${command}: ` : "";
      write(`svc-iac: ${about}${err.message}\nRun "svc-iac ${known ? `${command} ` : ""}--help" for usage.\n`);
      process.exitCode = 1;
      return;
    }
    write(`svc-iac: ${(err as Error)?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
