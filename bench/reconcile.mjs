// The reconciler as a user runs it: `svc-iac validate`, `apply` (every UDF new) and a no-op `plan`
// of N UDFs (250 per canvas), each a `node dist/cli/main.js` process, against `svc-iac emulator`
// in another process. Beside them, the floor measured in the same run: N raw `POST /udf/new` sent
// straight to a fresh emulator process with the same concurrency (what no client can beat).
// Requests and peak RSS of the CLI come from `process-stats.cjs`, preloaded into it.
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { canvasesFor, canvasName, codeOf, PER_CANVAS, runCli, slugOf, writeRepository } from "./cli-process.mjs";
import { startEmulatorProcess } from "./emulator.mjs";

const require = createRequire(import.meta.url);
const { udfBodyOf } = require(join(import.meta.dirname, "../dist/resources/udf.js"));

/** The CLI's default `concurrency` (svc.yaml), used by the floor too. */
const CONCURRENCY = 8;
const HELP_RUNS = 7;

const bodyOf = (i) => udfBodyOf({ slug: slugOf(i), entrypoint: "udf", code: codeOf(i), headers: [], metadata: {} });
const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;
const count = (n) => n.toLocaleString("en-US");

function expectExit(what, r, codes = [0]) {
  if (!codes.includes(r.code)) throw new Error(`${what} exited ${r.code}:\n${r.stderr}`);
  return r;
}

/** The floor: N raw `POST /udf/new` with {@link CONCURRENCY} in flight, on canvases made beforehand, against a fresh emulator process. */
async function rawCreateFloor(n) {
  const emu = await startEmulatorProcess({ quiet: true });
  const { base_url: base, user_token: token } = emu.info;
  const dispatcher = new Agent({ connections: CONCURRENCY });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const post = async (path, body) => {
    const r = await request(`${base}${path}`, { dispatcher, method: "POST", headers, body: JSON.stringify(body) });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${path}: ${r.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  try {
    const canvasIds = [];
    for (let c = 0; c < canvasesFor(n); c++) canvasIds.push(JSON.parse(await post("/collection/new", { name: canvasName(c) })).id);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          const i = next++;
          await post("/udf/new", { slug: slugOf(i), udf_body: bodyOf(i), udf_type: "auto", collection_id: canvasIds[Math.floor(i / PER_CANVAS)], create_shared_token: false });
        }
      }),
    );
    return { ms: performance.now() - started };
  } finally {
    await dispatcher.close();
    emu.stop();
  }
}

