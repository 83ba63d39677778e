// The benchmark repository (N UDFs, 250 per canvas) and running `svc-iac` as its own process with
// its requests, CPU time and peak RSS (from `process-stats.cjs`, preloaded): shared by the
// reconciler and Python-check benchmarks. No dependency, so it loads on any Node.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CLI = join(import.meta.dirname, "../dist/cli/main.js");
const STATS = join(import.meta.dirname, "process-stats.cjs");
/** Where the measured commands keep V8's compiled code: one folder for the bench's whole run. */
const COMPILE_CACHE = mkdtempSync(join(tmpdir(), "svc-bench-compile-cache-"));
process.on("exit", () => rmSync(COMPILE_CACHE, { recursive: true, force: true }));

export const PER_CANVAS = 250;
export const canvasName = (c) => `c${String(c).padStart(3, "0")}`;
export const slugOf = (i) => `u${String(i).padStart(6, "0")}`;
export const codeOf = (i) => `@fused.udf(cache_max_age="1h")\ndef udf(n: int = ${i}):\n    return n * 2\n`;
export const canvasesFor = (n) => Math.ceil(n / PER_CANVAS);

/** svc.yaml and canvases/<c>/<slug>.py for n UDFs, {@link PER_CANVAS} per canvas. */
export function writeRepository(n) {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "repo");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), "project: bench\n");
  for (let c = 0; c < canvasesFor(n); c++) {
    const folder = join(dir, "canvases", canvasName(c));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "canvas.yaml"), "# defaults: a team canvas\n");
    for (let i = c * PER_CANVAS; i < Math.min(n, (c + 1) * PER_CANVAS); i++)
      writeFileSync(join(folder, `${slugOf(i)}.py`), codeOf(i));
  }
  return dir;
}

/**
 * Runs `svc-iac ...args` as its own process; resolves to its exit code, wall time, requests and
 * peak RSS. `entry` runs another entry point of the built command (the unbundled program), with
 * `preload` required before it.
 */
export function runCli(args, env, { entry = CLI, preload } = {}) {
  const statsFile = join(tmpdir(), `svc-bench-stats-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--require", STATS, ...(preload ? ["--require", preload] : []), entry, ...args],
      {
        // V8's compiled code of the command in a folder of the bench's own, as a user's cache folder
        // keeps it (cli/compile-cache.ts), whatever SVC_CACHE_DIR a run sets for the Python check.
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          NODE_COMPILE_CACHE: COMPILE_CACHE,
          ...env,
          BENCH_STATS_FILE: statsFile,
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
    child.on("error", reject);
    child.on("exit", (code) => {
      const ms = performance.now() - started;
      let stats = { requests: 0, routes: {}, maxRssBytes: 0, cpuMs: 0 };
      try {
        stats = JSON.parse(readFileSync(statsFile, "utf8"));
        rmSync(statsFile, { force: true });
      } catch {
        // killed before writing its figures
      }
      resolve({ code, ms, stderr, ...stats });
    });
  });
}
