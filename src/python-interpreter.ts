/**
 * Finding the Python interpreter once per command, and the environment its processes get: shared by
 * the emulator (UDF runs) and the loader (the syntax check of .py files), below both.
 *
 * `python3` is often a shim (pyenv, asdf) that costs tens of milliseconds per start; asking it
 * once for `sys.executable` lets every later run start the real interpreter directly. When the
 * command found on PATH is itself a compiled program (ELF, through any links: a system or venv
 * Python), it is the interpreter, and no process is started to find it: a check answered wholly
 * from its cache then starts no Python at all.
 */
import { execFile } from "node:child_process";
import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export type ResolvedPython = { ok: true; executable: string } | { ok: false; error: NodeJS.ErrnoException };

const resolved = new Map<string, Promise<ResolvedPython>>();

/** The first 4 bytes of a compiled Linux program. */
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** True when `file` (links followed) is a compiled program, not a script such as a shim. */
function isCompiledProgram(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(ELF_MAGIC);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * `python` as execFile would find it (a path as given, a name on PATH) when that is a compiled
 * program; undefined for a script (a shim) or when it is not found, which only running it can settle.
 */
function compiledOnPath(python: string): string | undefined {
  if (python.includes("/")) return isAbsolute(python) && isCompiledProgram(python) ? python : undefined;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue; // execFile would search it from the working folder: let it.
    const candidate = join(dir, python);
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    return isCompiledProgram(candidate) ? candidate : undefined;
  }
  return undefined;
}

/** Interpreters this process has learned (a look-up's answer, or what a process started through a shim said it is), by command. */
const learned = new Map<string, string>();

/**
 * The interpreter `python` names when that is known without starting a process (a compiled
 * program on PATH or at the path given, or what this process learned of it before); undefined for
 * a shim not asked yet, or when only running it can tell.
 */
export function knownPython(python: string): string | undefined {
  return compiledOnPath(python) ?? learned.get(python);
}

/** Keeps `executable` as what `python` starts, for {@link knownPython} in this process (a shim's answer is asked once). */
export function learnPython(python: string, executable: string): void {
  learned.set(python, executable);
}

/** The real executable behind `python` (a command or a path), cached; a failure is not cached. */
export function resolvePython(python: string): Promise<ResolvedPython> {
  let p = resolved.get(python);
  if (!p) {
    const compiled = compiledOnPath(python);
    if (compiled) {
      p = Promise.resolve({ ok: true, executable: compiled });
      resolved.set(python, p);
      return p;
    }
    p = new Promise<ResolvedPython>((resolve) => {
      execFile(
        python,
        // -I -S: no `site` (its .pth hooks are most of Python's start-up), which the answer does not depend on.
        ["-I", "-S", "-c", "import sys; print(sys.executable)"],
        { env: pythonEnvironment(), timeout: 30_000 },
        (error, stdout) => {
          const executable = stdout.trim();
          if (error || !executable)
            resolve({
              ok: false,
              error:
                (error as NodeJS.ErrnoException) ?? Object.assign(new Error("no sys.executable"), { code: "ENOEXEC" }),
            });
          else {
            learnPython(python, executable);
            resolve({ ok: true, executable });
          }
        },
      );
    });
    resolved.set(python, p);
    void p.then((r) => {
      if (!r.ok) resolved.delete(python);
    });
  }
  return p;
}

/**
 * Variables a UDF process inherits: what locating Python and its packages needs, nothing else, so
 * the emulator's own credentials never reach UDF code.
 */
const PASSED =
  /^(PATH|HOME|LANG|LC_[A-Z]+|TZ|TMPDIR|TEMP|TMP|SYSTEMROOT|PYTHONPATH|PYTHONHOME|VIRTUAL_ENV|CONDA_PREFIX|PYENV_[A-Z_]+)$/;

export function pythonEnvironment(): Record<string, string> {
  const env: Record<string, string> = { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" };
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && PASSED.test(k)) env[k] = v;
  return env;
}
