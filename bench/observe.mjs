// Observation at scale: for N UDFs (100 per canvas), a refresh done the reconciler's way (the lite
// canvas listing, then one read per canvas with its UDFs) and the per-resource way (one GET per object), and the pure plan over the result
// (apply and the commands as whole processes are measured by `reconcile.mjs`). The engine runs in this process, from the built `dist/`; the
// platform is an emulator in its own process (as `svc-iac emulator`), so every figure includes
// real HTTP. Each N gets a fresh emulator.
import { createRequire } from "node:module";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulatorProcess } from "./emulator.mjs";

const require = createRequire(import.meta.url);
const dist = (m) => require(join(import.meta.dirname, "../dist", m));
const { createClient } = dist("api/client.js");
const { loadRepository } = dist("reconcile/load/index.js");
const { observe } = dist("reconcile/observe/index.js");
const { planChanges } = dist("reconcile/plan/index.js");
const { applyCommand } = dist("reconcile/commands/index.js");
const { openStateBackend } = dist("reconcile/state/open-backend.js");
const { udfBodyOf } = dist("resources/udf.js");

const PER_CANVAS = 100;
const PROJECT = "bench";
/** Parallel GETs of the per-object refresh: Terraform's default parallelism. */
const PER_OBJECT_PARALLELISM = 10;

const canvasName = (c) => `c${String(c).padStart(3, "0")}`;
const slugOf = (i) => `u${String(i).padStart(5, "0")}`;
const codeOf = (i) => `@fused.udf(cache_max_age="1h")\ndef udf(n: int = ${i}):\n    return n * 2\n`;
/** `850 ms` below a second, `12.34 s` above. */
const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** svc.yaml and canvases/<c>/<slug>.py for n UDFs, 100 per canvas. */
function writeRepository(n) {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-bench-")), "repo");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "svc.yaml"), `project: ${PROJECT}\n`);
  for (let c = 0; c * PER_CANVAS < n; c++) {
    const folder = join(dir, "canvases", canvasName(c));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "canvas.yaml"), "# defaults: a team canvas\n");
    for (let i = c * PER_CANVAS; i < Math.min(n, (c + 1) * PER_CANVAS); i++)
      writeFileSync(join(folder, `${slugOf(i)}.py`), codeOf(i));
  }
  return dir;
}

/** Counts the HTTP requests this process sends while `body` runs, by route (ids folded). */
async function countingRequests(body) {
  const routes = new Map();
  const onCreate = ({ request }) => {
    const path = String(request.path)
      .split("?")[0]
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}");
    const route = `${request.method} ${path.replace(/^.*?\/v1\//, "/")}`;
    routes.set(route, (routes.get(route) ?? 0) + 1);
  };
  subscribe("undici:request:create", onCreate);
  try {
    const result = await body();
    return { result, routes, total: [...routes.values()].reduce((a, b) => a + b, 0) };
  } finally {
    unsubscribe("undici:request:create", onCreate);
  }
}

async function timed(body) {
  const started = performance.now();
  const result = await body();
  return { result, ms: performance.now() - started };
}

/** Apply of every create, through the command function (lock, observe, plan, apply, inventory). */
async function applyCreates(dir, env) {
  const { result: counted, ms } = await timed(() =>
    countingRequests(() => applyCommand({ dir, env, log: () => {}, lockOwner: "bench" })),
  );
  const r = counted.result;
  if (r.exitCode !== 0 || !r.report?.ok)
    throw new Error(`apply failed: ${r.message ?? JSON.stringify(r.report?.counts)}`);
  return { ms, done: r.report.counts.done, requests: counted.total, routes: counted.routes };
}

/** Faster than apply for 10,000: one canvas create per 100 UDFs, with the bodies apply would write. */
async function populateDirectly(client, n) {
  const { ms, result } = await timed(async () => {
    let requests = 0;
    for (let c = 0; c * PER_CANVAS < n; c++) {
      const udfs = [];
      for (let i = c * PER_CANVAS; i < Math.min(n, (c + 1) * PER_CANVAS); i++) {
        udfs.push({
          slug: slugOf(i),
          udf_body: udfBodyOf({ slug: slugOf(i), entrypoint: "udf", code: codeOf(i), headers: [], metadata: {} }),
        });
      }
      await client.canvases.create({ name: canvasName(c), udfs });
      requests++;
    }
    return requests;
  });
  return { ms, requests: result };
}

/** The inventory apply would have written for these canvases and UDFs (populated directly). */
function inventoryFrom(observation, project) {
  const now = new Date().toISOString();
  const objects = {};
  const names = new Map();
  for (const c of observation.kinds.Canvas.byId.values()) {
    names.set(c.id, c.key);
    objects[`canvas.${c.key}`] = { kind: "Canvas", id: c.id, key: c.key, createdAt: now, appliedAt: now };
  }
  for (const u of observation.kinds.Udf.byId.values()) {
    const [canvasId, slug] = u.key.split("/");
    objects[`udf.${names.get(canvasId)}/${slug}`] = {
      kind: "Udf",
      id: u.id,
      key: u.key,
      createdAt: now,
      appliedAt: now,
      kept: { createSharedToken: false },
    };
  }
  return { version: 1, project: project.project, target: project.target, updatedAt: now, objects };
}

