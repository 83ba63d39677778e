/**
 * `svc-iac show`: what a target deployed. By default it reads the platform afresh (the plan behind
 * drift, so it says what drifted); `--offline` reads only the repository and the inventory (a
 * remote state location is still read through the platform's files API, but no object is).
 * Writes nothing on the platform. Secret values never reach the report: see `show-report.ts`; as
 * a second guard, every token and secret value read is scrubbed from what is returned.
 */
import { join, relative } from "node:path";
import { errorCodeOf } from "../../errors";
import { scrub } from "../../api/errors";
import { KINDS } from "../../kinds/registry";
import { driftPlan } from ".";
import { connect, EMBEDDED_DIR } from "./connect";
import { driftReport } from "../plan/drift";
import { loadRepository } from "../load";
import type { LoadError, LoadedProject } from "../../model/desired";
import { openStateBackend } from "../state/open-backend";
import { showReport, type ShowReport } from "../deployed/show-report";

export interface ShowCommandOptions {
  /** Repository folder. @default "." */
  dir: string;
  target?: string;
  env: Record<string, string | undefined>;
  /** Address patterns (`*` any text); empty: every object. */
  only?: string[];
  /** Read the inventory only, not the platform. @default false */
  offline?: boolean;
  log?: (line: string) => void;
}

export interface ShowCommandResult {
  command: "show";
  exitCode: 0 | 1;
  errors: LoadError[];
  report?: ShowReport;
  message?: string;
  /** The stable code of the error that stopped the command (`src/errors.ts`). */
  code?: string;
}

/** Values never to print: the project's secret values and the target's credentials. */
function envSecrets(project: LoadedProject, env: ShowCommandOptions["env"]): string[] {
  const c = project.settings.credentials;
  return [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv].map((n) => env[n]).filter((v): v is string => !!v);
}

/** The secret values held by observed states (share tokens, account tokens, passcodes). */
function stateSecrets(states: Iterable<[string, Record<string, unknown>]>, kinds: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [address, state] of states) {
    const kind = KINDS[kinds.get(address) as keyof typeof KINDS];
    for (const f of [...(kind?.secretInputs ?? []), ...(kind?.secretOutputs ?? [])])
      if (typeof state[f] === "string" && state[f]) out.push(state[f] as string);
  }
  return out;
}

/** The report with every secret value scrubbed from its strings (a guard: none should be there). */
function scrubbed(report: ShowReport, secrets: string[]): ShowReport {
  if (!secrets.length) return report;
  return JSON.parse(
    scrub(
      JSON.stringify(report),
      secrets.map((s) => JSON.stringify(s).slice(1, -1)),
    ),
  ) as ShowReport;
}

/** Fails with the patterns that match nothing, else the report. */
function result(built: ReturnType<typeof showReport>, secrets: string[]): ShowCommandResult {
  if (built.unmatched.length) {
    const r = built.report;
    return {
      command: "show",
      exitCode: 1,
      errors: [],
      message: `${built.unmatched.join(", ")} ${built.unmatched.length > 1 ? "match" : "matches"} no object in the repository or the inventory of ${r.project} (${r.target}).`,
    };
  }
  return { command: "show", exitCode: 0, errors: [], report: scrubbed(built.report, secrets) };
}

/** Why URLs read from the embedded emulator show `{udf_base_url}`: the host served them only while the command ran. */
const embeddedUrls = (root: string) =>
  `The URLs show {udf_base_url}: the embedded emulator that served them stopped with this command. To open them, serve the same state with svc-iac emulator --data-dir ${relative(process.cwd(), join(root, EMBEDDED_DIR)) || "."} and use its udf_base_url.`;

/** `svc-iac show`. */
export async function showCommand(opts: ShowCommandOptions): Promise<ShowCommandResult> {
  const only = opts.only ?? [];
  if (!opts.offline) {
    const found = await driftPlan({ dir: opts.dir, target: opts.target, env: opts.env, log: opts.log });
    if (!found.ok)
      return {
        command: "show",
        exitCode: 1,
        errors: found.errors,
        ...(found.message ? { message: found.message } : {}),
      };
    const { project, outcome, udfBaseUrl, embedded } = found;
    const states = new Map<string, Record<string, unknown>>();
    const kinds = new Map<string, string>();
    for (const [address, e] of Object.entries(outcome.inventory?.objects ?? {})) {
      const o = outcome.observation.kinds[e.kind]?.byId.get(e.id);
      kinds.set(address, e.kind);
      if (o) states.set(address, o.state as Record<string, unknown>);
    }
    const built = showReport({
      project,
      inventory: outcome.inventory,
      only,
      ...(udfBaseUrl ? { udfBaseUrl } : {}),
      fresh: { states, drift: driftReport(outcome) },
    });
    const shown = result(built, [...envSecrets(project, opts.env), ...stateSecrets(states, kinds)]);
    if (embedded && shown.report?.objects.some((o) => o.urls.length)) shown.message = embeddedUrls(project.root);
    return shown;
  }
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env });
  if (!loaded.ok) return { command: "show", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  const secrets = envSecrets(project, opts.env);
  let connection: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    // Only a remote state location needs the platform, for the inventory itself.
    if (project.settings.state.kind === "remote") connection = await connect(project, opts.env, { log: opts.log });
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client: connection?.client,
      project: project.project,
      target: project.target,
    });
    const inventory = await backend.readInventory();
    const udfBaseUrl = opts.env[project.settings.credentials.udfBaseUrlEnv] || undefined;
    return result(showReport({ project, inventory, only, ...(udfBaseUrl ? { udfBaseUrl } : {}) }), secrets);
  } catch (e) {
    return {
      command: "show",
      exitCode: 1,
      errors: [],
      message: scrub(e instanceof Error ? e.message : String(e), secrets),
      code: errorCodeOf(e),
    };
  } finally {
    await connection?.close();
  }
}
