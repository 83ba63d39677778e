/**
 * The user's own folder for what svc-iac keeps between runs to go faster: what passed the Python
 * check (`reconcile/load/python-check-cache.ts`) and V8's compiled code of the command line
 * (`cli/compile-cache.ts`). `SVC_CACHE_DIR`, else `$XDG_CACHE_HOME/svc-iac`, else
 * `~/.cache/svc-iac`; set and empty, nothing is kept.
 */
import path from "node:path";

/** The folder caches go in, or undefined when caching is off or no home is known. */
export function cacheFolder(env: Record<string, string | undefined>): string | undefined {
  const chosen = env.SVC_CACHE_DIR;
  if (chosen !== undefined) return chosen.trim() === "" ? undefined : path.resolve(chosen);
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, "svc-iac");
  if (env.HOME) return path.join(env.HOME, ".cache", "svc-iac");
  return undefined;
}
