/**
 * V8's compiled code of svc-iac and its dependencies kept on disk and reused by the next run: most
 * of a command's start is module loading. Imported first by `main.ts`, so that it is on before any
 * other module of the command is compiled (an `import` is evaluated in order, before the importing
 * module's own statements).
 *
 * Kept in the user's own cache folder (`cache-folder.ts`: `SVC_CACHE_DIR`, else
 * `~/.cache/svc-iac`) under `node-compile-cache/`; without a home, in a folder of the temporary
 * folder that only this user can write (`svc-iac-<uid>`, made with mode 0700, used only when it is
 * that user's own real folder of that mode). Never Node's default, a folder of the shared temporary
 * folder that another user of the machine could have made, and filled with code for this one to
 * run. `SVC_CACHE_DIR` set and empty keeps nothing; `NODE_COMPILE_CACHE` and
 * `NODE_DISABLE_COMPILE_CACHE` still rule, as Node documents them.
 */
import { lstatSync, mkdirSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { cacheFolder } from "../cache-folder";

/** `svc-iac-<uid>` in the temporary folder when it is this user's own, mode 0700; else undefined. */
export function privateTempFolder(): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const folder = path.join(tmpdir(), `svc-iac-${uid}`);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch {
    // There already (checked below), or the temporary folder cannot be written.
  }
  try {
    const st = lstatSync(folder);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0 ? folder : undefined;
  } catch {
    return undefined;
  }
}

const off = process.env.SVC_CACHE_DIR !== undefined && process.env.SVC_CACHE_DIR.trim() === "";
if (!off && process.env.NODE_COMPILE_CACHE === undefined) {
  const folder = cacheFolder(process.env) ?? privateTempFolder();
  if (folder !== undefined) enableCompileCache?.(path.join(folder, "node-compile-cache"));
}
