/**
 * `svc-iac test`: loads the repository, finds the deployed UDF of each declared test (inventory id,
 * else canvas and slug), picks the target's real-time instance and runs the tests there. Returns a
 * report and an exit code (0 all passed, 1 a failure or an error); rendering is the caller's.
 * Secret values of the project and the target's credentials never appear in the report.
 */
import { errorCodeOf } from "../../errors";
import { isApiError, scrub } from "../../api/errors";
import type { SvcClient } from "../../api/client";
import { connect } from "./connect";
import { loadRepository } from "../load";
import type { LoadError, LoadedProject, UdfTest } from "../../model/desired";
import type { ActionResult } from "../plan/plan-model";
import { openStateBackend } from "../state/open-backend";
import type { Inventory } from "../../model/inventory";
import { runTests, type TestOutcome } from "../udf-tests/run-tests";
import { notifyAll } from "./notifications";

export const TEST_REPORT_VERSION = 1;

export interface TestReport {
  version: typeof TEST_REPORT_VERSION;
  project: string;
  target: string;
  /** The real-time instance the tests ran on. */
  client_id: string;
  ok: boolean;
  counts: { passed: number; failed: number };
  results: TestOutcome[];
}

export interface TestCommandOptions {
  /** Repository folder. @default "." */
  dir: string;
  target?: string;
  env: Record<string, string | undefined>;
  /** Only the tests of UDFs whose address matches one of these patterns (`*` any text): `udf.sales/*`. */
  only?: string[];
  /** Exactly these UDF addresses (apply --test: the UDFs the apply changed). */
  addresses?: string[];
  /** Called once the instance is chosen, before the first test runs (for live output). */
  onStart?: (info: { project: string; target: string; clientId: string; count: number }) => void;
  /** Each result as soon as it is known (for live output). */
  onResult?: (o: TestOutcome) => void;
  log?: (line: string) => void;
}

export interface TestCommandResult {
  command: "test";
  exitCode: 0 | 1;
  errors: LoadError[];
  report?: TestReport;
  /** Why nothing ran, or an error (secrets scrubbed). */
  message?: string;
  /** The stable code of the error that stopped the command (`src/errors.ts`). */
  code?: string;
}

