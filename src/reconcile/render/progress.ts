/**
 * Apply progress as it happens. On a terminal, one status line rewritten in place, fitted to the
 * terminal's width, with failures and skips on lines of their own above it (a skip once per reason).
 * Elsewhere (CI logs, pipes) plain lines and no control characters: each failure, the first skip
 * of each reason, and one line per canvas
 * (or kind, for objects on no canvas) once all its actions have finished; with `verbose`, one
 * line per finished action.
 */
import type { ProgressEvent } from "../commands/command-types";
import type { Plan } from "../plan/plan-model";
import { wordsFor } from "./action-words";
import { canvasOf, kindNoun } from "./bulk-groups";
import { displayWidth, headToWidth, middleEllipsis } from "./display-width";
import { formatCount, oneLine } from "./values";

type ProgressStream = NodeJS.WritableStream & {
  isTTY?: boolean;
  columns?: number;
  /** A terminal's size asked of the system now (`columns` changes only once SIGWINCH is handled). */
  getWindowSize?: () => [number, number];
  on?: (event: "resize", listener: () => void) => unknown;
  off?: (event: "resize", listener: () => void) => unknown;
};

export interface ProgressOptions {
  /** Outside a terminal, one line per finished action. @default false */
  verbose?: boolean;
  /**
   * The plan being applied, read when apply starts: outside a terminal, it tells which canvas each
   * action belongs to and how many each has. Without it, each action gets its line.
   */
  plan?: () => Plan | undefined;
  /**
   * On a terminal, the least time between two redraws of the status line: events in between
   * change what it will show, and the last of them is drawn when the time is up. Failures, skips
   * and the final clear are written at once. @default 100
   */
  statusIntervalMs?: number;
}

/** Return to the start of the line and clear it. */
const CLEAR_LINE = "\r\x1b[K";

/**
 * A progress listener writing to `stream` (usually stderr).
 * @example
 * ```ts
 * await apply({ ...options, progress: progressDisplay(process.stderr) });
 * ```
 */
export function progressDisplay(stream: ProgressStream, opts: ProgressOptions = {}): (e: ProgressEvent) => void {
  if (stream.isTTY) return terminalDisplay(stream, opts.statusIntervalMs ?? STATUS_INTERVAL_MS);
  return opts.verbose || !opts.plan ? plainDisplay(stream) : summaryDisplay(stream, opts.plan);
}

/**
 * The status line is redrawn at most this often: a redraw per event was two writes to the terminal
 * per step (begin and end), 20,000 system calls for 10,000 creates, faster than anyone reads.
 */
const STATUS_INTERVAL_MS = 100;

/** Lines of the plain display are written together, at most this long after the first of them ... */
const PLAIN_BATCH_MS = 50;
/** ... or once this many are waiting: one write per line would cost a system call per action. */
const PLAIN_BATCH_LINES = 200;

const counter = (finished: number, total: number) => `[${finished}/${total}]`;

function endLine(e: Extract<ProgressEvent, { type: "end" }>, finished: number, total: number): string {
  const message = e.message ? `: ${oneLine(e.message)}` : "";
  return `${counter(finished, total)} ${e.status} ${oneLine(e.action)} ${oneLine(e.address)}${message}\n`;
}

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
      waiting += endLine(e, finished, total);
      if (++lines >= PLAIN_BATCH_LINES || finished >= total) flush();
      else timer ??= setTimeout(flush, PLAIN_BATCH_MS);
    }
  };
}

/**
 * Whether a skip is the first with its reason: an interrupt or a lost lock skips every step not
 * started, and a thousand identical lines would bury the rest. The others are counted (in the
 * canvas's line, the status line's counter) and the report lists them grouped.
 */
function firstSkipOf(): (e: { message?: string }) => boolean {
  const said = new Set<string>();
  return (e) => {
    const reason = e.message ?? "";
    if (said.has(reason)) return false;
    said.add(reason);
    return true;
  };
}

/** With nothing else said for this long, the summary display says how far it got. */
const QUIET_MS = 10_000;

