// The deployment history's storage cost, as a user makes it: `svc-iac apply` of N UDFs (each its
// own process, the emulator in its own), then DEPLOYS applies that each change CHANGED UDFs. Printed
// beside their floors: the history's bytes after the first apply against the bytes of the code it
// deployed (one copy of every body), and each later deployment's growth against the bytes of the
// bodies it changed; and the wall and CPU time of an apply of CHANGED changes beside the same
// apply with `history: false` (the time the record costs).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canvasName, codeOf, PER_CANVAS, runCli, slugOf, writeRepository } from "./cli-process.mjs";
import { startEmulatorProcess } from "./emulator.mjs";

const N = Number(process.env.BENCH_HISTORY_UDFS ?? 10000);
const DEPLOYS = Number(process.env.BENCH_HISTORY_DEPLOYS ?? 5);
const CHANGED = 20;
const ROUNDS = Number(process.env.BENCH_HISTORY_ROUNDS ?? 3);
const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;

function bytesUnder(dir) {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    total += st.isDirectory() ? bytesUnder(p) : st.size;
  }
  return total;
}

const fileOf = (dir, i) => join(dir, "canvases", canvasName(Math.floor(i / PER_CANVAS)), `${slugOf(i)}.py`);

/** Prints the figures through `line(label, value, note)`. */
export async function benchHistory(line) {
  const emu = await startEmulatorProcess({ quiet: true });
  try {
    const env = { SVC_BASE_URL: emu.info.base_url, SVC_TOKEN: emu.info.user_token, SVC_PYTHON: "" };
    const dir = writeRepository(N);
    const first = await runCli(["apply", dir, "--auto-approve"], env);
    if (first.code !== 0) throw new Error(`apply exited ${first.code}: ${first.stderr}`);
    const history = join(dir, ".svc-iac/state/bench/default/history");
    let code = 0;
    for (let i = 0; i < N; i++) code += Buffer.byteLength(codeOf(i));
    const stored = bytesUnder(history);
    line(`history after apply of ${N.toLocaleString("en-US")} UDFs`, kb(stored), `floor: their code ${kb(code)}`);
    let grown = 0;
    let changedBytes = 0;
    for (let d = 1; d <= DEPLOYS; d++) {
      for (let k = 0; k < CHANGED; k++) {
        const i = (d * 997 + k * 131) % N;
        const text = `${codeOf(i)}# deploy ${d}\n`;
        writeFileSync(fileOf(dir, i), text);
        changedBytes += Buffer.byteLength(text);
      }
      const before = bytesUnder(history);
      const r = await runCli(["apply", dir, "--auto-approve"], env);
      if (r.code !== 0) throw new Error(`apply exited ${r.code}: ${r.stderr}`);
      grown += bytesUnder(history) - before;
    }
    line(
      `growth of ${DEPLOYS} deployments of ${CHANGED} changes`,
      kb(grown),
      `floor: the changed code ${kb(changedBytes)}; index now ${kb(statSync(join(history, "index.json")).size)}`,
    );
    line(
      "  beyond the code, per changed object",
      `${Math.round((grown - changedBytes) / (DEPLOYS * CHANGED))} B`,
      "its settings, address and hashes in the index and pack",
    );
    const inventory = statSync(join(dir, ".svc-iac/state/bench/default/inventory.json")).size;
    line("  the inventory beside it", kb(inventory), "");
    const index = JSON.parse(readFileSync(join(history, "index.json"), "utf8"));
    line("deployments recorded", index.deployments.length, `expected ${DEPLOYS + 1}`);

    // The time the record costs: applies of CHANGED changes, with history and with history: false
    // (svc.yaml), alternated so that the machine's drift falls on both alike; medians of ROUNDS each.
    const svc = join(dir, "svc.yaml");
    const withHistory = readFileSync(svc, "utf8");
    const timed = { on: [], off: [] };
    for (let round = 0; round < ROUNDS * 2; round++) {
      const mode = round % 2 === 0 ? "on" : "off";
      writeFileSync(svc, mode === "on" ? withHistory : `${withHistory}history: false\n`);
      for (let k = 0; k < CHANGED; k++) {
        const i = (round * 7919 + k * 131) % N;
        writeFileSync(fileOf(dir, i), `${codeOf(i)}# timed ${round}\n`);
      }
      const r = await runCli(["apply", dir, "--auto-approve"], env);
      if (r.code !== 0) throw new Error(`apply exited ${r.code}: ${r.stderr}`);
      timed[mode].push({ ms: r.ms, cpuMs: r.cpuMs });
    }
    writeFileSync(svc, withHistory);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ms = (v) => `${Math.round(v)} ms`;
    const on = median(timed.on.map((t) => t.ms));
    const off = median(timed.off.map((t) => t.ms));
    line(
      `apply of ${CHANGED} changes, with history`,
      ms(on),
      `floor: history: false ${ms(off)} = ${(on / off).toFixed(2)}x (median of ${ROUNDS}, alternated)`,
    );
    line(
      "  its CPU",
      ms(median(timed.on.map((t) => t.cpuMs))),
      `history: false ${ms(median(timed.off.map((t) => t.cpuMs)))}`,
    );
  } finally {
    emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`Deployment history (apply as its own process, emulator in its own; ${N} UDFs)`);
  await benchHistory((label, value, note) =>
    console.log(`${label.padEnd(44)} ${String(value).padStart(12)}   ${note ?? ""}`),
  );
}
