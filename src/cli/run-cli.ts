/**
 * The `svc-iac` command line with its streams, environment and working folder given: what the
 * `svc-iac` program runs (`main.ts`, with this process's own) and what tests call in-process. Each
 * command's module is loaded only when that command runs (`require` inside the handler), so
 * `--help` loads nothing but the usage text, `validate` never loads the emulator, the API client
 * or the GitHub code, and no command loads the Pulumi SDK.
 */
import { asksForHelp } from "./help-request";
import { nodeVersionProblem } from "./node-version";
import { CliUsageError, formatCommandHelp, formatHelp, isCommandName } from "./usage";

/** What a run of the command line reads and writes besides its arguments. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** The folder relative paths are resolved from (`init`); the others resolve from the process's. */
  cwd: string;
  /** Called before a reconciler command runs (the program tunes its heap there); not in tests. */
  beforeReconcile?: (name: ReconcileName) => void;
}

type ReconcileName = "validate" | "plan" | "apply" | "drift" | "destroy" | "rollback";

const reconcile = (name: ReconcileName) => (argv: string[], io: CliIo) => {
  io.beforeReconcile?.(name);
  return (require("./reconcile-command") as typeof import("./reconcile-command")).runReconcileCommand(name, argv, io);
};

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  emulator: (argv) => (require("./emulator-command") as typeof import("./emulator-command")).runEmulatorCommand(argv),
  validate: reconcile("validate"),
  plan: reconcile("plan"),
  apply: reconcile("apply"),
  drift: reconcile("drift"),
  destroy: reconcile("destroy"),
  rollback: reconcile("rollback"),
  import: (argv, io) => (require("./import-command") as typeof import("./import-command")).runImportCommand(argv, io),
  init: (argv, io) => (require("./init-command") as typeof import("./init-command")).runInitCommand(argv, io),
  forget: (argv, io) => (require("./forget-command") as typeof import("./forget-command")).runForgetCommand(argv, io),
  test: (argv, io) => (require("./test-command") as typeof import("./test-command")).runTestCommand(argv, io),
  show: (argv, io) => (require("./show-command") as typeof import("./show-command")).runShowCommand(argv, io),
  history: (argv, io) =>
    (require("./history-command") as typeof import("./history-command")).runHistoryCommand(argv, io),
  run: (argv, io) => (require("./run-command") as typeof import("./run-command")).runRunCommand(argv, io),
  projects: (argv, io) =>
    (require("./projects-command") as typeof import("./projects-command")).runProjectsCommand(argv, io),
};

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  // Before anything else loads: on an older Node a command would fail later, in other words.
  const tooOld = nodeVersionProblem();
  if (tooOld) {
    io.stderr.write(tooOld);
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
    io.stdout.write(
      about !== undefined ? formatCommandHelp(about as Parameters<typeof formatCommandHelp>[0]) : formatHelp(),
    );
    return command ? 0 : 1;
  }
  // Before the command's module loads: `apply --help` never applies, whatever else it holds.
  if (isCommandName(command) && asksForHelp(rest)) {
    io.stdout.write(formatCommandHelp(command));
    return 0;
  }
  if (command === "--version") {
    io.stdout.write(`${require("../../package.json").version}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    // Loaded only for this error: the help and every command start without it.
    const { closest } = require("../repository/diagnostics") as typeof import("../repository/diagnostics");
    const meant = command.startsWith("-") ? undefined : closest(command, Object.keys(COMMANDS));
    throw new CliUsageError(
      `Unknown command "${command}".${meant ? ` Did you mean "${meant}"?` : ""} Expected one of: ${Object.keys(COMMANDS).join(", ")}.`,
    );
  }
  // The engine's embedded platform: the emulator, loaded only if a command connects without a base URL.
  const { provideEmbeddedPlatform } = require("../embedded-platform") as typeof import("../embedded-platform");
  provideEmbeddedPlatform((dir) =>
    (require("./embedded-emulator") as typeof import("./embedded-emulator")).startEmbeddedEmulator(dir),
  );
  return run(rest, io);
}

/** stderr for the last words: guarded under GitHub Actions, escaped elsewhere, as the commands' own output is. */
function errorWriter(io: CliIo): (text: string) => void {
  const { CommandGuard, underActions } = require("../github/command-guard") as typeof import("../github/command-guard");
  if (!underActions(io.env)) {
    // A message may hold a name or an error detail from the repository or the platform.
    const { terminalText } =
      require("../reconcile/render/terminal-text") as typeof import("../reconcile/render/terminal-text");
    return (text) => void io.stderr.write(terminalText(text));
  }
  const guard = new CommandGuard(io.stderr);
  return (text) => {
    guard.text(text);
    guard.flush();
  };
}

/** The failure of a command that threw: the message (a usage error says where to read the usage), exit 1. */
function reportFailure(err: unknown, argv: string[], io: CliIo): number {
  const write = errorWriter(io);
  // --json promises one document on stdout, also when the command stops before it has one.
  if (argv.slice(1).includes("--json")) {
    const { failureJson } = require("../reconcile/render/json") as typeof import("../reconcile/render/json");
    const { errorCodeOf } = require("../errors") as typeof import("../errors");
    const { terminalText } =
      require("../reconcile/render/terminal-text") as typeof import("../reconcile/render/terminal-text");
    // Still JSON: C0 characters are JSON escapes already, the others become `\u` escapes.
    io.stdout.write(terminalText(failureJson([], (err as Error)?.message ?? String(err), { code: errorCodeOf(err) })));
  }
  if (err instanceof CliUsageError) {
    const command = argv[0];
    const known = command !== undefined && isCommandName(command);
    // Every usage error names the command it is about.
    const about = known && !err.message.startsWith(command) ? `${command}: ` : "";
    write(`svc-iac: ${about}${err.message}\nRun "svc-iac ${known ? `${command} ` : ""}--help" for usage.\n`);
    return 1;
  }
  write(`svc-iac: ${(err as Error)?.message ?? err}\n`);
  return 1;
}

/** Runs `svc-iac ...argv` with `io`; resolves to the exit code (it never rejects). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    return reportFailure(err, argv, io);
  }
}
