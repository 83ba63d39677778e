/**
 * Under GitHub Actions the runner reads every line a step prints (stdout and stderr) and obeys the
 * ones that start, after leading white space, with `::` or `##[`: `::add-mask::`, `::warning::`,
 * `::stop-commands::`, … It splits lines at `\n`, `\r\n` and a lone `\r`. So text from the
 * platform, the repository or the inventory (an error detail, a cronjob name, an address) must
 * never start a line of its own.
 *
 * {@link CommandGuard} sits between svc-iac and the log: text written through `text()` has its
 * control characters shown as escapes (`\r`, `\x1b`, `\u2028`; the line breaks svc-iac itself
 * writes are `\n` and are kept), and a line that would still start a workflow command is shown
 * with a `\` in front. Only the workflow commands svc-iac builds (`workflow-commands.ts`, whose
 * data is escaped there) go through `command()` as they are.
 */
import { terminalLine, terminalText } from "../reconcile/render/terminal-text";

/** A line the runner would obey: `::name …` or the older `##[name …]`, after leading white space. */
const COMMAND_START = /^\s*(::|##\[)/;
/** What a line may begin with and still become a command once more text arrives. */
const COMMAND_PREFIX = /^\s*(:|#|##)?$/;
/** `s` on one log line: every line break and control character shown as an escape. */
export const logLine: (s: string) => string = terminalLine;

/** `s` with control characters shown as escapes; its `\n` line breaks kept. */
export const logText: (s: string) => string = terminalText;

export interface LogSink {
  write(text: string): unknown;
}

export class CommandGuard {
  private atLineStart = true;
  /** The start of a line that could still become a command: held until the line shows what it is. */
  private pending = "";

  constructor(private readonly sink: LogSink) {}

  /** Writes text that may carry anything: it cannot start a workflow command. */
  text(s: string): void {
    let out = "";
    const lines = logText(s).split("\n");
    lines.forEach((part, i) => {
      const last = i === lines.length - 1;
      let line = part;
      if (this.atLineStart) {
        line = this.pending + line;
        this.pending = "";
        if (last && COMMAND_PREFIX.test(line) && line !== "") {
          this.pending = line;
          return;
        }
        if (COMMAND_START.test(line)) line = `\\${line}`;
      }
      out += last ? line : `${line}\n`;
      this.atLineStart = !last || (line === "" && this.atLineStart);
    });
    if (out) this.sink.write(out);
  }

  /** Writes a workflow command svc-iac built (its data escaped by `workflow-commands.ts`). */
  command(s: string): void {
    this.flush();
    this.sink.write(s);
    this.atLineStart = s.endsWith("\n");
  }

  /** Writes what is held back (a line start such as `:` with nothing after it yet). */
  flush(): void {
    if (!this.pending) return;
    this.sink.write(this.pending);
    this.pending = "";
    this.atLineStart = false;
  }
}

/** True when the process runs as a GitHub Actions step. */
export const underActions = (env: Record<string, string | undefined>) => env.GITHUB_ACTIONS === "true";
