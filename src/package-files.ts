/**
 * Files shipped beside the code (`python/*.py`), found from the running module's folder: the same
 * lookup from `dist/<folder>/<folder>/`, from `src/` under the tests, from the command line's
 * bundle (`dist/cli/program.js`) and from the GitHub Action's (`dist-action/index.js`).
 */
import { existsSync } from "node:fs";
import path from "node:path";

/** How many folders above the module's own the package root may be (`dist/emulator/udf-runner/`). */
const MAX_LEVELS_UP = 3;

/** The path of `relative` (e.g. `python/svc_check_python.py`) in the package, or undefined when it is not there. */
export function packageFile(relative: string, from: string = __dirname): string | undefined {
  let dir = from;
  for (let level = 0; level <= MAX_LEVELS_UP; level++) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}
