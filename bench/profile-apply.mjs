// Where an apply's CPU goes: one `svc-iac apply` of N new UDFs (10,000 unless given) against a fresh
// `svc-iac emulator` process, as bench/reconcile.mjs runs it (stderr piped, 8 in flight, no Python
// check cache), under `node --cpu-prof`. Prints the CLI's time by function, self and total, from
// the first sample inside apply's `runAll` (the effects: creates, inventory, progress, report) to
// the end, and where the profile is (open it in Chrome DevTools or VS Code for the call tree).
//
//   npm run build && node bench/profile-apply.mjs [N] [--from FUNCTION] [--top 40]
//
// `--from ""` summarizes the whole run (loading and planning included).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeRepository } from "./cli-process.mjs";
import { startEmulatorProcess } from "./emulator.mjs";

const CLI = join(import.meta.dirname, "../dist/cli/main.js");

/**
 * Time by function of a `.cpuprofile`, from the first sample whose stack holds a function named
 * `from` (all samples without it). A function's total counts each sample once, recursion or not.
 */
export function summarizeProfile(profile, { from = "", top = 40 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) =>
    `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
  const stack = (id) => {
    const names = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) names.push(name(byId.get(cur)));
    return names;
  };
  const start = from
    ? Math.max(
        0,
        profile.samples.findIndex((id) => stack(id).some((n) => n.startsWith(`${from} `))),
      )
    : 0;
  const self = new Map();
  const total = new Map();
  let all = 0;
  let idle = 0;
  for (let i = start; i < profile.samples.length; i++) {
    // A sample's time is the delta to the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const names = stack(profile.samples[i]);
    all += us;
    if (names[0].startsWith("(idle)")) idle += us;
    self.set(names[0], (self.get(names[0]) ?? 0) + us);
    for (const n of new Set(names)) total.set(n, (total.get(n) ?? 0) + us);
  }
  const ms = (us) => `${(us / 1000).toFixed(0).padStart(6)} ms`;
  const rows = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([n, us]) => `${ms(us)}  ${n}`);
  return [
    `${ms(all)} sampled${from ? ` from the first sample in ${from}` : ""}: ${ms(idle).trim()} idle, ${ms(all - idle).trim()} busy`,
    "self:",
    ...rows(self),
    "total (the function and what it called):",
    ...rows(total),
  ].join("\n");
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { from: { type: "string", default: "runAll" }, top: { type: "string", default: "40" } },
  });
  const n = Number(positionals[0] ?? 10000);
  const profiles = mkdtempSync(join(tmpdir(), "svc-apply-profile-"));
  const dir = writeRepository(n);
  const emu = await startEmulatorProcess({ quiet: true });
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      SVC_BASE_URL: emu.info.base_url,
      SVC_UDF_BASE_URL: emu.info.udf_base_url,
      SVC_TOKEN: emu.info.user_token,
      SVC_CACHE_DIR: "",
    };
    const args = [
      "--cpu-prof",
      `--cpu-prof-dir=${profiles}`,
      "--cpu-prof-interval=200",
      CLI,
      "apply",
      dir,
      "--auto-approve",
      "--concurrency",
      "8",
    ];
    const started = performance.now();
    const { code, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
      let text = "";
      child.stderr.setEncoding("utf8");
      child.stderr.on("data", (d) => (text = (text + d).slice(-4000)));
      child.on("error", reject);
      child.on("exit", (c) => resolve({ code: c, stderr: text }));
    });
    if (code !== 0) throw new Error(`apply exited ${code}:\n${stderr}`);
    const file = join(
      profiles,
      readdirSync(profiles).find((f) => f.endsWith(".cpuprofile")),
    );
    console.log(
      `apply of ${n.toLocaleString("en-US")} new UDFs: ${((performance.now() - started) / 1000).toFixed(2)} s wall; profile ${file}`,
    );
    console.log(
      summarizeProfile(JSON.parse(readFileSync(file, "utf8")), { from: values.from, top: Number(values.top) }),
    );
  } finally {
    emu.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
