/** Test interpreters: what `python3` really starts, for wrapper scripts that run it under their own name. */
import { execFileSync } from "node:child_process";

/**
 * The interpreter `python3` starts (a shim such as pyenv's starts another program). A wrapper that
 * runs it as `exec -a "$0" REAL_PYTHON "$@"` is an interpreter at its own path: Python's
 * `sys.executable` is the wrapper.
 */
export const REAL_PYTHON = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
  encoding: "utf8",
}).trim();
