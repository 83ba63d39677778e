/**
 * Whether a command line asks only for help or the version, which the command line answers from
 * its usage text alone: `run-cli.ts` answers it before any command loads, and `main.ts` then runs
 * the program on its few unbundled modules instead of loading the bundle.
 */

/** `--help` or `-h` among the options (not after `--`, where every argument is a folder or a value). */
export const asksForHelp = (argv: readonly string[]): boolean => {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
};

/** True for `svc-iac`, `svc-iac --help`, `svc-iac help [command]`, `svc-iac --version` and `svc-iac <anything> --help`. */
export function onlyHelpOrVersion(argv: readonly string[]): boolean {
  const [command, ...rest] = argv;
  return (
    !command ||
    command === "--help" ||
    command === "-h" ||
    command === "help" ||
    command === "--version" ||
    asksForHelp(rest)
  );
}
