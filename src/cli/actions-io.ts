/**
 * The command's output streams under GitHub Actions: everything goes through a
 * {@link CommandGuard}, so no text from the platform, the repository or the inventory can start a
 * workflow command; the annotations svc-iac builds go to `commands`, as they are.
 */
import { Writable } from "node:stream";
import { CommandGuard, underActions } from "../github/command-guard";

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
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      guard.text(String(chunk));
      callback();
    },
    final(callback) {
      guard.flush();
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
 * Runs a command with `io` as is, or, under GitHub Actions (`io.env`), with its output guarded
 * (see {@link guardIo}) and flushed when it ends; `run` gets the guarded streams and the writer of
 * svc-iac's own workflow commands.
 */
export async function runWithGuardedIo<
  S extends { stdout: Stream; stderr: Stream; env: NodeJS.ProcessEnv | Record<string, string | undefined> },
  R,
>(io: S, run: (io: S, command?: (text: string) => void) => Promise<R>): Promise<R> {
  if (!underActions(io.env)) return run(io);
  const guarded = guardIo(io);
  try {
    return await run(guarded.io, guarded.command);
  } finally {
    guarded.flush();
  }
}
