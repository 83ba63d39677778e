// The reconciler as a user runs it: `svc-iac validate`, `apply` (every UDF new) and a no-op `plan`
// of N UDFs (250 per canvas), each a `node dist/cli/main.js` process, against `svc-iac emulator`
// in another process. Beside them, the floors measured in the same run: N raw `POST /udf/new` sent
// straight to a fresh emulator process with the same concurrency (what no apply can beat), and the
// listing requests a plan makes (the team's lite canvas listing, then each canvas by id, as many in
// flight as the CLI), made by a bare client in its own process against the plan's emulator (what
// no plan can beat).
// Requests, the largest answer, peak RSS and CPU of the CLI come from `process-stats.cjs`,
// preloaded into it. Above BENCH_APPLY_MAX UDFs (10,000 unless set), the UDFs are put on the
// platform directly (one canvas create per 250 UDFs) with the inventory apply writes, and only
// validate and the no-op plan run as commands. Validate and apply run without the Python check's
// cache (every file parsed); the no-op plan runs without it, then with the cache apply filled.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { canvasesFor, canvasName, codeOf, PER_CANVAS, runCli, slugOf, writeRepository } from "./cli-process.mjs";
import { bareClient, startEmulatorProcess } from "./emulator.mjs";

const require = createRequire(import.meta.url);
const { udfBodyOf } = require(join(import.meta.dirname, "../dist/kinds/udf/resource.js"));
const { READS_IN_FLIGHT } = require(join(import.meta.dirname, "../dist/kinds/team-canvases.js"));
const { knownPython, resolvePython } = require(join(import.meta.dirname, "../dist/python-interpreter.js"));
const { FingerprintKey } = require(join(import.meta.dirname, "../dist/kinds/fingerprint.js"));
const { FINGERPRINT_KEY_FILE, serializeFingerprintKey } = require(
  join(import.meta.dirname, "../dist/reconcile/state/fingerprint-key-file.js"),
);

/** The CLI's default `concurrency` (svc.yaml), used by the floor too. */
const CONCURRENCY = 8;
const HELP_RUNS = 7;
/** Runs of each start-cost figure (a one-UDF repository); the median is kept. */
const START_RUNS = 5;
/** Runs of the listing floor; the median is kept. */
const FLOOR_RUNS = 3;
/** Above this many UDFs, apply is not run: the platform and the inventory are set up directly. */
const APPLY_MAX = Number(process.env.BENCH_APPLY_MAX ?? 10000);
const MIB = 2 ** 20;

const bodyOf = (i) => udfBodyOf({ slug: slugOf(i), entrypoint: "udf", code: codeOf(i), headers: [], metadata: {} });
const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const mb = (bytes) => `${Math.round(bytes / 2 ** 20)} MB`;
const count = (n) => n.toLocaleString("en-US");

export { writeRepository };

/**
 * The listing floor: the requests a plan's observation makes, by a bare client in a fresh process
 * of its own each run (`bare-listing.mjs`: cold, as the CLI is), timed from its first request to
 * its last answer (without Node's start, which the CLI's wall time includes): the median of
 * {@link FLOOR_RUNS} runs, and the largest answer seen.
 */
export async function listingFloor(info) {
  const runs = [];
  let largest = 0;
  for (let run = 0; run < FLOOR_RUNS; run++) {
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(import.meta.dirname, "bare-listing.mjs")], {
        env: {
          PATH: process.env.PATH ?? "",
          BENCH_BASE_URL: info.base_url,
          BENCH_TOKEN: info.user_token,
          BENCH_IN_FLIGHT: String(READS_IN_FLIGHT),
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let text = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (d) => (text += d));
      child.on("error", reject);
      child.on("exit", (code) =>
        code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`bare-listing.mjs exited ${code}`)),
      );
    });
    runs.push(out.ms);
    largest = Math.max(largest, out.largestBytes);
  }
  return { ms: runs.sort((a, b) => a - b)[Math.floor(FLOOR_RUNS / 2)], largestBytes: largest };
}

/**
 * Puts n UDFs on the platform without apply (one canvas create with its 250 UDFs per canvas, the
 * bodies apply writes) and writes the inventory and the fingerprint key apply would have written, so
 * the plan is a no-op.
 */
