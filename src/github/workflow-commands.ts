/**
 * GitHub Actions workflow commands (`::error …::`, `::add-mask::`, `::stop-commands::`) and the
 * `$GITHUB_OUTPUT` file format. Pure string building, except {@link appendOutputs}, which appends
 * to the file the runner names.
 *
 * Escaping follows the runner (`actions/toolkit` `command.ts`): message data escapes `%`, `\r` and
 * `\n`; property values additionally escape `:` and `,`, which would otherwise end the property.
 */
import { randomUUID } from "node:crypto";
import { appendFile } from "node:fs/promises";
import { SvcError } from "../errors";

/** Control characters other than the line breaks `escapeData` encodes (ESC, C1, U+2028 and U+2029), as escapes (`\x1b`). */
const CONTROLS_BUT_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g;

function visibleControls(s: string): string {
  return s.replace(CONTROLS_BUT_BREAKS, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
}

/** Escapes the message part of a workflow command (after the closing `::`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a property value (`file=…`, `title=…`) of a workflow command. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** Where an annotation points: a file relative to the workspace root, 1-based line and column. */
export interface AnnotationProperties {
  file?: string;
  line?: number;
  col?: number;
  endLine?: number;
  endColumn?: number;
  title?: string;
}

export type AnnotationLevel = "error" | "warning" | "notice";

/**
 * One annotation command line, newline included.
 * @example
 * annotation("error", "unknown key", { file: "infra/svc.yaml", line: 3, col: 1 })
 * // "::error file=infra/svc.yaml,line=3,col=1::unknown key\n"
 */
export function annotation(level: AnnotationLevel, message: string, props: AnnotationProperties = {}): string {
  const pairs: string[] = [];
  // A file name or message from a pull request may hold an escape sequence (`\x1b[2J`): shown, like every other line.
  message = visibleControls(message);
  props = {
    ...props,
    ...(props.file !== undefined ? { file: visibleControls(props.file) } : {}),
    ...(props.title !== undefined ? { title: visibleControls(props.title) } : {}),
  };
  if (props.file !== undefined) pairs.push(`file=${escapeProperty(props.file)}`);
  if (props.line !== undefined) pairs.push(`line=${props.line}`);
  if (props.endLine !== undefined) pairs.push(`endLine=${props.endLine}`);
  if (props.col !== undefined) pairs.push(`col=${props.col}`);
  if (props.endColumn !== undefined) pairs.push(`endColumn=${props.endColumn}`);
  if (props.title !== undefined) pairs.push(`title=${escapeProperty(props.title)}`);
  return `::${level}${pairs.length ? ` ${pairs.join(",")}` : ""}::${escapeData(message)}\n`;
}

/**
 * Asks the runner to replace `secret` with `***` in every later log line. Each line of a
 * multi-line value is masked on its own, as the runner matches line by line.
 */
export function addMask(secret: string): string {
  return secret
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => `::add-mask::${escapeData(line)}\n`)
    .join("");
}

/**
 * Prints text that the workflow does not control (plan Markdown built from a pull request's
 * files) with workflow commands switched off, so a line such as `::add-mask::` or `::error::`
 * inside it is shown, not obeyed.
 */
export function untrustedBlock(text: string, token: string = randomUUID()): string {
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `::stop-commands::${token}\n${body}::${token}::\n`;
}

/** Whether `text` is an {@link untrustedBlock}: workflow commands switched off around it. */
export function isUntrustedBlock(text: string): boolean {
  return /^::stop-commands::([^\n]+)\n[\s\S]*::\1::\n$/.test(text);
}

/** A line the runner reads as a workflow command: `::` first, after any leading whitespace. */
const COMMAND_LINE = /^[ \t]*::/m;

/**
 * Text the command prints where the Actions runner reads it (`GITHUB_ACTIONS=true`): when a line of
 * it would be obeyed as a workflow command (a line of a UDF's code in a plan's diff), the whole
 * text is printed with commands switched off; otherwise as it is.
 */
export function forWorkflowLog(text: string, env: Record<string, string | undefined>): string {
  return env.GITHUB_ACTIONS === "true" && COMMAND_LINE.test(text) ? untrustedBlock(text) : text;
}

/** A collapsible group in the log. */
export function group(title: string, body: string): string {
  return `::group::${escapeData(title)}\n${body.endsWith("\n") ? body : `${body}\n`}::endgroup::\n`;
}

/**
 * The `$GITHUB_OUTPUT` text for `outputs`, sorted by name. Single-line values are `name=value`;
 * values with a newline use the heredoc form with a random delimiter that cannot occur inside.
 */
export function formatOutputs(
  outputs: Record<string, string>,
  delimiter: () => string = () => `ghadelimiter_${randomUUID()}`,
): string {
  let text = "";
  for (const name of Object.keys(outputs).sort()) {
    const value = outputs[name];
    if (!/[\r\n]/.test(value)) {
      text += `${name}=${value}\n`;
      continue;
    }
    const delim = delimiter();
    if (value.includes(delim))
      throw new SvcError(
        "output_invalid",
        `Output "${name}" contains its own delimiter "${delim}"; expected a value without it.`,
      );
    text += `${name}<<${delim}\n${value}\n${delim}\n`;
  }
  return text;
}

/** Appends outputs to the `$GITHUB_OUTPUT` file (nothing when the runner gave none). */
export async function appendOutputs(file: string | undefined, outputs: Record<string, string>): Promise<void> {
  if (!file) return;
  await appendFile(file, formatOutputs(outputs), "utf8");
}
