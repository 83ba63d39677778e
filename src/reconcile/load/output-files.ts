/**
 * A file the repository asks apply to write (a bucket policy's `output:`) must not be one svc-iac
 * reads: written over `svc.yaml`, a UDF's code, a helper module or the inventory, the policy
 * document would break the repository or its state after an apply that reported success.
 */
import type { StateLocation } from "../../model/desired";
import type { RepositoryJail } from "../../repository/jail";

/** The repository's own declaration files, at the project folder. */
const DECLARATION_FILES = new Set(["svc.yaml", "secrets.yaml", "service-accounts.yaml", "bucket-policies.yaml"]);
/** Folders whose `.py` and `.yaml` files the loader reads (or would read on the next run). */
const DECLARATION_FOLDERS = new Set(["canvases", "cronjobs"]);

/**
 * Why apply may not write `rel` (normalized, relative to the project folder), or undefined: a
 * declaration file, a `.py` or `.yaml` under `canvases/` or `cronjobs/`, the state folder or
 * `.svc-iac/`, or (links followed) a file the load has read, such as a helper module.
 * Call it once the other files are read.
 */
export function outputOverwrite(
  jail: RepositoryJail,
  rel: string,
  state: StateLocation | undefined,
): string | undefined {
  const top = rel.split("/")[0]!;
  if (DECLARATION_FILES.has(rel) || (DECLARATION_FOLDERS.has(top) && /\.(py|ya?ml)$/i.test(rel))) {
    return `${rel} is where svc-iac reads the repository's declarations (svc.yaml, secrets.yaml, service-accounts.yaml, bucket-policies.yaml, .py and .yaml files under canvases/ and cronjobs/): apply would write over them`;
  }
  if (top === ".svc-iac" || (state?.kind === "local" && (rel === state.path || rel.startsWith(`${state.path}/`)))) {
    return `${rel} is inside the state folder (${state?.kind === "local" ? state.path : ".svc-iac"}): apply would write over the inventory`;
  }
  if (jail.wasRead(rel))
    return `${rel} is a file this repository's declarations read (a helper module, or a link to one): apply would write over it`;
  return undefined;
}
