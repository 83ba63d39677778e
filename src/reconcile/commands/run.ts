/**
 * `svc-iac run ADDRESS`: runs one deployed UDF of the target once on the target's real-time
 * instance (the highest `preference_rank` of `GET /realtime-instance/available`) through
 * `POST /realtime/{client_id}/api/v1/run/udf`, and returns its output, how long it took and
 * whether the platform served it from its cache. The UDF is found as `svc-iac test` finds it: the
 * inventory's id while it exists, else by canvas and slug. A failed UDF gives the platform's
 * message. Writes nothing. Secret values of the project and the target's credentials never appear
 * in a message.
 */
import { isApiError, scrub } from "../../api/errors";
import { connect } from "./connect";
import { loadRepository } from "../load";
import { closest } from "../../repository/diagnostics";
import { formatCount } from "../render/values";
import type { LoadError, LoadedProject } from "../../model/desired";
import { openStateBackend } from "../state/open-backend";
import { savedUdfStepConfig } from "../udf-tests/step-config";
import { deployedIds } from "./test";
import { VARIANT_NOUN, variantOfAddress } from "../../kinds/udf/udf-variant";

/** Output formats of a run, as the run endpoint takes them. */
export const RUN_FORMATS = ["json", "csv"] as const;
export type RunFormat = (typeof RUN_FORMATS)[number];

export interface RunCommandOptions {
  /** Repository folder. @default "." */
  dir: string;
  target?: string;
  env: Record<string, string | undefined>;
  /** `udf.<canvas>/<slug>`. */
  address: string;
  /** The UDF's parameters, as text: the UDF's annotations convert them (`int`, `float`, `bool`, JSON for `list` and `dict`). */
  params: Record<string, string>;
  /** @default "json" */
  format?: RunFormat;
  log?: (line: string) => void;
}

/** One run's answer. */
export interface RunOutcome {
  address: string;
  udf_id: string;
  /** The real-time instance it ran on. */
  client_id: string;
  format: RunFormat;
  content_type: string | null;
  /** The output as the platform serialized it. */
  output: string;
  /** Served from the platform's cache (`X-Svc-Metadata.cached`). */
  cached: boolean;
  /** When the cached result was computed, when the platform says. */
  cached_at?: string;
  /** Wall-clock time of the call, in milliseconds. */
  duration_ms: number;
}

export interface RunCommandResult {
  command: "run";
  exitCode: 0 | 1;
  errors: LoadError[];
  result?: RunOutcome;
  /** Why it did not run, or the UDF's error as the platform gave it (secrets scrubbed). */
  message?: string;
}

/** `udf.<canvas>/<slug>`, or `udf.<slug>` for a UDF without a canvas. */
const UDF_ADDRESS = /^udf\.(?:([A-Za-z0-9_]+)\/)?([A-Za-z0-9_-]+)$/;

/** Values never to print: the project's secret values and the target's credentials. */
function secretsOf(project: LoadedProject, env: RunCommandOptions["env"]): string[] {
  const c = project.settings.credentials;
  return [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv].map((n) => env[n]).filter((v): v is string => !!v);
}

/** The UDF addresses the repository declares or the inventory records. */
const knownUdfs = (project: LoadedProject, recorded: string[]) =>
  [
    ...new Set(
      [...project.objects.filter((o) => o.kind === "Udf").map((o) => o.address), ...recorded].filter(
        (a) => variantOfAddress(a) === "udf",
      ),
    ),
  ].sort();

/** UDFs named in a message, at most this many: a project of thousands must not fill the terminal. */
const LISTED_MAX = 10;

/** `udf.a/x, udf.a/y, … and 1,990 more (svc-iac show --offline lists them)`. */
function listed(addresses: string[]): string {
  if (addresses.length <= LISTED_MAX) return addresses.join(", ");
  return `${addresses.slice(0, LISTED_MAX).join(", ")} and ${formatCount(addresses.length - LISTED_MAX)} more (svc-iac show --offline lists them)`;
}

