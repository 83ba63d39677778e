// Real canvases at scale (#40): a repository of 500 records and about 5 MB of code over 30 canvases,
// as real teams hold them: a third of the records are sticky notes (Markdown) and widgets (JSON),
// one UDF in four has a helper module, and the canvases are written half in the platform's own git
// layout (`<Canvas>/collection.json`, `<Canvas>/<slug>/meta.json`) and half in svc-iac's
// (`canvases/<name>/`). `svc-iac validate`, `apply` (every record new) and a no-op `plan`, each a
// `node dist/cli/main.js` process against `svc-iac emulator` in another, each printed beside its
// floor measured in the same run (as `reconcile.mjs` measures them): a bare read and parse of the
// same files in its own process (validate's), the same canvas and UDF creates sent raw to a fresh
// emulator process with the same concurrency (apply's), and the larger of that read and the
// listing requests a plan makes by a bare client in its own process (the plan's).
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runCli } from "./cli-process.mjs";
import { bareClient, startEmulatorProcess } from "./emulator.mjs";
import { bareRead, expectExit, listingFloor } from "./reconcile.mjs";

const require = createRequire(import.meta.url);
const { udfBodyOf } = require(join(import.meta.dirname, "../dist/kinds/udf/resource.js"));

export const CANVASES = 30;
export const RECORDS = 500;
/** Code of every record and helper module together, about this many bytes. */
export const CODE_BYTES = 5 * 2 ** 20;
/** The CLI's default `concurrency`, used by the create floor too. */
const CONCURRENCY = 8;

const duration = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

/** Python of about `bytes` bytes: a UDF calling small documented steps, as generated code often is. */
function python(label, bytes, entry) {
  const lines = entry ? ["@fused.udf", "def udf(n: int = 1):", "    return step_0(n)", ""] : [];
  for (let i = 0; lines.join("\n").length < bytes; i++)
    lines.push(
      `def step_${i}(x):`,
      `    """Step ${i} of ${label}: adds ${i}, then hands over to the next step of the chain."""`,
      `    return x + ${i}`,
      "",
    );
  return lines.join("\n");
}

/** The records of canvas `c`: kind, slug, code, helper module and metadata. */
function recordsOf(c) {
  const count = Math.floor(RECORDS / CANVASES) + (c < RECORDS % CANVASES ? 1 : 0);
  const out = [];
  for (let r = 0; r < count; r++) {
    const slug = `r${String(r).padStart(2, "0")}`;
    if (r % 6 === 0)
      out.push({
        kind: "note",
        slug,
        code: `## Step ${r} of canvas ${c}\n\n${"Notes on what the next UDFs do, for people. ".repeat(10)}`,
        metadata: { isNodeTemplate: true, nodeTemplateType: "textbox", nodeTemplateColor: "#ffd966" },
      });
    else if (r % 6 === 3)
      out.push({
        kind: "widget",
        slug,
        code: JSON.stringify(
          {
            type: "scatter-chart",
            props: { points: Array.from({ length: 60 }, (_, i) => ({ x: i, y: (i * 7) % 13, label: `p${i}` })) },
          },
          null,
          2,
        ),
        metadata: { isNodeTemplate: true, nodeTemplateType: "json_ui", nodeDescription: "Rows as points" },
      });
    else out.push({ kind: "udf", slug, helper: r % 4 === 1, metadata: { "fused:description": `Record ${r}` } });
  }
  return out;
}

