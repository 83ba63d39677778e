// Real-time UDF runs through the emulator in its own process (`svc-iac emulator`), each a real
// python3 run of a trivial UDF: fresh runs (distinct parameters, so no cached result applies) and
// cached runs (the same parameters again), beside the raw authenticated GET rate of the same
// emulator in the same run as the floor (what the HTTP path alone costs), and the rate of bare
// `python3 -c pass` processes at the same concurrency as the floor of fresh runs.
import { execFile } from "node:child_process";
import { Agent, request } from "undici";
import { load, startEmulatorProcess } from "./emulator.mjs";

const TRIVIAL = "@fused.udf\ndef udf(n: int = 0):\n    return {'n': n}\n";

/** Bare interpreter starts per second (the real executable, as the emulator resolves it once): what any fresh run costs at least. */
async function pythonStarts(total, concurrency) {
  const exe = await new Promise((resolve, reject) =>
    execFile("python3", ["-c", "import sys; print(sys.executable)"], (e, out) => (e ? reject(e) : resolve(out.trim()))),
  );
  return load({
    total,
    concurrency,
    send: () => new Promise((resolve) => execFile(exe, ["-c", "pass"], (e) => resolve(e ? 500 : 200))),
  });
}

export async function benchUdfRuns({ fresh = 100, cached = 2000, gets = 5000, concurrency = 4 } = {}) {
  const emu = await startEmulatorProcess({ quiet: true });
  const { base_url: base, user_token: token, client_id: clientId } = emu.info;
  const dispatcher = new Agent({ connections: 32 });
  const auth = { authorization: `Bearer ${token}` };
  const post = (path, body) =>
    request(`${base}${path}`, {
      dispatcher,
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    const canvas = await post("/collection/new", { name: `bench_runs_${Date.now()}` }).then((r) => r.body.json());
    const udfBody = JSON.stringify({
      name: "trivial",
      type: "geopandas_v2",
      entrypoint: "udf",
      code: TRIVIAL,
      headers: [],
      metadata: {},
      parameters: {},
    });
    const udf = await post("/udf/new", {
      slug: "trivial",
      udf_body: udfBody,
      udf_type: "auto",
      collection_id: canvas.id,
    }).then((r) => r.body.json());
    const run = (n) =>
      post(`/realtime/${clientId}/api/v1/run/udf`, {
        step_config: JSON.stringify({ udf_id: udf.id, parameters: { n } }),
        format: "json",
      }).then(async (r) => {
        await r.body.dump();
        return r.statusCode;
      });
    const probe = await run(-1);
    if (probe !== 200) throw new Error(`a real-time run answered ${probe} (is python3 installed?)`);
    await load({ total: 20, concurrency, send: (i) => run(1_000_000 + i) }); // warm up
    const freshRuns = await load({ total: fresh, concurrency, send: (i) => run(i) });
    const cachedRuns = await load({ total: cached, concurrency: 32, send: (i) => run(i % 10) });
    const get = await load({
      total: gets,
      concurrency: 32,
      send: () =>
        request(`${base}/user/self`, { dispatcher, headers: auth }).then(
          async (r) => (await r.body.dump(), r.statusCode),
        ),
    });
    const python = await pythonStarts(fresh, concurrency);
    return { fresh: freshRuns, cached: cachedRuns, get, python, concurrency };
  } finally {
    await dispatcher.close();
    emu.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchUdfRuns(), null, 2));
}
