// `svc-iac validate` of a 10,000-UDF repository with the Python check (every .py parsed by
// python3's own parser, in one process) beside the same validate without it (`SVC_PYTHON=`,
// set and empty, turns the check off): each a `node dist/cli/main.js` process, the median of
// a few runs, printed side by side with the ratio (target: within 2x).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runCli, writeRepository } from "./cli-process.mjs";

const RUNS = 3;
const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

async function median(args, env) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runCli(args, env);
    if (r.code !== 0) throw new Error(`validate exited ${r.code}:\n${r.stderr}`);
    if (env.SVC_PYTHON === undefined && /No Python interpreter found|Python check/.test(r.stderr)) throw new Error(`the Python check did not run:\n${r.stderr}`);
    times.push(r.ms);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

/** Prints the two figures and the ratio through `line(label, value, target)`. */
export async function benchPythonCheck(line, n = 10000) {
  const dir = writeRepository(n);
  try {
    const without = await median(["validate", dir], { SVC_PYTHON: "" });
    const withCheck = await median(["validate", dir], { ...(process.env.SVC_PYTHON ? { SVC_PYTHON: process.env.SVC_PYTHON } : {}) });
    line(`validate ${n.toLocaleString("en-US")} UDFs, Python check off (SVC_PYTHON=)`, duration(without), "");
    line(`validate ${n.toLocaleString("en-US")} UDFs, Python check on`, duration(withCheck), "");
    const ratio = withCheck / without;
    line("  ratio on / off", `${ratio.toFixed(2)}x`, "<= 2x");
    return { without, withCheck, ratio };
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const line = (label, value, target) => console.log(`${label.padEnd(56)} ${String(value).padStart(10)}   ${target ? `(target ${target})` : ""}`);
  await benchPythonCheck(line, Number(process.argv[2] ?? 10000));
}