/** Sizes the UDFs' code so the repository holds about {@link CODE_BYTES} of code in all. */
export function realCanvases() {
  const canvases = Array.from({ length: CANVASES }, (_, c) => ({ name: `Canvas_${c}`, records: recordsOf(c) }));
  const all = canvases.flatMap((c) => c.records);
  const furniture = all.filter((r) => r.kind !== "udf").reduce((n, r) => n + Buffer.byteLength(r.code), 0);
  const udfs = all.filter((r) => r.kind === "udf");
  // A helper module is half the size of the code it helps.
  const shares = udfs.reduce((n, r) => n + (r.helper ? 1.5 : 1), 0);
  const each = Math.floor((CODE_BYTES - furniture) / shares);
  canvases.forEach((canvas, c) => {
    for (const r of canvas.records.filter((x) => x.kind === "udf")) {
      r.code = python(`canvas ${c}, ${r.slug}`, each, true);
      if (r.helper) r.helperCode = python(`the helper of canvas ${c}, ${r.slug}`, each / 2, false);
    }
  });
  return canvases;
}

const write = (dir, file, text) => {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
};
const EXT = { udf: ".py", note: ".md", widget: ".json" };

/** The repository: even canvases in the platform's layout, odd ones in svc-iac's. */
export function writeRealRepository(canvases) {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-bench-real-")), "repo");
  write(dir, "svc.yaml", "project: bench\n");
  let codeBytes = 0;
  canvases.forEach((canvas, c) => {
    const nodes = canvas.records.map((r, i) => ({ id: `n${i}`, udfName: r.slug, x: i * 40, y: 0 }));
    const dashboard = JSON.stringify({ nodes, edges: [] });
    canvas.dashboard = dashboard;
    for (const r of canvas.records) codeBytes += Buffer.byteLength(r.code) + Buffer.byteLength(r.helperCode ?? "");
    if (c % 2 === 0) {
      write(
        dir,
        `${canvas.name}/collection.json`,
        JSON.stringify({ version: "1.0.0", name: canvas.name, dashboard_body: dashboard }, null, 2),
      );
      for (const r of canvas.records) {
        const source = `${r.slug}${EXT[r.kind]}`;
        write(dir, `${canvas.name}/${r.slug}/${source}`, r.code);
        if (r.helper) write(dir, `${canvas.name}/${r.slug}/utils.py`, r.helperCode);
        const udf = {
          type: "geopandas_v2",
          name: r.slug,
          entrypoint: "udf",
          parameters: {},
          metadata: r.metadata,
          headers: r.helper ? [{ module_name: "utils", source_file: "utils.py" }] : [],
          source,
        };
        write(
          dir,
          `${canvas.name}/${r.slug}/meta.json`,
          JSON.stringify({
            version: "0.0.3",
            job_config: { version: "0.0.3", name: null, steps: [{ type: "udf", udf }] },
          }),
        );
      }
    } else {
      const folder = `canvases/${canvas.name}`;
      write(dir, `${folder}/canvas.yaml`, `dashboard_body: ${JSON.stringify(dashboard)}\n`);
      for (const r of canvas.records) {
        write(dir, `${folder}/${r.slug}${EXT[r.kind]}`, r.code);
        const metadata = Object.fromEntries(
          Object.entries(r.metadata).filter(([k]) => k !== "isNodeTemplate" && k !== "nodeTemplateType"),
        );
        const settings = [`metadata: ${JSON.stringify(metadata)}`];
        if (r.helper) {
          write(dir, `${folder}/lib/${r.slug}/utils.py`, r.helperCode);
          settings.push(`headers:\n  - module: utils\n    file: lib/${r.slug}/utils.py`);
        }
        write(dir, `${folder}/${r.slug}.yaml`, `${settings.join("\n")}\n`);
      }
    }
  });
  return { dir, codeBytes };
}

