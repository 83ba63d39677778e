/**
 * The command's output streams. Under GitHub Actions everything goes through a
 * {@link CommandGuard}, so no text from the platform, the repository or the inventory can start a
 * workflow command; the annotations svc-iac builds go to `commands`, as they are. Elsewhere
 * everything goes through {@link terminalOutput}: no control character in a name, a message or a
 * UDF's output reaches the terminal raw, only svc-iac's own colours.
 */
import { Writable } from "node:stream";
import { CommandGuard, underActions } from "../github/command-guard";
import { terminalOutput } from "../reconcile/render/ansi";

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; fd?: number };

/** Where a command that reads no input writes, and the environment it reads. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** This process's streams and environment. */
export const processIo = (): CommandIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** A stream whose writes go through `guard.text`; tells the same terminal facts as `raw`. */
function guardedStream(raw: Stream, guard: CommandGuard): Stream {
  return filteredStream(
    raw,
    (text) => guard.text(text),
    () => guard.flush(),
  );
}

/** A stream whose writes reach `raw` through {@link terminalOutput}; `unescaped` is `raw`. */
export function escapedStream<S extends Stream>(raw: S): S & { unescaped: S } {
  return Object.assign(filteredStream(raw, (text) => raw.write(terminalOutput(text))) as S, { unescaped: raw });
}

/**
 * The stream a writer of its own control sequences (the progress line) uses: `stream` unless it
 * escapes them. Such a writer escapes what it shows of names and messages itself.
 */
export const unescapedStream = <S extends Stream>(stream: S): S =>
  (stream as S & { unescaped?: S }).unescaped ?? stream;

/** `io` with stdout and stderr escaped (see {@link escapedStream}). */
export const escapeIo = <S extends { stdout: Stream; stderr: Stream }>(io: S): S => ({
  ...io,
  stdout: escapedStream(io.stdout),
  stderr: escapedStream(io.stderr),
});

function filteredStream(raw: Stream, write: (text: string) => void, flush?: () => void): Stream {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      write(String(chunk));
      callback();
    },
    final(callback) {
      flush?.();
      callback();
    },
  }) as Writable & { isTTY?: boolean; columns?: number; fd?: number };
  stream.isTTY = raw.isTTY;
  stream.columns = raw.columns;
  // Where the output goes (drift's default format depends on whether it is the job summary).
  stream.fd = raw.fd;
  return stream;
}

export interface GuardedIo<S extends { stdout: Stream; stderr: Stream }> {
  io: S;
  /** Writes a workflow command svc-iac built (an annotation) to stdout. */
  command(text: string): void;
  /** Writes out what the guards hold back. */
  flush(): void;
}

/** `io` with stdout and stderr guarded. */
export function guardIo<S extends { stdout: Stream; stderr: Stream }>(io: S): GuardedIo<S> {
  const out = new CommandGuard({ write: (t) => io.stdout.write(t) });
  const err = new CommandGuard({ write: (t) => io.stderr.write(t) });
  return {
    io: { ...io, stdout: guardedStream(io.stdout, out), stderr: guardedStream(io.stderr, err) },
    command: (text) => out.command(text),
    flush: () => {
      out.flush();
      err.flush();
    },
  };
}

/**
 * Runs a command with its output escaped (see {@link escapeIo}), or, under GitHub Actions
 * (`io.env`), guarded (see {@link guardIo}) and flushed when it ends; `run` gets the guarded
 * streams and the writer of svc-iac's own workflow commands. `raw` leaves the output as it is
 * outside Actions (`svc-iac run` escapes what it shows on a terminal itself).
 */
export async function runWithGuardedIo<
  S extends { stdout: Stream; stderr: Stream; env: NodeJS.ProcessEnv | Record<string, string | undefined> },
  R,
>(io: S, run: (io: S, command?: (text: string) => void) => Promise<R>, raw = false): Promise<R> {
  if (!underActions(io.env)) return run(raw ? io : escapeIo(io));
  const guarded = guardIo(io);
  try {
    return await run(guarded.io, guarded.command);
  } finally {
    guarded.flush();
  }
}