interface Group {
  label: string;
  expected: number;
  done: number;
  failed: number;
  skipped: number;
}

/** Failures and skips on lines of their own; successes counted, one line per canvas (or kind) once it has finished. */
function summaryDisplay(stream: ProgressStream, planOf: () => Plan | undefined): (e: ProgressEvent) => void {
  let total = 0;
  let finished = 0;
  let groups = new Map<string, Group>();
  let groupOf = new Map<string, Group>();
  let lastWrite = Date.now();
  const write = (text: string) => {
    stream.write(text);
    lastWrite = Date.now();
  };
  const said = (g: Group) =>
    [
      `${formatCount(g.done)} done`,
      ...(g.failed ? [`${formatCount(g.failed)} failed`] : []),
      ...(g.skipped ? [`${formatCount(g.skipped)} skipped`] : []),
    ].join(", ");
  const report = (g: Group) => write(`${counter(finished, total)} ${g.label}: ${said(g)}\n`);
  const firstSkip = firstSkipOf();

  return (e) => {
    if (e.type === "start") {
      total = e.total;
      finished = 0;
      ({ groups, groupOf } = planGroups(planOf()));
    } else if (e.type === "end") {
      finished++;
      const g = groupOf.get(`${e.action}\0${e.address}`);
      if (!g) {
        write(endLine(e, finished, total));
      } else {
        g[e.status]++;
        if (e.status === "failed" || (e.status === "skipped" && firstSkip(e))) write(endLine(e, finished, total));
        if (g.done + g.failed + g.skipped === g.expected) {
          report(g);
          groups.delete(g.label);
        } else if (Date.now() - lastWrite >= QUIET_MS) {
          write(`${counter(finished, total)} ${formatCount(finished)} of ${formatCount(total)} finished\n`);
        }
      }
      // Groups whose actions did not all come (a plan that differs from the steps) are told at the end.
      if (finished >= total) {
        for (const left of groups.values()) if (left.done + left.failed + left.skipped > 0) report(left);
        groups.clear();
      }
    }
  };
}

/** The groups of the plan's actions (forgets make no call and no progress), by canvas or kind. */
function planGroups(plan: Plan | undefined): { groups: Map<string, Group>; groupOf: Map<string, Group> } {
  const groups = new Map<string, Group>();
  const groupOf = new Map<string, Group>();
  for (const a of plan?.actions ?? []) {
    if (a.action === "forget") continue;
    const label = canvasOf(a) ?? kindNoun(a.kind, 2);
    let g = groups.get(label);
    if (!g) groups.set(label, (g = { label, expected: 0, done: 0, failed: 0, skipped: 0 }));
    g.expected++;
    groupOf.set(`${a.action}\0${a.address}`, g);
  }
  return { groups, groupOf };
}

