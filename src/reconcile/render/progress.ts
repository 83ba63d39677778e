/**
 * Apply progress as it happens. On a terminal, one status line rewritten in place, with
 * failures and skips on lines of their own above it; elsewhere (CI logs, pipes) one plain line
 * per finished action and no control characters at all.
 */
import type { ProgressEvent } from "../commands/command-types";
import { wordsFor } from "./action-words";
import { oneLine } from "./values";

type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Return to the start of the line and clear it. */
const CLEAR_LINE = "\r\x1b[K";

/**
 * A progress listener writing to `stream` (usually stderr).
 * @example
 * ```ts
 * await apply({ ...options, progress: progressDisplay(process.stderr) });
 * ```
 */
export function progressDisplay(stream: ProgressStream): (e: ProgressEvent) => void {
  return stream.isTTY ? terminalDisplay(stream) : plainDisplay(stream);
}

/** Lines of the plain display are written together, at most this long after the first of them ... */
const PLAIN_BATCH_MS = 50;
/** ... or once this many are waiting: one write per line would cost a system call per action. */
const PLAIN_BATCH_LINES = 200;

function plainDisplay(stream: ProgressStream): (e: ProgressEvent) => void {
  let total = 0;
  let finished = 0;
  let waiting = "";
  let lines = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting) stream.write(waiting);
    waiting = "";
    lines = 0;
  };
  return (e) => {
    if (e.type === "start") {
      total = e.total;
      finished = 0;
    } else if (e.type === "end") {
      finished++;
      const message = e.message ? `: ${oneLine(e.message)}` : "";
      waiting += `[${finished}/${total}] ${e.status} ${oneLine(e.action)} ${oneLine(e.address)}${message}\n`;
      if (++lines >= PLAIN_BATCH_LINES || finished >= total) flush();
      else timer ??= setTimeout(flush, PLAIN_BATCH_MS);
    }
  };
}

function terminalDisplay(stream: ProgressStream): (e: ProgressEvent) => void {
  let total = 0;
  let finished = 0;
  // Actions in flight, in the order they began: the status line shows the latest.
  const inFlight = new Map<string, { address: string; action: string }>();
  const width = () => Math.max(20, (stream.columns ?? 80) - 1);

  const status = (): string => {
    const running = [...inFlight.values()];
    const latest = running[running.length - 1];
    const more = running.length > 1 ? ` (+${running.length - 1} more)` : "";
    const line = latest
      ? `[${finished}/${total}] ${wordsFor(latest.action).ongoing} ${oneLine(latest.address)} …${more}`
      : `[${finished}/${total}]`;
    // A line longer than the terminal wraps, and `\r` would then rewrite only its last part.
    return line.length > width() ? `${line.slice(0, width() - 1)}…` : line;
  };
  const key = (e: { address: string; action: string }) => `${e.address}\0${e.action}`;

  return (e) => {
    if (e.type === "start") {
      total = e.total;
      finished = 0;
      inFlight.clear();
    } else if (e.type === "begin") {
      inFlight.delete(key(e));
      inFlight.set(key(e), { address: e.address, action: e.action });
    } else {
      finished++;
      inFlight.delete(key(e));
      if (e.status !== "done") {
        const message = e.message ? `: ${oneLine(e.message)}` : "";
        const head = e.status === "failed" ? `✗ failed to ${oneLine(e.action)}` : `- skipped ${oneLine(e.action)} of`;
        stream.write(`${CLEAR_LINE}${head} ${oneLine(e.address)}${message}\n`);
      }
    }
    // When everything has finished the status line is cleared, leaving the terminal to the report.
    stream.write(finished >= total && total > 0 && inFlight.size === 0 ? CLEAR_LINE : CLEAR_LINE + status());
  };
}
