/**
 * The state backend for a project's configured state location: a local folder under the
 * repository, or an `s3://` / `gs://` prefix through the platform's files API.
 */
import type { SvcClient } from "../../api/client";
import type { StateLocation } from "../../model/desired";
import { LocalStateBackend } from "./local-backend";
import { RemoteStateBackend } from "./remote-backend";
import type { StateBackend } from "./types";
import { SvcError } from "../../errors";

export interface OpenStateBackendOptions {
  /** Repository root (the folder holding `svc.yaml`); a local path is relative to it. */
  root: string;
  /** Needed for a remote location. */
  client?: SvcClient;
  project: string;
  target: string;
  /** Remote only: the wait between writing a lock and reading it back. @default 300 */
  settleMs?: number;
}

/**
 * @example
 * const state = openStateBackend(project.settings.state, { root: project.root, client, project: "listings", target: "prod" });
 * const lease = await state.acquireLock({ owner: defaultLockOwner(), operation: "apply", ttlMs: 10 * 60_000 });
 * @throws Error when the location is remote and no client is given.
 */
export function openStateBackend(location: StateLocation, opts: OpenStateBackendOptions): StateBackend {
  if (location.kind === "local") {
    return new LocalStateBackend({ root: opts.root, path: location.path, project: opts.project, target: opts.target });
  }
  if (!opts.client) {
    throw new SvcError(
      "no_credentials",
      `The state location ${location.url} is remote, so it needs platform credentials to read and write it, but no client was given. ` +
        "Set the target's credentials (SVC_BASE_URL and SVC_TOKEN or SVC_SERVICE_TOKEN), or use a local state location.",
    );
  }
  return new RemoteStateBackend({
    url: location.url,
    client: opts.client,
    project: opts.project,
    target: opts.target,
    settleMs: opts.settleMs,
  });
}
