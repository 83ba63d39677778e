/**
 * Runs the declared UDF tests against what is deployed: each test calls the saved UDF (found by the
 * inventory's id, else by canvas and slug) on the target's real-time instance (the highest
 * `preference_rank` of `GET /realtime-instance/available`) and compares the JSON result with
 * `expect`, or expects the run to fail (422) for `expect_error: true`.
 *
 * Folder `udf-tests/`: the steps of `svc-iac test` (`../commands/test.ts`): UDF tests run on the
 * real-time instance, the expect matcher and the text of the results. May import `src/api`,
 * `src/model`, `../render/values` and the report types of `../commands/test`.
 */
import { isApiError } from "../../api/errors";
import type { SvcClient } from "../../api/client";
import type { RunResult } from "../../api/realtime";
import type { UdfTest } from "../../model/desired";
import { expectMismatches, type Mismatch } from "./expect-match";
import { savedUdfStepConfig } from "./step-config";

export type TestStatus = "passed" | "failed";

/** The outcome of one test. */
export interface TestOutcome {
  /** `udf.<canvas>/<slug>`. */
  address: string;
  name: string;
  status: TestStatus;
  /** The deployed UDF's id (absent when it is not deployed). */
  udfId?: string;
  /** Differences between `expect` and the result (a failed comparison). */
  mismatches: Mismatch[];
  /** Why it failed when it is not a comparison: the UDF's error, no result, not deployed. */
  message?: string;
  durationMs: number;
  /** Where the test is declared: `canvases/c/x.yaml:4:5`. */
  source: string;
}

export interface TestRunContext {
  client: SvcClient;
  /** The real-time instance to run on. */
  clientId: string;
  /** Saved UDF id by address, as found before the run; undefined: not deployed. */
  udfIds: Map<string, string | undefined>;
}

/** The last non-empty lines of a traceback: where and what the UDF raised. */
function lastLines(text: string, n = 3): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(-n)
    .join("\n");
}

function parseJsonResult(r: RunResult): { ok: true; value: unknown } | { ok: false; message: string } {
  const text = r.body.toString("utf8");
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return {
      ok: false,
      message: `the result is not JSON (content type ${r.contentType ?? "none"}): ${text.slice(0, 120)}`,
    };
  }
}

/** The error detail of a failed run (the traceback for a UDF exception). */
function runErrorText(e: unknown): string {
  if (isApiError(e)) return typeof e.detail === "string" ? e.detail : e.message;
  return e instanceof Error ? e.message : String(e);
}

/** Runs one test; never throws. */
export async function runOneTest(ctx: TestRunContext, test: UdfTest): Promise<TestOutcome> {
  const started = performance.now();
  const udfId = ctx.udfIds.get(test.address);
  const source = `${test.source.file}:${test.source.line}:${test.source.column}`;
  const outcome = (status: TestStatus, more: Partial<TestOutcome> = {}): TestOutcome => ({
    address: test.address,
    name: test.name,
    status,
    udfId,
    mismatches: [],
    durationMs: Math.round(performance.now() - started),
    source,
    ...more,
  });
  if (!udfId)
    return outcome("failed", { message: `${test.address} is not deployed on this target: run svc-iac apply first` });
  let result: RunResult;
  try {
    result = await ctx.client.realtime.runUdf(ctx.clientId, {
      stepConfig: savedUdfStepConfig(udfId, test.args),
      format: "json",
    });
  } catch (e) {
    // The UDF failed: 422 with the traceback as its detail (a 422 listing invalid fields refused the request instead).
    const failedRun = isApiError(e, "validation_failed") && typeof e.detail === "string";
    if (test.expectError && failedRun) return outcome("passed");
    if (failedRun) return outcome("failed", { message: `the UDF raised an error:\n${lastLines(runErrorText(e))}` });
    return outcome("failed", { message: `the run could not be made: ${e instanceof Error ? e.message : String(e)}` });
  }
  if (test.expectError) return outcome("failed", { message: "expected the run to fail, but it returned a result" });
  const parsed = parseJsonResult(result);
  if (!parsed.ok) return outcome("failed", { message: parsed.message });
  const mismatches = expectMismatches(test.expect, parsed.value);
  return outcome(mismatches.length ? "failed" : "passed", { mismatches });
}

/** Runs the tests one after the other (a real-time instance is shared; order keeps output stable). */
export async function runTests(
  ctx: TestRunContext,
  tests: readonly UdfTest[],
  onResult?: (o: TestOutcome) => void,
): Promise<TestOutcome[]> {
  const out: TestOutcome[] = [];
  for (const t of tests) {
    const o = await runOneTest(ctx, t);
    onResult?.(o);
    out.push(o);
  }
  return out;
}