const patternOf = (p: string) =>
  new RegExp(
    `^${p
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );

/** The tests `opts` selects; a pattern that matches no UDF with tests is an error. */
export function selectTests(
  tests: readonly UdfTest[],
  opts: Pick<TestCommandOptions, "only" | "addresses">,
): { tests: UdfTest[]; unmatched: string[] } {
  let out = [...tests];
  if (opts.addresses) out = out.filter((t) => opts.addresses!.includes(t.address));
  const unmatched: string[] = [];
  if (opts.only?.length) {
    const patterns = opts.only.map((p) => ({ p, re: patternOf(p) }));
    for (const { p, re } of patterns) if (!out.some((t) => re.test(t.address))) unmatched.push(p);
    out = out.filter((t) => patterns.some(({ re }) => re.test(t.address)));
  }
  return { tests: out, unmatched };
}

/** The UDFs an apply created, adopted or changed: the ones `apply --test` tests. */
export function changedUdfs(results: readonly ActionResult[]): string[] {
  const changing = new Set(["create", "adopt", "update", "rename", "replace"]);
  return results
    .filter((r) => r.kind === "Udf" && r.status === "done" && changing.has(r.action))
    .map((r) => r.address)
    .sort();
}

/** The canvas's name on the platform (a target's name_prefix / name_suffix applied). */
export function platformCanvasName(project: LoadedProject, canvas: string): string {
  const name = project.objects.find((o) => o.address === `canvas.${canvas}`)?.inputs.name;
  return typeof name === "string" ? name : canvas;
}

/** The saved UDF id of each address: the inventory's when it still exists, else found by canvas and slug (also used by `svc-iac run`). */
export async function deployedIds(
  client: SvcClient,
  project: LoadedProject,
  tests: readonly Pick<UdfTest, "address" | "canvas" | "slug">[],
  inventory: Inventory | undefined,
): Promise<Map<string, string | undefined>> {
  const ids = new Map<string, string | undefined>();
  for (const t of tests) {
    if (ids.has(t.address)) continue;
    const recorded = inventory?.objects[t.address];
    let id: string | undefined;
    try {
      if (recorded?.kind === "Udf") id = (await client.udfs.getById(recorded.id)).id;
    } catch (e) {
      if (!isApiError(e, "not_found")) throw e;
    }
    if (!id) {
      try {
        // Without a canvas: the caller's own UDF with the slug, on its default canvas.
        // Its slug on the platform: a target's name_prefix / name_suffix wraps it.
        const declared = project.objects.find((o) => o.address === t.address)?.inputs.slug;
        const u = await client.udfs.getExecEnvBySlug(
          t.canvas === undefined && typeof declared === "string" ? declared : t.slug,
          t.canvas === undefined ? undefined : platformCanvasName(project, t.canvas),
        );
        if (t.canvas !== undefined || !u.collection_id) id = u.id;
      } catch (e) {
        if (!isApiError(e, "not_found")) throw e;
      }
    }
    ids.set(t.address, id);
  }
  return ids;
}

/** Values never to print: the project's secret values and the target's credentials. */
function secretsOf(project: LoadedProject, env: TestCommandOptions["env"]): string[] {
  const c = project.settings.credentials;
  const names = [...project.secretEnvNames, c.tokenEnv, c.serviceTokenEnv];
  return names.map((n) => env[n]).filter((v): v is string => !!v);
}

function scrubOutcome(o: TestOutcome, secrets: string[]): TestOutcome {
  return {
    ...o,
    message: o.message === undefined ? undefined : scrub(o.message, secrets),
    mismatches: o.mismatches.map((m) => ({ path: scrub(m.path, secrets), message: scrub(m.message, secrets) })),
  };
}

/** `svc-iac test`. */
export async function testCommand(opts: TestCommandOptions): Promise<TestCommandResult> {
  const seen: { project?: LoadedProject } = {};
  const result = await runTestCommand(opts, seen);
  if (seen.project && result.exitCode !== 0 && (result.report || result.message)) {
    const failed = [
      ...new Set((result.report?.results ?? []).filter((r) => r.status === "failed").map((r) => r.address)),
    ];
    await notifyAll(seen.project, { env: opts.env, ...(opts.log ? { log: opts.log } : {}) }, [
      {
        event: "test_failed",
        summary: result.report
          ? `${result.report.counts.failed} UDF test${result.report.counts.failed === 1 ? "" : "s"} failed:`
          : "the UDF tests could not run.",
        counts: result.report?.counts ?? {},
        addresses: failed,
      },
    ]);
  }
  return result;
}

async function runTestCommand(opts: TestCommandOptions, seen: { project?: LoadedProject }): Promise<TestCommandResult> {
  const loaded = await loadRepository(opts.dir, { target: opts.target, env: opts.env, log: opts.log });
  if (!loaded.ok) return { command: "test", exitCode: 1, errors: loaded.errors };
  const { project } = loaded;
  seen.project = project;
  const { tests, unmatched } = selectTests(project.tests ?? [], opts);
  if (unmatched.length) {
    const known = [...new Set((project.tests ?? []).map((t) => t.address))];
    const list = known.length
      ? `UDFs with tests: ${known.join(", ")}`
      : "no UDF declares tests: (in canvases/<canvas>/<slug>.yaml)";
    return {
      command: "test",
      exitCode: 1,
      errors: [],
      message: `--only ${unmatched.join(", ")} matches no UDF with tests; ${list}.`,
    };
  }
  if (!tests.length)
    return {
      command: "test",
      exitCode: 0,
      errors: [],
      message: opts.addresses
        ? "No changed UDF declares tests: nothing to test."
        : "No tests declared: add tests: to a UDF's <slug>.yaml.",
    };
  const secrets = secretsOf(project, opts.env);
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
    const udfIds = await deployedIds(client, project, tests, await backend.readInventory());
    const instance = await client.realtime.preferredInstance();
    if (!instance)
      return {
        command: "test",
        exitCode: 1,
        errors: [],
        message: "The target has no real-time instance (GET /realtime-instance/available is empty): tests run on one.",
      };
    opts.onStart?.({
      project: project.project,
      target: project.target,
      clientId: instance.client_id,
      count: tests.length,
    });
    const onResult = opts.onResult && ((o: TestOutcome) => opts.onResult!(scrubOutcome(o, secrets)));
    const results = (await runTests({ client, clientId: instance.client_id, udfIds }, tests, onResult)).map((o) =>
      scrubOutcome(o, secrets),
    );
    const failed = results.filter((r) => r.status === "failed").length;
    const report: TestReport = {
      version: TEST_REPORT_VERSION,
      project: project.project,
      target: project.target,
      client_id: instance.client_id,
      ok: failed === 0,
      counts: { passed: results.length - failed, failed },
      results,
    };
    return { command: "test", exitCode: failed ? 1 : 0, errors: [], report };
  } catch (e) {
    return {
      command: "test",
      exitCode: 1,
      errors: [],
      message: scrub(e instanceof Error ? e.message : String(e), secrets),
      code: errorCodeOf(e),
    };
  } finally {
    await connection?.close();
  }
}
