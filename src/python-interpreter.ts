/**
 * Finding the Python interpreter once per command, and the environment its processes get: shared by
 * the emulator (UDF runs) and the loader (the syntax check of .py files), below both.
 *
 * `python3` is often a shim (pyenv, asdf) that costs tens of milliseconds per start; asking it
 * once for `sys.executable` lets every later run start the real interpreter directly.
 */
import { execFile } from "node:child_process";

export type ResolvedPython = { ok: true; executable: string } | { ok: false; error: NodeJS.ErrnoException };

const resolved = new Map<string, Promise<ResolvedPython>>();

/** The real executable behind `python` (a command or a path), cached; a failure is not cached. */
export function resolvePython(python: string): Promise<ResolvedPython> {
  let p = resolved.get(python);
  if (!p) {
    p = new Promise<ResolvedPython>((resolve) => {
      execFile(
        python,
        ["-c", "import sys; print(sys.executable)"],
        { env: pythonEnvironment(), timeout: 30_000 },
        (error, stdout) => {
          const executable = stdout.trim();
          if (error || !executable)
            resolve({
              ok: false,
              error:
                (error as NodeJS.ErrnoException) ?? Object.assign(new Error("no sys.executable"), { code: "ENOEXEC" }),
            });
          else resolve({ ok: true, executable });
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
