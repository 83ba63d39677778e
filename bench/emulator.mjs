// Emulator throughput: authenticated GETs per second and UDF creates per second.
// The emulator runs in its own process (as `svc-iac emulator`), the load comes from this one.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { Agent, request } from "undici";

const CLI = join(import.meta.dirname, "../dist/cli/main.js");

/** Starts `svc-iac emulator` in a child process; resolves to its ready line and a stop function. `quiet` drops its log (stderr). */
export async function startEmulatorProcess({ quiet = false, args = [] } = {}) {
  const child = spawn(process.execPath, [CLI, "emulator", ...args], {
    stdio: ["ignore", "pipe", quiet ? "ignore" : "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (c) => reject(new Error(`emulator exited ${c}`)));
  });
  return {
    info: JSON.parse(line),
    stop: () => child.kill("SIGTERM"),
    mainThreadCpuMs: () => mainThreadCpuMs(child.pid),
  };
}

/**
 * The CPU time (user + system) the main thread of process `pid` has used so far, from
 * `/proc/<pid>/task/<pid>/stat`: the JavaScript's own time, without the garbage collector's and
 * libuv's helper threads, which run beside it. Undefined where there is no /proc (the figures that
 * need it are then left out).
 */
/**
 * A bare undici client for an emulator process (`info` is its ready line), `connections` wide: the
 * floors' client, with no svc-iac code between the bench and the platform. `get(path)` resolves to
 * the answer's text, `post(path, body)` to its JSON; `close` ends the connections.
 */
export function bareClient(info, connections) {
  const dispatcher = new Agent({ connections });
  const headers = { authorization: `Bearer ${info.user_token}`, "content-type": "application/json" };
  const send = async (method, path, body) => {
    const r = await request(`${info.base_url}${path}`, {
      dispatcher,
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  return {
    get: (path) => send("GET", path),
    post: async (path, body) => JSON.parse(await send("POST", path, body)),
    close: () => dispatcher.close(),
  };
}

export function mainThreadCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    // The fields after the command name (which may hold spaces), from field 3 on: utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticksPerSecond = 100; // USER_HZ, 100 on Linux whatever the kernel's HZ
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/** Sends `total` requests with `concurrency` in flight; returns requests per second. */
export async function load({ total, concurrency, send }) {
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const status = await send(i);
        if (status >= 300) failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: Math.round(total / seconds), seconds: seconds.toFixed(2), failed };
}

export async function benchEmulator({ gets = 20000, creates = 5000, concurrency = 32 } = {}) {
  const emu = await startEmulatorProcess();
  const { base_url: base, user_token: token } = emu.info;
  const dispatcher = new Agent({ connections: concurrency });
  const auth = { authorization: `Bearer ${token}` };
  try {
    // Warm up connections and the JIT.
    await load({
      total: 500,
      concurrency,
      send: () =>
        request(`${base}/user/self`, { dispatcher, headers: auth }).then(
          async (r) => (await r.body.dump(), r.statusCode),
        ),
    });
    const get = await load({
      total: gets,
      concurrency,
      send: () =>
        request(`${base}/user/self`, { dispatcher, headers: auth }).then(
          async (r) => (await r.body.dump(), r.statusCode),
        ),
    });
    const canvas = await request(`${base}/collection/new`, {
      dispatcher,
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: `bench_${Date.now()}` }),
    }).then((r) => r.body.json());
    const body = JSON.stringify({
      name: "u",
      type: "geopandas_v2",
      entrypoint: "udf",
      code: "def udf():\n    return 1\n",
      headers: [],
      metadata: {},
      parameters: {},
    });
    const create = await load({
      total: creates,
      concurrency,
      send: (i) =>
        request(`${base}/udf/new`, {
          dispatcher,
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ slug: `udf_${i}`, udf_body: body, udf_type: "auto", collection_id: canvas.id }),
        }).then(async (r) => (await r.body.dump(), r.statusCode)),
    });
    return { get, create };
  } finally {
    await dispatcher.close();
    emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchEmulator();
  console.log(JSON.stringify(r, null, 2));
}