/** One size: the floor, then validate, apply and a no-op plan as processes against one emulator process. */
export async function benchProcessSize(n) {
  const note = (what, r) => process.stderr.write(`  ${count(n)} UDFs: ${what} ${duration(r.ms)}\n`);
  const floor = await rawCreateFloor(n);
  note("floor", floor);
  const dir = writeRepository(n);
  const emu = await startEmulatorProcess({ quiet: true });
  const { base_url: baseUrl, udf_base_url: udfBaseUrl, user_token: token } = emu.info;
  const env = { SVC_BASE_URL: baseUrl, SVC_UDF_BASE_URL: udfBaseUrl, SVC_TOKEN: token };
  try {
    const validate = expectExit("validate", await runCli(["validate", dir], env));
    note("validate", validate);
    const apply = expectExit("apply", await runCli(["apply", dir, "--auto-approve", "--concurrency", String(CONCURRENCY)], env));
    note("apply", apply);
    // --detailed-exitcode: 0 only when the plan is empty.
    const plan = expectExit("the plan after apply (expected no changes)", await runCli(["plan", dir, "--detailed-exitcode"], env));
    note("no-op plan", plan);
    return { n, canvases: canvasesFor(n), floor, validate, apply, plan };
  } finally {
    emu.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

/** `svc-iac --help`, the median of {@link HELP_RUNS} runs. */
async function helpTime() {
  const times = [];
  for (let i = 0; i < HELP_RUNS; i++) times.push(expectExit("--help", await runCli(["--help"], {})).ms);
  return times.sort((a, b) => a - b)[Math.floor(HELP_RUNS / 2)];
}

const verdict = (ok) => (ok ? "PASS" : "FAIL");

/** Sizes from the arguments, else BENCH_UDFS (`1000,10000,100000`), else 1,000 and 10,000. */
export function benchSizes(argv = []) {
  const given = argv.length ? argv : (process.env.BENCH_UDFS ?? "").split(",");
  const sizes = given.map(Number).filter((x) => x > 0);
  return sizes.length ? sizes : [1000, 10000];
}

/** Runs every size, prints the table and a PASS/FAIL line per target; returns the rows. */
export async function benchReconcile({ sizes = benchSizes(), print = console.log } = {}) {
  const rows = [];
  for (const n of sizes) rows.push(await benchProcessSize(n));
  const help = await helpTime();

  // CPU: the CLI process's own user + system time, which other load on the machine changes less than wall time.
  const head = ["UDFs", "floor: raw creates", "apply (all new)", "apply CPU", "apply requests", "apply peak RSS", "no-op plan (CPU)", "validate (CPU)"];
  const table = rows.map((r) => [
    count(r.n),
    duration(r.floor.ms),
    `${duration(r.apply.ms)} (${(r.apply.ms / r.floor.ms).toFixed(2)}x floor)`,
    duration(r.apply.cpuMs),
    count(r.apply.requests),
    mb(r.apply.maxRssBytes),
    `${duration(r.plan.ms)} (${duration(r.plan.cpuMs)}), ${r.plan.requests} req, ${mb(r.plan.maxRssBytes)}`,
    `${duration(r.validate.ms)} (${duration(r.validate.cpuMs)}), ${mb(r.validate.maxRssBytes)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  const fmt = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  print(`Processes: svc-iac (node dist/cli/main.js) and svc-iac emulator; ${PER_CANVAS} UDFs per canvas; concurrency ${CONCURRENCY}; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
  print(fmt(head));
  print(fmt(widths.map((w) => "-".repeat(w))));
  for (const t of table) print(fmt(t));
  print(`svc-iac --help: ${duration(help)} (median of ${HELP_RUNS})`);
  print("");

  for (const r of rows) {
    // The N of the target counts every object apply creates: the UDFs and their canvases.
    const objects = r.n + r.canvases;
    const limit = objects + Math.ceil(r.n / 300) + 10;
    print(`${verdict(r.apply.requests <= limit)}  apply ${count(r.n)} new UDFs (+${r.canvases} canvases) in ${count(r.apply.requests)} requests (target <= objects + ceil(N/300) + 10 = ${count(limit)})`);
  }
  const r10k = rows.find((r) => r.n === 10000);
  if (r10k) {
    const limit = 2 * r10k.floor.ms + 1000;
    print(`${verdict(r10k.apply.ms <= limit)}  apply 10,000 new UDFs in ${duration(r10k.apply.ms)} (target <= 2 x floor ${duration(r10k.floor.ms)} + 1 s = ${duration(limit)})`);
    print(`${verdict(r10k.plan.ms <= 1500)}  no-op plan of 10,000 UDFs in ${duration(r10k.plan.ms)} (target <= 1.5 s)`);
    print(`${verdict(r10k.validate.ms <= 1200)}  validate of 10,000 UDFs in ${duration(r10k.validate.ms)} (target <= 1.2 s)`);
  }
  const r100k = rows.find((r) => r.n === 100000);
  if (r100k && r10k) {
    print(`${verdict(r100k.apply.ms <= 12 * r10k.apply.ms)}  apply 100,000 new UDFs in ${duration(r100k.apply.ms)} = ${(r100k.apply.ms / r10k.apply.ms).toFixed(1)}x the 10,000 time (target <= 12x)`);
    print(`${verdict(r100k.apply.maxRssBytes <= 1.5 * 2 ** 30)}  apply 100,000 new UDFs: CLI peak RSS ${mb(r100k.apply.maxRssBytes)} (target <= 1,536 MB)`);
  } else {
    print("note  100,000 UDFs are opt-in (minutes): BENCH_UDFS=10000,100000 npm run bench, or node bench/reconcile.mjs 10000 100000");
  }
  print(`${verdict(help <= 120)}  svc-iac --help exits in ${duration(help)} (target <= 120 ms)`);
  const last = rows.at(-1);
  if (last) {
    const top = Object.entries(last.apply.routes).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([route, c]) => `${route} x${c}`);
    print(`apply of ${count(last.n)} UDFs, requests by route: ${top.join(", ")}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchReconcile({ sizes: benchSizes(process.argv.slice(2)) });
}
