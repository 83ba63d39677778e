/**
 * `svc-iac history`: the target's deployments, newest first, from its state (local, or remote
 * through the platform's files API); for addresses, only the deployments that changed them.
 * Reads the repository for svc.yaml's state location and nothing on the platform but the state.
 */
import { scrub } from "../../api/errors";
import { errorCodeOf } from "../../errors";
import type { LoadError, LoadedProject } from "../../model/desired";
import { patternOf } from "../deployed/show-report";
import type { Deployment } from "../history/history-model";
import { readHistory } from "../history/history-store";
import { loadRepository } from "../load";
import { openStateBackend } from "../state/open-backend";
import type { StateBackend } from "../state/types";
import { connect } from "./connect";

export interface HistoryCommandOptions {
  /** Repository folder. @default "." */
  dir: string;
  target?: string;
  env: Record<string, string | undefined>;
  /** Address patterns (`*` any text): only the deployments that changed a matching object. */
  only?: string[];
  log?: (line: string) => void;
}

/** One deployment as `history --json` lists it. */
export interface HistoryEntry {
  id: string;
  time: string;
  target: string;
  /** Full SHA, or null outside git. */
  commit: string | null;
  dirty: boolean;
  actor: string;
  /** `apply`, `destroy`, `import` or `rollback`. */
  action: string;
  ok: boolean;
  /** `rollback`: the deployment it went back to. */
  rollbackOf?: string;
  objects: { address: string; action: string }[];
}

export interface HistoryReport {
  project: string;
  target: string;
  /** Newest first. */
  deployments: HistoryEntry[];
  /** false: `history: false` in svc.yaml, new deployments are not recorded. */
  recording: boolean;
}

export interface HistoryCommandResult {
  command: "history";
  exitCode: 0 | 1;
  errors: LoadError[];
  report?: HistoryReport;
  message?: string;
  code?: string;
}

/** Opens the target's state as `show --offline` does: the platform only for a remote location. */
export async function withStateOnly<T>(
  project: LoadedProject,
  env: Record<string, string | undefined>,
  log: ((line: string) => void) | undefined,
  body: (backend: StateBackend) => Promise<T>,
): Promise<T> {
  const connection = project.settings.state.kind === "remote" ? await connect(project, env, { log }) : undefined;
  try {
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client: connection?.client,
      project: project.project,
      target: project.target,
    });
    return await body(backend);
  } finally {
    await connection?.close();
  }
}

/** The deployments of `history`, newest first, keeping those that changed an address matching `only`. */
export function historyEntries(deployments: readonly Deployment[], only: readonly string[]): HistoryEntry[] {
  const patterns = only.map(patternOf);
  const matches = (a: string) => !patterns.length || patterns.some((re) => re.test(a));
  return deployments
    .map((d) => ({ d, objects: d.objects.filter((o) => matches(o.address)) }))
    .filter(({ objects }) => objects.length > 0)
    .reverse()
    .map(({ d, objects }) => ({
      id: d.id,
      time: d.time,
      target: d.target,
      commit: d.commit ?? null,
      dirty: d.dirty ?? false,
      actor: d.actor,
      action: d.operation,
      ok: d.ok,
      ...(d.rollbackOf ? { rollbackOf: d.rollbackOf } : {}),
      objects: objects.map((o) => ({ address: o.address, action: o.action })),
    }));
}

/** `svc-iac history`. */
export async function historyCommand(opts: HistoryCommandOptions): Promise<HistoryCommandResult> {
  // Only svc.yaml's state location matters here: the Python check is skipped.
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: { ...opts.env, SVC_PYTHON: "" } });
  if (!loaded.ok) return { command: "history", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  const c = project.settings.credentials;
  const secrets = [c.tokenEnv, c.serviceTokenEnv].map((n) => opts.env[n]).filter((v): v is string => !!v);
  try {
    const index = await withStateOnly(project, opts.env, opts.log, (backend) =>
      readHistory(backend, project.project, project.target),
    );
    const only = opts.only ?? [];
    const deployments = historyEntries(index.deployments, only);
    if (only.length && !deployments.length && index.deployments.length)
      return {
        command: "history",
        exitCode: 1,
        errors: [],
        message: `No recorded deployment of ${project.project} (${project.target}) changed ${only.join(", ")}.`,
      };
    return {
      command: "history",
      exitCode: 0,
      errors: [],
      report: {
        project: project.project,
        target: project.target,
        deployments,
        recording: !project.settings.history.off,
      },
    };
  } catch (e) {
    return {
      command: "history",
      exitCode: 1,
      errors: [],
      message: scrub(e instanceof Error ? e.message : String(e), secrets),
      code: errorCodeOf(e),
    };
  }
}