function terminalDisplay(stream: ProgressStream, intervalMs: number): (e: ProgressEvent) => void {
  let total = 0;
  let finished = 0;
  // Actions in flight, in the order they began: the status line shows the latest.
  const inFlight = new Map<string, { address: string; action: string }>();
  // The terminal's width when each write happens, asked of the terminal itself: a resize re-fits
  // the next line even before its SIGWINCH is handled (a write in between would be fitted to the
  // old width, and the last clear would miss the rows the terminal re-wrapped the line on).
  const columns = (): number => {
    try {
      const live = stream.getWindowSize?.()[0];
      if (live && live > 0) return live;
    } catch {
      // Not a terminal any more (closed): the last size Node knew.
    }
    return stream.columns ?? 80;
  };
  const width = () => Math.max(10, columns() - 1);

  const status = (): string => {
    let latest: { address: string; action: string } | undefined;
    for (const a of inFlight.values()) latest = a;
    if (!latest) return counter(finished, total);
    return fitStatus(
      counter(finished, total),
      wordsFor(latest.action).ongoing,
      oneLine(latest.address),
      inFlight.size - 1,
      width(),
    );
  };
  const key = (e: { address: string; action: string }) => `${e.address}\0${e.action}`;
  const done = () => finished >= total && total > 0 && inFlight.size === 0;
  // The width of the status line on screen (0 when there is none).
  let shown = 0;
  // When the status line was last drawn, and the timer of the redraw that is due.
  let drawnAt = -Infinity;
  let due: ReturnType<typeof setTimeout> | undefined;
  // Before the status line on screen is replaced: a terminal made narrower than the line re-wraps
  // it on several rows (most terminals, tmux included, do), and the rows above the cursor are
  // cleared too, or a part of it would stay behind. The caller's write starts with CLEAR_LINE.
  const clearRowsAbove = () => {
    const rows = Math.ceil(shown / Math.max(1, columns()));
    if (rows > 1) stream.write(`${CLEAR_LINE}${"\x1b[1A\x1b[2K".repeat(rows - 1)}`);
    shown = 0;
  };
  const show = (line: string) => {
    clearTimeout(due);
    due = undefined;
    clearRowsAbove();
    stream.write(CLEAR_LINE + line);
    shown = displayWidth(line);
    drawnAt = performance.now();
  };
  const redraw = () => {
    if (total === 0 || done()) return;
    show(status());
  };
  /** Draws the status line now if it was not drawn for {@link intervalMs}, else once that time is up. */
  const showSoon = () => {
    const wait = drawnAt + intervalMs - performance.now();
    if (wait <= 0) return show(status());
    if (due) return;
    due = setTimeout(() => {
      due = undefined;
      if (total > 0 && !done()) show(status());
    }, wait);
    // Not holding the process open: an apply that ends clears the line itself.
    due.unref?.();
  };
  let listening = false;
  const firstSkip = firstSkipOf();

  return (e) => {
    if (e.type === "start") {
      total = e.total;
      finished = 0;
      inFlight.clear();
      if (!listening && stream.on) {
        stream.on("resize", redraw);
        listening = true;
      }
    } else if (e.type === "begin") {
      inFlight.delete(key(e));
      inFlight.set(key(e), { address: e.address, action: e.action });
    } else {
      finished++;
      inFlight.delete(key(e));
      if (e.status === "failed" || (e.status === "skipped" && firstSkip(e))) {
        const message = e.message ? `: ${oneLine(e.message)}` : "";
        const head = e.status === "failed" ? `✗ failed to ${oneLine(e.action)}` : `- skipped ${oneLine(e.action)} of`;
        clearRowsAbove();
        stream.write(`${CLEAR_LINE}${head} ${oneLine(e.address)}${message}\n`);
        // The line above replaced the status line: it comes back at once.
        drawnAt = -Infinity;
      }
    }
    // When everything has finished the status line is cleared, leaving the terminal to the report.
    if (done()) {
      clearTimeout(due);
      due = undefined;
      clearRowsAbove();
      stream.write(CLEAR_LINE);
      if (listening) stream.off?.("resize", redraw);
      listening = false;
    } else {
      showSoon();
    }
  };
}

/**
 * The status line in at most `columns`: `[812/2000] creating udf.sales/u00042 … (+7 more)`. A line
 * longer than the terminal would wrap, and `\r` would then rewrite only its last part. What gives
 * way first is the `(+N more)`, then the middle of the address (`udf.sal…/u00042`); the counter and
 * the action word stay.
 */
export function fitStatus(count: string, word: string, address: string, more: number, columns: number): string {
  const head = `${count} ${word} `;
  const tail = " …";
  const extra = more > 0 ? ` (+${more} more)` : "";
  if (displayWidth(head + address + tail + extra) <= columns) return head + address + tail + extra;
  if (displayWidth(head + address + tail) <= columns) return head + address + tail;
  const room = columns - displayWidth(head + tail);
  // Too narrow for a useful part of the address: the counter and the word alone, or the counter.
  if (room < 6) return displayWidth(`${count} ${word}`) <= columns ? `${count} ${word}` : headToWidth(count, columns);
  return head + middleEllipsis(address, room) + tail;
}