/** The refresh of per-resource tools: one GET per UDF and per canvas, `PER_OBJECT_PARALLELISM` in flight. */
async function observePerObject(client, observation) {
  const jobs = [
    ...[...observation.kinds.Canvas.byId.keys()].map((id) => () => client.canvases.getById(id)),
    ...[...observation.kinds.Udf.byId.keys()].map((id) => () => client.udfs.getById(id)),
  ];
  let next = 0;
  await Promise.all(
    Array.from({ length: PER_OBJECT_PARALLELISM }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

/** One size: returns the figures of the table. */
export async function benchObserveSize(n) {
  const emu = await startEmulatorProcess({ quiet: true });
  const dir = writeRepository(n);
  const { base_url: baseUrl, udf_base_url: udfBaseUrl, user_token: token } = emu.info;
  const env = { SVC_BASE_URL: baseUrl, SVC_UDF_BASE_URL: udfBaseUrl, SVC_TOKEN: token };
  let requests = 0;
  const client = createClient({ baseUrl, udfBaseUrl, token, onRequest: () => requests++ });
  try {
    const row = { n, canvases: Math.ceil(n / PER_CANVAS) };
    if (n <= 1000) {
      row.apply = await applyCreates(dir, env);
    } else {
      row.populate = await populateDirectly(client, n);
    }

    const load = await timed(() => loadRepository(dir, { env: {} }));
    if (!load.result.ok) throw new Error(`load failed: ${load.result.errors.length} errors`);
    const project = load.result.project;
    row.loadMs = load.ms;

    // Inventory: what apply wrote, or (populated directly) what it would have written.
    let inventory = await openStateBackend(project.settings.state, {
      root: project.root,
      project: project.project,
      target: project.target,
    }).readInventory();

    requests = 0;
    const bulk = await timed(() => observe(client, project, inventory));
    row.observe = { ms: bulk.ms, requests };
    inventory ??= inventoryFrom(bulk.result, project);
    row.observedUdfs = bulk.result.kinds.Udf.byId.size;

    const plan = await timed(async () =>
      planChanges({
        project,
        observation: bulk.result,
        inventory,
        now: new Date(),
        prune: false,
        maxDeletions: 10,
        allowDeleteAll: false,
      }),
    );
    row.plan = { ms: plan.ms, actions: plan.result.plan.actions.length };

    requests = 0;
    const perObject = await timed(() => observePerObject(client, bulk.result));
    row.perObject = { ms: perObject.ms, requests };
    return row;
  } finally {
    await client.close();
    emu.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
  }
}

const verdict = (ok) => (ok ? "PASS" : "FAIL");

/** Runs every size and prints the table and the verdicts; returns the rows. */
export async function benchObserve({ sizes = [100, 1000, 10000], print = console.log } = {}) {
  const rows = [];
  for (const n of sizes) rows.push(await benchObserveSize(n));

  const head = [
    "UDFs",
    "apply creates",
    "load",
    "observe (bulk)",
    "plan",
    "observe (GET per object)",
    "per-object / bulk",
  ];
  const table = rows.map((r) => [
    r.n.toLocaleString("en-US"),
    r.apply
      ? `${duration(r.apply.ms)}, ${r.apply.requests} req`
      : `n/a (populated: ${r.populate.requests} req, ${duration(r.populate.ms)})`,
    `${duration(r.loadMs)}`,
    `${duration(r.observe.ms)}, ${r.observe.requests} req`,
    `${duration(r.plan.ms)}, ${r.plan.actions} actions`,
    `${duration(r.perObject.ms)}, ${r.perObject.requests} req`,
    `${Math.round(r.perObject.requests / r.observe.requests)}x req, ${(r.perObject.ms / r.observe.ms).toFixed(1)}x time`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  const fmt = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  print(fmt(head));
  print(fmt(widths.map((w) => "-".repeat(w))));
  for (const t of table) print(fmt(t));
  print("");

  for (const r of rows) {
    // One answer per canvas (each bounded by its canvas), the lite listing, and a few others.
    const limit = r.canvases + 1 + 10;
    print(
      `${verdict(r.observe.requests <= limit)}  observe ${r.n} UDFs in ${r.observe.requests} requests (target <= canvases + 1 + 10 = ${limit})`,
    );
    if (r.apply && r.n === 1000)
      print(`${verdict(r.apply.ms < 15000)}  apply 1,000 new UDFs in ${duration(r.apply.ms)} (target < 15 s)`);
    if (r.n === 10000) print(`${verdict(r.plan.ms < 5000)}  plan 10,000 UDFs in ${duration(r.plan.ms)} (target < 5 s)`);
    if (r.observedUdfs !== r.n) print(`FAIL  observe found ${r.observedUdfs} UDFs, expected ${r.n}`);
    if (r.plan.actions !== 0)
      print(`note  the plan after creating ${r.n} UDFs has ${r.plan.actions} actions (expected none)`);
  }
  const big = rows.find((r) => r.populate);
  if (big)
    print(
      `note  ${big.n.toLocaleString("en-US")} UDFs were put on the platform with one canvas create per ${PER_CANVAS} UDFs, not by apply, to keep the bench short; their inventory is the one apply writes.`,
    );
  const slowest = rows.filter((r) => r.apply).at(-1);
  if (slowest) {
    const top = [...slowest.apply.routes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([route, count]) => `${route} x${count}`);
    print(`apply of ${slowest.n.toLocaleString("en-US")} UDFs, requests by route: ${top.join(", ")}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  await benchObserve(sizes.length ? { sizes } : {});
}