export async function populateDirectly(info, dir, n) {
  const started = performance.now();
  const client = bareClient(info, CONCURRENCY);
  const objects = {};
  const now = new Date().toISOString();
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < canvasesFor(n)) {
          const c = next++;
          const udfs = [];
          for (let i = c * PER_CANVAS; i < Math.min(n, (c + 1) * PER_CANVAS); i++)
            udfs.push({ slug: slugOf(i), udf_body: bodyOf(i) });
          const made = await client.post("/collection/new", { name: canvasName(c), udfs });
          objects[`canvas.${made.name}`] = {
            kind: "Canvas",
            id: made.id,
            key: made.name,
            createdAt: now,
            appliedAt: now,
          };
          for (const u of made.udfs)
            objects[`udf.${made.name}/${u.slug}`] = {
              kind: "Udf",
              id: u.id,
              key: `${made.id}/${u.slug}`,
              createdAt: now,
              appliedAt: now,
              kept: { createSharedToken: false },
            };
        }
      }),
    );
  } finally {
    await client.close();
  }
  const folder = join(dir, ".svc-iac", "state", "bench", "default");
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, "inventory.json"),
    JSON.stringify({ version: 1, project: "bench", target: "default", updatedAt: now, objects }),
  );
  writeFileSync(join(folder, FINGERPRINT_KEY_FILE), serializeFingerprintKey(FingerprintKey.generate(), new Date(now)), {
    mode: 0o600,
  });
  return { ms: performance.now() - started };
}

export function expectExit(what, r, codes = [0]) {
  if (!codes.includes(r.code)) throw new Error(`${what} exited ${r.code}:\n${r.stderr}`);
  return r;
}

/** The floor: N raw `POST /udf/new` with {@link CONCURRENCY} in flight, on canvases made beforehand, against a fresh emulator process. */
async function rawCreateFloor(n) {
  const emu = await startEmulatorProcess({ quiet: true });
  const raw = bareClient(emu.info, CONCURRENCY);
  const post = raw.post;
  try {
    const canvasIds = [];
    for (let c = 0; c < canvasesFor(n); c++)
      canvasIds.push((await post("/collection/new", { name: canvasName(c) })).id);
    let next = 0;
    const started = performance.now();
    const cpuBefore = emu.mainThreadCpuMs();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          const i = next++;
          await post("/udf/new", {
            slug: slugOf(i),
            udf_body: bodyOf(i),
            udf_type: "auto",
            collection_id: canvasIds[Math.floor(i / PER_CANVAS)],
            create_shared_token: false,
          });
        }
      }),
    );
    const ms = performance.now() - started;
    const cpuAfter = emu.mainThreadCpuMs();
    // The emulator's own (main thread) CPU for the creates: no apply can send them faster than it serves them.
    return {
      ms,
      ...(cpuBefore !== undefined && cpuAfter !== undefined ? { emulatorCpuMs: cpuAfter - cpuBefore } : {}),
    };
  } finally {
    await raw.close();
    emu.stop();
  }
}

/** `node bench/bare-read.mjs dir` as its own process: its wall time, Node's start included (as validate's). */
export function bareRead(dir) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "bare-read.mjs"), dir], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve({ ms: performance.now() - started }) : reject(new Error(`bare-read exited ${code}`)),
    );
  });
}

/**
 * One validate of a one-UDF repository before anything is measured: a user's first command after
 * an install compiles the command line and keeps its compiled code (cli/compile-cache.ts); the
 * figures are of the commands after it, each of which reuses that code.
 */
