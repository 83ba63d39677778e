/**
 * A real terminal for tests: a command runs in a detached tmux pane of a fixed size, so it sees a
 * pseudo-terminal on stdin, stdout and stderr (raw mode, Ctrl-C as a key, the width in `columns`),
 * and the test reads the screen as a user would see it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellQuote } from "../../src/cli/shell-quote";

/** True when tmux can be run here (the tests that need a terminal skip, saying so, when it cannot). */
export const tmuxAvailable = spawnSync("tmux", ["-V"]).status === 0;

let sessions = 0;

export interface Pane {
  /** The pane's rows, history included, as the screen shows them (a long line takes several rows). */
  screen(): string[];
  /** The same, with the rows of a wrapped line joined into one. */
  lines(): string[];
  /** Types keys (tmux key names: `C-c`, `Enter`, or text). */
  keys(...keys: string[]): void;
  /** The pid of the command (the child of the pane's shell). */
  pid(): number;
  /** Resizes the pane (the command gets SIGWINCH). */
  resize(columns: number, rows: number): void;
  /** Waits until the command has exited; resolves to its exit code. */
  exited(): Promise<number>;
  /** Waits until a row of the screen matches. */
  waitFor(pattern: RegExp): Promise<string[]>;
  close(): void;
}

/** Runs `argv` (with `env` added) in a new tmux pane of `columns` × `rows`, in `cwd`. */
export function inTmux(
  argv: string[],
  opts: { columns: number; rows: number; env: Record<string, string>; cwd: string },
): Pane {
  const socket = `svc-iac-test-${process.pid}-${++sessions}`;
  const conf = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "tmux.conf");
  // remain-on-exit keeps the pane (and its exit status) after the command ends.
  writeFileSync(conf, "set -g history-limit 100000\nset -g remain-on-exit on\nset -g status off\n");
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, "-f", conf, ...args], { encoding: "utf8" });
  const env = Object.entries(opts.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  // The shell prints the exit code: tmux's own pane_dead_status is not always filled in when
  // the pane's process was exec'd and its terminal closed first.
  const command = `cd ${shellQuote(opts.cwd)} && env ${env.join(" ")} ${argv.map(shellQuote).join(" ")}; echo "${EXIT_MARK}$?"`;
  tmux("new-session", "-d", "-s", "t", "-x", String(opts.columns), "-y", String(opts.rows), command);
  // Without the line tmux adds under a command that has ended ("Pane is dead (status 0, …)", wrapped on a narrow pane).
  const capture = (...flags: string[]) =>
    tmux("capture-pane", "-p", ...flags, "-t", "t", "-S", "-", "-E", "-")
      .replace(/\n*(Pane is dead \([\s\S]*)?$/, "")
      .split("\n");
  const rows = () => capture();
  const pane: Pane = {
    // Without the exit line.
    screen: () => rows().filter((r) => !r.startsWith(EXIT_MARK)),
    lines: () => capture("-J").filter((r) => !r.startsWith(EXIT_MARK)),
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    pid() {
      const shell = tmux("display-message", "-p", "-t", "t", "#{pane_pid}").trim();
      return Number(execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim().split(/\s+/)[0]);
    },
    resize: (columns, rows) => void tmux("resize-window", "-t", "t", "-x", String(columns), "-y", String(rows)),
    async exited() {
      for (const started = Date.now(); ; ) {
        const mark = rows().find((r) => r.startsWith(EXIT_MARK));
        if (mark) return Number(mark.slice(EXIT_MARK.length));
        if (Date.now() - started > GIVE_UP_MS)
          throw new Error(`the command has not ended after ${GIVE_UP_MS} ms:\n${rows().join("\n")}`);
        await sleep(50);
      }
    },
    async waitFor(pattern) {
      for (const started = Date.now(); ; ) {
        if (Date.now() - started > GIVE_UP_MS)
          throw new Error(`${pattern} did not show in ${GIVE_UP_MS} ms:\n${rows().join("\n")}`);
        const shown = pane.screen();
        if (shown.some((r) => pattern.test(r))) return shown;
        if (rows().some((r) => r.startsWith(EXIT_MARK)))
          throw new Error(`the command ended before ${pattern} showed:\n${rows().join("\n")}`);
        await sleep(50);
      }
    },
    close: () => void spawnSync("tmux", ["-L", socket, "kill-server"]),
  };
  return pane;
}

/** The line the pane's shell prints when the command has ended, with its exit code. */
const EXIT_MARK = "[svc-iac-test exit] ";

/** How long to wait for a pane before failing with what it shows (not a timing assertion: a hung command). */
const GIVE_UP_MS = 45_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