/** `svc-iac run`. */
export async function runCommand(opts: RunCommandOptions): Promise<RunCommandResult> {
  const fail = (message: string): RunCommandResult => ({ command: "run", exitCode: 1, errors: [], message });
  const variant = variantOfAddress(opts.address);
  if (variant === "note" || variant === "widget")
    return fail(
      `${opts.address} is a ${VARIANT_NOUN[variant]}, which cannot be run: notes (Markdown) and widgets (a JSON document) are canvas furniture kept as UDF records, not Python. Only UDFs run (udf.<canvas>/<slug>). Nothing was sent to the platform.`,
    );
  const m = UDF_ADDRESS.exec(opts.address);
  if (!m)
    return fail(
      `"${opts.address}" is not a UDF address: expected udf.<canvas>/<slug> (e.g. udf.listings/stats), or udf.<slug> for a UDF without a canvas.`,
    );
  const [, canvas, slug] = m as unknown as [string, string | undefined, string];
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env });
  if (!loaded.ok) return { command: "run", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  const secrets = secretsOf(project, opts.env);
  const format = opts.format ?? "json";
  let connection: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    connection = await connect(project, opts.env, { log: opts.log });
    const client = connection.client;
    const backend = openStateBackend(project.settings.state, {
      root: project.root,
      client,
      project: project.project,
      target: project.target,
    });
    const inventory = await backend.readInventory();
    const known = knownUdfs(
      project,
      Object.entries(inventory?.objects ?? {})
        .filter(([, e]) => e.kind === "Udf")
        .map(([a]) => a),
    );
    if (!known.includes(opts.address)) {
      const near = closest(opts.address, known);
      return fail(
        `${opts.address} is neither declared in the repository nor recorded in the inventory of ${project.project} (${project.target}).${near ? ` Did you mean ${near}?` : ""}${known.length ? ` UDFs: ${listed(known)}.` : ""}`,
      );
    }
    const udfId = (
      await deployedIds(
        client,
        project,
        [{ address: opts.address, ...(canvas === undefined ? {} : { canvas }), slug }],
        inventory,
      )
    ).get(opts.address);
    if (!udfId)
      return fail(
        `${opts.address} is not deployed on ${project.project} (${project.target}): run svc-iac apply first.`,
      );
    const instance = await client.realtime.preferredInstance();
    if (!instance)
      return fail("The target has no real-time instance (GET /realtime-instance/available is empty): runs need one.");
    const started = performance.now();
    try {
      const r = await client.realtime.runUdf(instance.client_id, {
        stepConfig: savedUdfStepConfig(udfId, opts.params),
        format,
      });
      const cachedAt = r.metadata?.cached_at;
      return {
        command: "run",
        exitCode: 0,
        errors: [],
        result: {
          address: opts.address,
          udf_id: udfId,
          client_id: instance.client_id,
          format,
          content_type: r.contentType ?? null,
          output: scrub(r.body.toString("utf8"), secrets),
          cached: r.metadata?.cached === true,
          ...(typeof cachedAt === "string" ? { cached_at: cachedAt } : {}),
          duration_ms: Math.round(performance.now() - started),
        },
      };
    } catch (e) {
      // The UDF failed: 422 with the platform's message (a traceback) as its detail.
      if (isApiError(e, "validation_failed") && typeof e.detail === "string") {
        const hint = connection.embedded ? embeddedModuleHint(e.detail) : "";
        return fail(
          scrub(
            `${opts.address} failed on real-time instance ${instance.client_id}:\n${e.detail.trimEnd()}${hint}`,
            secrets,
          ),
        );
      }
      throw e;
    }
  } catch (e) {
    // The emulator's own advice (--python) is for `svc-iac emulator`; the embedded one has no such option.
    const embedded = connection?.embedded && isApiError(e) && e.status === 501 ? `\n${EMBEDDED_PYTHON}` : "";
    return fail(scrub((e instanceof Error ? e.message : String(e)) + embedded, secrets));
  } finally {
    await connection?.close();
  }
}

const EMBEDDED_PYTHON =
  "The embedded emulator runs UDFs in the python3 found on PATH (Python 3.9 or newer): install one there, or run the UDF on the platform (set SVC_BASE_URL).";

/**
 * The embedded emulator runs UDFs in the `python3` on PATH, which may lack a package the platform
 * has (pandas, for the UDF `svc-iac init` writes): say so, and how to get past it.
 */
function embeddedModuleHint(detail: string): string {
  const missing = /ModuleNotFoundError: No module named '([^']+)'/.exec(detail)?.[1];
  if (!missing) return "";
  const top = missing.split(".")[0]!;
  return `\nThe embedded emulator runs UDFs in the python3 found on PATH, which has no module "${top}" (the platform has its own packages). Install it for that Python (python3 -m pip install ${top}, or your system's package such as python3-${top}), or run the UDF on the platform (set SVC_BASE_URL).`;
}