/** The create floor: the same canvases and records sent raw (`POST /collection/new`, `POST /udf/new`), {@link CONCURRENCY} in flight, to a fresh emulator process. */
async function rawCreates(canvases) {
  const emu = await startEmulatorProcess({ quiet: true });
  const raw = bareClient(emu.info, CONCURRENCY);
  const post = raw.post;
  const bodies = canvases.flatMap((canvas) =>
    canvas.records.map((r) => ({
      canvas: canvas.name,
      slug: r.slug,
      udf_body: udfBodyOf({
        slug: r.slug,
        entrypoint: "udf",
        code: r.code,
        headers: r.helper ? [{ moduleName: "utils", code: r.helperCode }] : [],
        metadata: r.metadata,
      }),
    })),
  );
  try {
    const started = performance.now();
    const ids = new Map();
    let next = 0;
    const pool = (items, send) =>
      Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < items.length) await send(items[next++]);
        }),
      );
    await pool(canvases, async (c) =>
      ids.set(c.name, (await post("/collection/new", { name: c.name, dashboard_body: c.dashboard })).id),
    );
    next = 0;
    await pool(bodies, (b) =>
      post("/udf/new", { slug: b.slug, udf_body: b.udf_body, udf_type: "auto", collection_id: ids.get(b.canvas) }),
    );
    return { ms: performance.now() - started, requests: canvases.length + bodies.length };
  } finally {
    await raw.close();
    emu.stop();
  }
}

/** Runs the benchmark; `print(label, value, floor)` prints one figure beside its floor. */
export async function benchRealCanvases(print) {
  const canvases = realCanvases();
  const { dir, codeBytes } = writeRealRepository(canvases);
  const records = canvases.reduce((n, c) => n + c.records.length, 0);
  const kinds = { udf: 0, note: 0, widget: 0 };
  for (const r of canvases.flatMap((c) => c.records)) kinds[r.kind]++;
  console.log(
    `${records} records (${kinds.udf} UDFs, ${kinds.note} notes, ${kinds.widget} widgets) on ${canvases.length} canvases (half in each layout), ${mib(codeBytes)} of code`,
  );
  const emu = await startEmulatorProcess({ quiet: true });
  const { base_url: baseUrl, udf_base_url: udfBaseUrl, user_token: token } = emu.info;
  const cold = { SVC_BASE_URL: baseUrl, SVC_UDF_BASE_URL: udfBaseUrl, SVC_TOKEN: token, SVC_CACHE_DIR: "" };
  const cache = mkdtempSync(join(tmpdir(), "svc-bench-cache-"));
  const env = { ...cold, SVC_CACHE_DIR: cache };
  try {
    const bare = await bareRead(dir);
    const validate = expectExit("validate", await runCli(["validate", dir], cold));
    const readOnly = expectExit(
      "validate, Python check off",
      await runCli(["validate", dir], { ...cold, SVC_PYTHON: "" }),
    );
    print("validate (no Python cache)", duration(validate.ms), `bare read and parse ${duration(bare.ms)}`);
    print(
      "  validate, Python check off",
      duration(readOnly.ms),
      `${(readOnly.ms / bare.ms).toFixed(2)}x the bare read`,
    );
    const floor = await rawCreates(canvases);
    const apply = expectExit(
      "apply",
      await runCli(["apply", dir, "--auto-approve", "--concurrency", String(CONCURRENCY)], env),
    );
    print(
      "apply (every record new)",
      duration(apply.ms),
      `raw creates ${duration(floor.ms)} (${floor.requests} requests): ${(apply.ms / floor.ms).toFixed(2)}x; ${apply.requests} requests, ${Math.round(apply.maxRssBytes / 2 ** 20)} MB peak RSS`,
    );
    const listing = await listingFloor(emu.info);
    const planned = expectExit(
      "the plan after apply (expected no changes)",
      await runCli(["plan", dir, "--detailed-exitcode"], env),
    );
    const planFloor = Math.max(listing.ms, readOnly.ms);
    print(
      "no-op plan",
      duration(planned.ms),
      `larger floor ${duration(planFloor)} (listing ${duration(listing.ms)}, read ${duration(readOnly.ms)}): ${(planned.ms / planFloor).toFixed(2)}x; ${planned.requests} requests`,
    );
  } finally {
    emu.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchRealCanvases((label, value, floor) =>
    console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${floor ? `(floor: ${floor})` : ""}`),
  );
}
