/**
 * One real-time run, as the run endpoints (spec 4.4) and the shared-UDF host serve it: a cached
 * result when one is young enough, else a fresh Python run that is then cached; usage counters
 * (2.8) of the environment the run is billed to; the answer with `X-Svc-Request-Id` and
 * `X-Svc-Metadata` (stdout, stderr, log directory, cached or not).
 *
 * Answers: 200 with the output; 422 when the UDF raised (traceback in `detail`) or passed the time
 * limit (the process was killed); 501 when no Python interpreter is available; 503 when the
 * emulator closes during the run.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordRealtimeUsage } from "../areas/environment";
import { HttpError } from "../http-error";
import { bytes, type EmulatorEnv, type Reply } from "../route";
import { runUdf, type RunTile, type UdfRunResult } from "../udf-runner";
import { cacheKey, cachedResult, cacheResult } from "./run-cache";
import type { RunTarget } from "./step-config";

export interface RunRequest {
  /** The environment billed (usage) and whose cache is used. */
  envId: string;
  target: RunTarget;
  tile?: RunTile;
  format: "json" | "csv";
  /** `cache_max_age` of the request, in seconds. */
  requestMaxAgeS?: number;
}

/** Most characters of stdout, and of stderr, carried in the `X-Svc-Metadata` header (the log files hold all). */
const HEADER_STREAM_CHARS = 4096;

function clip(text: string, file: string): string {
  return text.length <= HEADER_STREAM_CHARS
    ? text
    : `${text.slice(0, HEADER_STREAM_CHARS)}\n[... ${text.length - HEADER_STREAM_CHARS} more characters in ${file}]`;
}

/** JSON that is safe in an HTTP header: every non-ASCII character escaped. */
function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function runHeaders(
  requestId: string,
  meta: { stdout: string; stderr: string; logDir: string | null; cached: boolean; cachedAt?: string },
) {
  return {
    "x-svc-request-id": requestId,
    "x-svc-metadata": headerJson({
      stdout: meta.logDir
        ? clip(meta.stdout, join(meta.logDir, "stdout.log"))
        : meta.stdout.slice(0, HEADER_STREAM_CHARS),
      stderr: meta.logDir
        ? clip(meta.stderr, join(meta.logDir, "stderr.log"))
        : meta.stderr.slice(0, HEADER_STREAM_CHARS),
      log_directory: meta.logDir,
      cached: meta.cached,
      ...(meta.cachedAt ? { cached_at: meta.cachedAt } : {}),
    }),
  };
}

/**
 * Serves a run: synchronously a cached result (inside the caller's transaction), else a promise of
 * a fresh run whose bookkeeping happens in its own transaction once Python is done.
 */
export function serveRun(env: EmulatorEnv, req: RunRequest): Reply | Promise<Reply> {
  const now = env.clock.now();
  const parts = {
    envId: req.envId,
    runHash: req.target.runHash,
    parameters: req.target.parameters,
    tile: req.tile,
    format: req.format,
  };
  const key = cacheKey(parts);
  const hit = cachedResult(env.store, key, now, req.requestMaxAgeS);
  if (hit) {
    recordRealtimeUsage(env.store, req.envId, now, { calls_total: 1, calls_success: 1, calls_cached: 1 });
    const headers = runHeaders(randomUUID(), {
      stdout: hit.stdout,
      stderr: hit.stderr,
      logDir: null,
      cached: true,
      cachedAt: hit.created_at,
    });
    return bytes(200, hit.output, hit.content_type, headers);
  }
  return freshRun(env, req, key);
}

async function freshRun(env: EmulatorEnv, req: RunRequest, key: string): Promise<Reply> {
  const rt = env.realtime;
  const requestId = randomUUID();
  const release = await rt.acquire();
  let result: UdfRunResult;
  let logDir: string;
  try {
    logDir = rt.runDir(requestId);
    result = await runUdf({
      body: req.target.body,
      parameters: req.target.parameters,
      tile: req.tile,
      format: req.format,
      timeoutMs: rt.timeLimitMs,
      python: rt.python,
      cwd: logDir,
      signal: rt.signal,
    });
  } finally {
    release();
  }
  if (result.ok || result.kind !== "no-python") {
    writeFileSync(join(logDir, "stdout.log"), result.stdout);
    writeFileSync(join(logDir, "stderr.log"), result.stderr);
  }
  const at = env.clock.now();
  const headers = runHeaders(requestId, { stdout: result.stdout, stderr: result.stderr, logDir, cached: false });
  if (result.ok) {
    const ok = result;
    env.store.tx(() => {
      recordRealtimeUsage(env.store, req.envId, at, {
        calls_total: 1,
        calls_success: 1,
        calls_total_time: ok.durationMs,
        calls_success_time: ok.durationMs,
      });
      cacheResult(env.store, {
        key,
        envId: req.envId,
        runHash: req.target.runHash,
        parameters: req.target.parameters,
        tile: req.tile,
        format: req.format,
        udfId: req.target.udfId,
        maxAgeS: ok.cacheMaxAgeSeconds,
        contentType: ok.contentType,
        output: ok.outputText,
        stdout: ok.stdout,
        stderr: ok.stderr,
        at,
      });
    });
    return bytes(200, ok.outputText, ok.contentType, headers);
  }
  if (result.kind === "no-python") throw new HttpError(501, `UDF runs are not available: ${result.message}`);
  if (result.kind === "stopped") throw new HttpError(503, "The emulator is shutting down; the UDF run was stopped");
  const failed = result;
  env.store.tx(() =>
    recordRealtimeUsage(env.store, req.envId, at, {
      calls_total: 1,
      calls_error: 1,
      calls_total_time: failed.durationMs,
      calls_error_time: failed.durationMs,
    }),
  );
  const detail =
    failed.kind === "timeout"
      ? failed.message
      : // A traceback with no frame of the UDF's is its message again: said once.
        `UDF execution failed: ${failed.message}\n${failed.traceback?.trim() === failed.message ? "" : (failed.traceback ?? "")}`.trimEnd();
  throw new HttpError(422, detail, headers);
}
