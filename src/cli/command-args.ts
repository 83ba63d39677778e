/**
 * The one way commands read their flags: strictly, with errors in our words. Node's `parseArgs`
 * finds the fault; {@link describeArgsError} says it as the user needs it: the command, the option
 * found, what was expected and the options the command accepts (with a "did you mean").
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { closest } from "../repository/diagnostics";
import { CliUsageError } from "./usage";

/**
 * A command's flags and positionals: an unknown or malformed flag is a {@link CliUsageError}.
 * `positionals: false` refuses any argument that is not a flag (the emulator takes no folder).
 */
export function parseCommandArgs<const O extends ParseArgsOptionsConfig>(
  command: string,
  argv: string[],
  options: O,
  opts: { positionals?: boolean } = {},
) {
  const allowPositionals = opts.positionals ?? true;
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (e) {
    throw new CliUsageError(describeArgsError(command, argv, options, allowPositionals) ?? (e as Error).message);
  }
}

/** What is wrong with `argv` for `command`, in one sentence and the accepted options; undefined when nothing is. */
export function describeArgsError(
  command: string,
  argv: string[],
  options: ParseArgsOptionsConfig,
  allowPositionals = true,
): string | undefined {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === "option-terminator") return undefined;
    if (t.kind === "positional") {
      if (!allowPositionals)
        return `${command} takes no arguments, only options; found "${t.value}". ${accepted(command, options)}`;
      continue;
    }
    const spec = options[t.name];
    const known = spec !== undefined && (t.rawName.startsWith("--") || spec.short === t.rawName.slice(1));
    if (!known) {
      const close = meant(t.rawName.replace(/^-+/, ""), Object.keys(options));
      return `${command} has no option ${t.rawName}.${close ? ` Did you mean --${close}?` : ""} ${accepted(command, options)}`;
    }
    if (spec.type === "boolean" && t.inlineValue)
      return `${command}: ${t.rawName} takes no value, found ${argv[t.index]}. ${accepted(command, options)}`;
    if (spec.type === "string" && t.value === undefined) {
      return `${command}: ${t.rawName} needs a value, found the end of the command line (e.g. ${t.rawName} ${placeholder(t.name)}).`;
    }
    // Strict parsing takes no separate value starting with "-": it may be a forgotten value before the next option.
    if (spec.type === "string" && !t.inlineValue && t.value?.startsWith("-")) {
      if (/^-\d/.test(t.value))
        return `${command}: ${t.rawName} ${t.value}: a value starting with "-" is written ${t.rawName}=${t.value}.`;
      return `${command}: ${t.rawName} needs a value, found the option ${t.value} (e.g. ${t.rawName} ${placeholder(t.name)}; a value starting with "-" is written ${t.rawName}=${t.value}).`;
    }
  }
  return undefined;
}

/** `plan accepts: --target (-t), --json, ...`: the options as the user types them. */
function accepted(command: string, options: ParseArgsOptionsConfig): string {
  const names = Object.entries(options).map(
    ([name, o]) => `--${name}${o.type === "string" ? ` ${placeholder(name)}` : ""}${o.short ? ` (-${o.short})` : ""}`,
  );
  return `${command} accepts: ${[...names, "--help (-h)"].join(", ")}.`;
}

/** How the help names an option's value. */
function placeholder(name: string): string {
  const known: Record<string, string> = {
    target: "T",
    out: "FILE",
    outputs: "FILE",
    plan: "FILE",
    seed: "FILE",
    "data-dir": "DIR",
    schemas: "URL|DIR",
    only: "ADDRESS",
    replace: "ADDRESS",
    keep: "ADDRESS",
    "force-unlock": "ID|all",
    format: "md|json",
    graph: "mermaid|dot",
    canvas: "NAME",
    project: "NAME",
    host: "ADDRESS",
    faults: "SPEC",
    python: "PATH",
    "run-time-limit": "SECONDS",
  };
  return known[name] ?? "N";
}

/** The option meant by a typo (`--no-colour`) or the start of a name (`--detailed`), when one is close enough. */
const meant = (typed: string, names: string[]) =>
  names.find((n) => typed.length >= 3 && n.startsWith(typed)) ?? closest(typed, names);

/**
 * A flag's whole-number value, checked as svc.yaml checks the same setting: digits only (no sign,
 * exponent, hex or spaces), from `min` to `max`. Undefined when the flag was not given.
 */
export function wholeNumberFlag(
  flag: string,
  value: string | undefined,
  min: number,
  max?: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= (max ?? Number.MAX_SAFE_INTEGER))) {
    throw new CliUsageError(
      `Invalid --${flag} "${value}": expected ${max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`}.`,
    );
  }
  return n;
}
