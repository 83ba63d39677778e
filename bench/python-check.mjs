// `svc-iac validate` of a 10,000-UDF repository with the Python check (every .py parsed by
// python3's own parser, in one process) beside the same validate without it (`SVC_PYTHON=`,
// set and empty, turns the check off): each a `node dist/cli/main.js` process, the median of
// a few runs, printed side by side with the ratio (target: within 2x). The check on is measured
// cold (`SVC_CACHE_DIR=`: every file parsed, as on a fresh CI runner) and warm (a cache folder the
// first run filled: unchanged files are not parsed again).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, writeRepository } from "./cli-process.mjs";

const RUNS = 3;
const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

async function median(args, env) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runCli(args, env);
    if (r.code !== 0) throw new Error(`validate exited ${r.code}:\n${r.stderr}`);
    if (env.SVC_PYTHON === undefined && /No Python interpreter found|Python check/.test(r.stderr))
      throw new Error(`the Python check did not run:\n${r.stderr}`);
    times.push(r.ms);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

/** Prints the two figures and the ratio through `line(label, value, target)`. */
export async function benchPythonCheck(line, n = 10000) {
  const dir = writeRepository(n);
  const cache = mkdtempSync(join(tmpdir(), "svc-bench-cache-"));
  try {
    const python = process.env.SVC_PYTHON ? { SVC_PYTHON: process.env.SVC_PYTHON } : {};
    const without = await median(["validate", dir], { SVC_PYTHON: "" });
    const withCheck = await median(["validate", dir], { ...python, SVC_CACHE_DIR: "" });
    const warm = await median(["validate", dir], { ...python, SVC_CACHE_DIR: cache });
    line(`validate ${n.toLocaleString("en-US")} UDFs, Python check off (SVC_PYTHON=)`, duration(without), "");
    line(`validate ${n.toLocaleString("en-US")} UDFs, Python check on, no cache`, duration(withCheck), "");
    line(`validate ${n.toLocaleString("en-US")} UDFs, Python check on, cache warm`, duration(warm), "");
    const ratio = withCheck / without;
    line("  ratio on (no cache) / off", `${ratio.toFixed(2)}x`, "<= 2x");
    return { without, withCheck, warm, ratio };
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const line = (label, value, target) =>
    console.log(`${label.padEnd(56)} ${String(value).padStart(10)}   ${target ? `(target ${target})` : ""}`);
  await benchPythonCheck(line, Number(process.argv[2] ?? 10000));
}