async function warmCompileCache() {
  const dir = writeRepository(1);
  try {
    expectExit("validate (fills the compile cache)", await runCli(["validate", dir], { SVC_PYTHON: "" }));
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

/** The run (each `{ms, ...}`) of median wall time. */
const medianOf = (runs) => [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];

/** The median of {@link START_RUNS} runs of `run()` (each resolving to `{ms}`). */
async function medianRun(run) {
  const runs = [];
  for (let i = 0; i < START_RUNS; i++) runs.push(await run());
  return medianOf(runs);
}

/**
 * What each side of the validate ratio costs before its first file: validate and the bare read of a
 * one-UDF repository (Node's start and the modules each loads), the median of {@link START_RUNS}.
 * Subtracted from both sides, they leave what reading, parsing and checking the files costs.
 */
async function startCosts(env) {
  const dir = writeRepository(1);
  try {
    const validate = await medianRun(async () =>
      expectExit("validate of one UDF", await runCli(["validate", dir], env)),
    );
    const bare = await medianRun(() => bareRead(dir));
    return { validate, bare };
  } finally {
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

/** Rounds of the validate figures at up to 20,000 UDFs; the median of each is kept. */
const VALIDATE_ROUNDS = 3;
/** `rounds` at up to 20,000 UDFs, one above (each run takes seconds there). */
const roundsAt = (n, rounds) => (n <= 20000 ? rounds : 1);

/** Validate with an empty Python cache of its own (every file parsed, the passes written), then again with it warm. */
async function coldThenWarm(dir, env) {
  const cache = mkdtempSync(join(tmpdir(), "svc-bench-cache-"));
  try {
    const cached = { ...env, SVC_CACHE_DIR: cache };
    const empty = expectExit("validate, empty cache", await runCli(["validate", dir], cached));
    const warm = expectExit("validate, warm cache", await runCli(["validate", dir], cached));
    return { empty, warm };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/**
 * The figures the validate ratios compare, in alternated rounds (a machine whose speed drifts
 * moves both sides of a ratio alike), the median of each: validate with the Python check off;
 * with an empty cache of its own (every file parsed, the passes written), then again with it warm;
 * and the bare read of the same files. The caches are validate's own, so that apply still starts
 * without one.
 */
async function validateRounds(dir, cold, n) {
  const runs = { readOnly: [], validateColdCache: [], validateWarm: [], bare: [] };
  // Where python3 is a shim, the warm cache also with the interpreter it starts, named directly
  // (SVC_PYTHON): what the cache costs without the shim's run.
  const real = knownPython("python3") ? undefined : await resolvePython("python3");
  if (real?.ok) runs.validateWarmReal = [];
  for (let i = 0; i < roundsAt(n, VALIDATE_ROUNDS); i++) {
    runs.readOnly.push(
      expectExit("validate without the Python check", await runCli(["validate", dir], { ...cold, SVC_PYTHON: "" })),
    );
    const cache = await coldThenWarm(dir, cold);
    runs.validateColdCache.push(cache.empty);
    runs.validateWarm.push(cache.warm);
    if (runs.validateWarmReal)
      runs.validateWarmReal.push((await coldThenWarm(dir, { ...cold, SVC_PYTHON: real.executable })).warm);
    runs.bare.push(await bareRead(dir));
  }
  return Object.fromEntries(Object.entries(runs).map(([k, list]) => [k, medianOf(list)]));
}

/** Runs of each side of the jail's cost (alternated) at up to 20,000 UDFs; the median of each is kept. */
const JAIL_RUNS = 5;
/** The unbundled command, and what takes the repository jail out of it (`plain-reads.cjs`). */
const UNBUNDLED = join(import.meta.dirname, "../dist/cli/program.js");
const PLAIN_READS = join(import.meta.dirname, "plain-reads.cjs");

/**
 * What the repository jail's safety checks cost validate: the unbundled command (Python check off)
 * as it is, and with plain reads and listings in place of the jail's, alternated; the medians.
 * Everything else (Node's start, the modules, each record built and checked) is the same on both sides.
 */
async function jailCost(dir, env, n) {
  // Once first, so that V8's compiled code of the unbundled modules is in the cache for every run measured.
  expectExit("validate, unbundled", await runCli(["validate", dir], env, { entry: UNBUNDLED }));
  const jailed = [];
  const plain = [];
  for (let i = 0; i < roundsAt(n, JAIL_RUNS); i++) {
    jailed.push(expectExit("validate, unbundled", await runCli(["validate", dir], env, { entry: UNBUNDLED })));
    plain.push(
      expectExit(
        "validate, unbundled, plain reads",
        await runCli(["validate", dir], env, { entry: UNBUNDLED, preload: PLAIN_READS }),
      ),
    );
  }
  return { jailed: medianOf(jailed), plain: medianOf(plain), runs: jailed.length };
}

/**
 * One size: the raw-create floor, then validate, apply (or, above {@link APPLY_MAX}, the platform
 * and inventory set up directly), the listing floor and a no-op plan against one emulator process.
 */
export async function benchProcessSize(n) {
  const note = (what, r) => process.stderr.write(`  ${count(n)} UDFs: ${what} ${duration(r.ms)}\n`);
  const applied = n <= APPLY_MAX;
  const floor = applied ? await rawCreateFloor(n) : undefined;
  if (floor) note("floor", floor);
  const dir = writeRepository(n);
  const emu = await startEmulatorProcess({ quiet: true });
  const { base_url: baseUrl, udf_base_url: udfBaseUrl, user_token: token } = emu.info;
  // The Python check's cache: none for validate and apply (every file parsed, as on a fresh CI
  // runner); the no-op plan runs once without (cold) and once with the cache apply filled (warm).
  const cache = mkdtempSync(join(tmpdir(), "svc-bench-cache-"));
  const cold = { SVC_BASE_URL: baseUrl, SVC_UDF_BASE_URL: udfBaseUrl, SVC_TOKEN: token, SVC_CACHE_DIR: "" };
  const env = { ...cold, SVC_CACHE_DIR: cache };
  try {
    const validate = expectExit("validate", await runCli(["validate", dir], cold));
    note("validate", validate);
    // What no command that reads the repository can skip (Node's start, the modules, reading and
    // checking every file: validate with the check off), the Python check with an empty and a warm
    // cache, and the bare read: alternated rounds, the median of each (see validateRounds).
    const { readOnly, validateColdCache, validateWarm, validateWarmReal, bare } = await validateRounds(dir, cold, n);
    note("validate, Python check off", readOnly);
    note("validate, empty cache", validateColdCache);
    note("validate, warm cache", validateWarm);
    if (validateWarmReal) note("validate, warm cache, interpreter named", validateWarmReal);
    note("bare read and parse", bare);
    const starts = await startCosts({ ...cold, SVC_PYTHON: "" });
    note("validate of one UDF, Python check off", starts.validate);
    const jail = await jailCost(dir, { ...cold, SVC_PYTHON: "" }, n);
    note("validate (unbundled), Python check off", jail.jailed);
    note("the same with plain reads", jail.plain);
    let apply, populated;
    if (applied) {
      apply = expectExit(
        "apply",
        await runCli(["apply", dir, "--auto-approve", "--concurrency", String(CONCURRENCY)], env),
      );
      note("apply", apply);
    } else {
      populated = await populateDirectly(emu.info, dir, n);
      note("populated directly", populated);
    }
    const listing = await listingFloor(emu.info);
    note("listing floor", listing);
    // --detailed-exitcode: 0 only when the plan is empty.
    const planCold = expectExit(
      "the plan after apply (expected no changes)",
      await runCli(["plan", dir, "--detailed-exitcode"], cold),
    );
    note("no-op plan, no Python cache", planCold);
    if (!applied) expectExit("validate (fills the Python check's cache)", await runCli(["validate", dir], env));
    const plan = expectExit(
      "the plan after apply (expected no changes)",
      await runCli(["plan", dir, "--detailed-exitcode"], env),
    );
    note("no-op plan", plan);
    return {
      n,
      canvases: canvasesFor(n),
      floor,
      validate,
      readOnly,
      validateColdCache,
      validateWarm,
      validateWarmReal,
      bare,
      starts,
      jail,
      apply,
      populated,
      listing,
      plan,
      planCold,
    };
  } finally {
    emu.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}

/** `svc-iac --help`, the median of {@link HELP_RUNS} runs. */
async function helpTime() {
  const times = [];
  for (let i = 0; i < HELP_RUNS; i++) times.push(expectExit("--help", await runCli(["--help"], {})).ms);
  return times.sort((a, b) => a - b)[Math.floor(HELP_RUNS / 2)];
}

const verdict = (ok) => (ok ? "PASS" : "FAIL");

/** The sizes of `npm run bench -- observe`: the observation figures up to 100,000 UDFs. */
export const OBSERVE_SIZES = [10000, 20000, 100000];

/** Sizes from the arguments, else BENCH_UDFS (`1000,10000,100000`), else 1,000, 10,000 and 20,000. */
export function benchSizes(argv = []) {
  const given = argv.length ? argv : (process.env.BENCH_UDFS ?? "").split(",");
  const sizes = given.map(Number).filter((x) => x > 0);
  return sizes.length ? sizes : [1000, 10000, 20000];
}

/** Runs every size, prints the table and a PASS/FAIL line per target; returns the rows. */
export async function benchReconcile({ sizes = benchSizes(), print = console.log } = {}) {
  await warmCompileCache();
  const rows = [];
  for (const n of sizes) rows.push(await benchProcessSize(n));
  const help = await helpTime();

  // CPU: the CLI process's own user + system time, which other load on the machine changes less than wall time.
  const head = [
    "UDFs",
    "floor: raw creates",
    "apply (all new)",
    "apply CPU",
    "apply requests",
    "apply peak RSS",
    "floor: listings",
    "no-op plan (CPU)",
    "same, no Python cache",
    "plan peak RSS",
    "largest answer",
    "validate (CPU)",
  ];
  const table = rows.map((r) => [
    count(r.n),
    r.floor ? duration(r.floor.ms) : "n/a",
    r.apply
      ? `${duration(r.apply.ms)} (${(r.apply.ms / r.floor.ms).toFixed(2)}x floor)`
      : `n/a (set up directly in ${duration(r.populated.ms)})`,
    r.apply ? duration(r.apply.cpuMs) : "",
    r.apply ? count(r.apply.requests) : "",
    r.apply ? mb(r.apply.maxRssBytes) : "",
    `${duration(r.listing.ms)}, ${(r.listing.largestBytes / MIB).toFixed(2)} MiB max`,
    `${duration(r.plan.ms)} = ${(r.plan.ms / r.listing.ms).toFixed(2)}x floor (${duration(r.plan.cpuMs)}), ${r.plan.requests} req`,
    `${duration(r.planCold.ms)} = ${(r.planCold.ms / r.listing.ms).toFixed(2)}x (${duration(r.planCold.cpuMs)})`,
    mb(r.plan.maxRssBytes),
    `${(Math.max(r.plan.largestAnswer?.bytes ?? 0, r.apply?.largestAnswer?.bytes ?? 0) / MIB).toFixed(2)} MiB`,
    `${duration(r.validate.ms)} (${duration(r.validate.cpuMs)}), ${mb(r.validate.maxRssBytes)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  const fmt = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  print(
    `Processes: svc-iac (node dist/cli/main.js) and svc-iac emulator; ${PER_CANVAS} UDFs per canvas; concurrency ${CONCURRENCY}; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
  );
  print(fmt(head));
  print(fmt(widths.map((w) => "-".repeat(w))));
  for (const t of table) print(fmt(t));
  print(`svc-iac --help: ${duration(help)} (median of ${HELP_RUNS})`);
  print("");

  for (const r of rows) {
    // The N of the target counts every object apply creates: the UDFs and their canvases.
    const objects = r.n + r.canvases;
    const limit = objects + Math.ceil(r.n / 300) + 10;
    if (r.apply)
      print(
        `${verdict(r.apply.requests <= limit)}  apply ${count(r.n)} new UDFs (+${r.canvases} canvases) in ${count(r.apply.requests)} requests (target <= objects + ceil(N/300) + 10 = ${count(limit)})`,
      );
    for (const [what, run] of [
      ["apply", r.apply],
      ["no-op plan", r.plan],
    ]) {
      const largest = run?.largestAnswer;
      if (largest)
        print(
          `${verdict(largest.bytes <= 16 * MIB)}  ${what} of ${count(r.n)} UDFs: largest answer ${(largest.bytes / MIB).toFixed(2)} MiB (${largest.route}) (target <= 16 MiB)`,
        );
    }
    // The safety checks beside what they guard: validate with the Python check off against a bare
    // read and YAML parse of the same files, and the check with its cache against the check off.
    const x = (a, b) => `${duration(a.ms)} = ${(a.ms / b.ms).toFixed(2)}x`;
    print(
      `${verdict(r.validateWarm.ms <= 1.1 * r.readOnly.ms)}  validate of ${count(r.n)} UDFs, warm Python cache: ${x(r.validateWarm, r.readOnly)} validate with the check off (${duration(r.readOnly.ms)}) (target <= 1.1x)`,
    );
    // What the Python check's figures depend on beyond svc-iac: whether `python3` is the interpreter or a script that starts it.
    if (!knownPython("python3"))
      print(
        "info  python3 here is a script that starts the interpreter (a shim such as pyenv's), not the interpreter: a check without a cache starts through it, and one with a cache asks it which interpreter it starts (a run of the shim: about 0.1 s on an idle machine, several times that while the loader holds a core)",
      );
    if (r.validateWarmReal)
      print(
        `info  the same warm cache with the interpreter the shim starts named in SVC_PYTHON (no process asked): ${x(r.validateWarmReal, r.readOnly)} validate with the check off; the rest is a digest of each file and the bookkeeping of its pass`,
      );
    print(
      `${verdict(r.validateColdCache.ms <= 1.6 * r.readOnly.ms)}  validate of ${count(r.n)} UDFs, empty Python cache: ${x(r.validateColdCache, r.readOnly)} validate with the check off (target <= 1.6x)`,
    );
    print(
      `${verdict(r.readOnly.ms <= 1.5 * r.bare.ms)}  validate of ${count(r.n)} UDFs, Python check off: ${x(r.readOnly, r.bare)} a bare read and YAML parse of the same files in its own process (${duration(r.bare.ms)}) (target <= 1.5x)`,
    );
    // The same ratio without what each side costs before its first file (Node's start and the
    // modules: svc-iac's commands, zod and yaml; the bare read's yaml): the checks per file alone.
    const perFiles = r.readOnly.ms - r.starts.validate.ms;
    const barePerFiles = r.bare.ms - r.starts.bare.ms;
    print(
      `info  the same, start costs apart: validate of one UDF ${duration(r.starts.validate.ms)}, the bare read of it ${duration(r.starts.bare.ms)}; the ${count(r.n)} files then add ${duration(perFiles)} to validate and ${duration(barePerFiles)} to the bare read ${barePerFiles > 0 && perFiles > 0 ? ` = ${(perFiles / barePerFiles).toFixed(2)}x` : " (too few files to tell)"}`,
    );
    // What the ratio above holds beyond the safety checks: validate reads the files through the
    // jail, then builds and checks a record of each (its schema, names, references); the bare read
    // does neither. The jail's own share, measured as the same command with plain reads:
    print(
      `info  the repository jail's own cost (no link out of the repository, no special file, sizes bounded, UTF-8 checked; one open, fstat, read and close per file): validate of ${count(r.n)} UDFs with the check off, unbundled, ${x(r.jail.jailed, r.jail.plain)} the same with plain reads and listings (${duration(r.jail.plain.ms)}; CPU ${duration(r.jail.jailed.cpuMs)} against ${duration(r.jail.plain.cpuMs)}; medians of ${r.jail.runs}, alternated); the rest of validate's time over the bare read is building and checking each record`,
    );
    // The plan against its real floor: it must both read the repository (validate with the check
    // off) and list the platform (a bare client); the two overlap, so the larger is the floor.
    const planFloor = Math.max(r.readOnly.ms, r.listing.ms);
    const floorName = r.readOnly.ms >= r.listing.ms ? "reading the repository" : "the listing requests";
    print(
      `${verdict(r.plan.ms <= 1.25 * planFloor)}  no-op plan of ${count(r.n)} UDFs in ${duration(r.plan.ms)} = ${(r.plan.ms / planFloor).toFixed(2)}x the larger floor, ${floorName} (${duration(planFloor)}; listing ${duration(r.listing.ms)}, read ${duration(r.readOnly.ms)}) (target <= 1.25x)`,
    );
    print(
      `info  same plan without the Python check's cache (every file parsed): ${duration(r.planCold.ms)} = ${(r.planCold.ms / planFloor).toFixed(2)}x the larger floor`,
    );
    const rssLimit = r.n <= 20000 ? 300 : r.n <= 100000 ? 500 : undefined;
    if (rssLimit && r.n >= 20000)
      print(
        `${verdict(r.plan.maxRssBytes <= rssLimit * 2 ** 20)}  no-op plan of ${count(r.n)} UDFs: CLI peak RSS ${mb(r.plan.maxRssBytes)} (target <= ${rssLimit} MB)`,
      );
  }
  const r10k = rows.find((r) => r.n === 10000);
  if (r10k?.apply) {
    const limit = 1.3 * r10k.floor.ms;
    // The bound under apply's ratio: it reads and checks the repository (Python included, no cache)
    // before its first create, and its creates cannot end before the emulator has served them.
    if (r10k.floor.emulatorCpuMs !== undefined) {
      const least = r10k.validate.ms + r10k.floor.emulatorCpuMs;
      print(
        `bound apply's read and check of the repository (validate, no cache: ${duration(r10k.validate.ms)}) plus the emulator's own CPU for the same creates (its main thread during the floor: ${duration(r10k.floor.emulatorCpuMs)}) = ${duration(least)} = ${(least / r10k.floor.ms).toFixed(2)}x the floor: ${least > limit ? "above the 1.3x target before apply's own work per create" : "within the 1.3x target"}`,
      );
    }
    print(
      `${verdict(r10k.apply.ms <= limit)}  apply 10,000 new UDFs in ${duration(r10k.apply.ms)} = ${(r10k.apply.ms / r10k.floor.ms).toFixed(2)}x the emulator's raw creates (${duration(r10k.floor.ms)}) (target <= 1.3x)`,
    );
    const writes = r10k.apply.inventoryWrites;
    const steps = r10k.n + r10k.canvases;
    if (writes !== undefined)
      print(
        `${verdict(writes * 10 <= steps)}  apply 10,000 new UDFs: ${count(writes)} inventory writes for ${count(steps)} steps (target <= 1 per 10 steps on average)`,
      );
  }
  if (r10k) {
    print(`${verdict(r10k.plan.ms <= 1500)}  no-op plan of 10,000 UDFs in ${duration(r10k.plan.ms)} (target <= 1.5 s)`);
    print(
      `${verdict(r10k.validate.ms <= 1200)}  validate of 10,000 UDFs in ${duration(r10k.validate.ms)} (target <= 1.2 s)`,
    );
  }
  const r100k = rows.find((r) => r.n === 100000);
  if (r100k?.apply && r10k?.apply) {
    print(
      `${verdict(r100k.apply.ms <= 12 * r10k.apply.ms)}  apply 100,000 new UDFs in ${duration(r100k.apply.ms)} = ${(r100k.apply.ms / r10k.apply.ms).toFixed(1)}x the 10,000 time (target <= 12x)`,
    );
    print(
      `${verdict(r100k.apply.maxRssBytes <= 1.5 * 2 ** 30)}  apply 100,000 new UDFs: CLI peak RSS ${mb(r100k.apply.maxRssBytes)} (target <= 1,536 MB)`,
    );
  } else if (!r100k) {
    print(
      "note  100,000 UDFs are opt-in (minutes): npm run bench -- observe (10,000, 20,000 and 100,000), BENCH_UDFS=10000,100000 npm run bench, or node bench/reconcile.mjs 10000 100000",
    );
  }
  const direct = rows.filter((r) => r.populated).map((r) => count(r.n));
  if (direct.length)
    print(
      `note  ${direct.join(", ")} UDFs were put on the platform directly (one canvas create per ${PER_CANVAS} UDFs) with the inventory apply writes, not by apply (BENCH_APPLY_MAX=${APPLY_MAX}).`,
    );
  print(`${verdict(help <= 120)}  svc-iac --help exits in ${duration(help)} (target <= 120 ms)`);
  const last = rows.filter((r) => r.apply).at(-1);
  if (last) {
    const top = Object.entries(last.apply.routes)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([route, c]) => `${route} x${c}`);
    print(`apply of ${count(last.n)} UDFs, requests by route: ${top.join(", ")}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchReconcile({ sizes: benchSizes(process.argv.slice(2)) });
}
