// A Pulumi program at scale, as `pulumi up` runs it up to the engine: one process declares N
// resources through the real SDK under `setMocks` (the engine's part answers at once), and the
// figures are its wall time and peak RSS. The floor is the same program declaring N plain custom
// resources (no dynamic provider), measured in the same run: the SDK's own per-resource cost.
// Run as a child process: `node bench/pulumi-program.mjs <svc|plain> N` prints one JSON line.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

async function program(mode, n) {
  const pulumi = require("@pulumi/pulumi");
  const svc = require(join(import.meta.dirname, "../dist/provider/index.js"));
  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: async () => ({}),
    },
    "bench",
    "dev",
    false,
  );
  const started = performance.now();
  const ids = [];
  if (mode === "svc") {
    const canvas = new svc.Canvas("c", { name: "bench" });
    for (let i = 0; i < n; i++) {
      ids.push(new svc.Udf(`u${i}`, { canvasId: canvas.id, slug: `u${i}`, code: `@fused.udf\ndef udf(n: int = ${i}):\n    return n\n` }).id);
    }
  } else {
    // The same graph without a dynamic provider: a parent whose id every resource takes as input.
    // "shape" gives each resource the properties an svc.Udf has (its two outputs, one of them
    // secret, and a `__provider` string as long as the serialized stub): the SDK's own cost for
    // resources of that shape, since it keeps several promises with a captured stack per property.
    const canvas = new pulumi.CustomResource("bench:index:Canvas", "c", { name: "bench" });
    const stub = "x".repeat(2600);
    for (let i = 0; i < n; i++) {
      const code = `@fused.udf\ndef udf(n: int = ${i}):\n    return n\n`;
      const props = { canvasId: canvas.id, slug: `u${i}`, code };
      ids.push(
        mode === "shape"
          ? new pulumi.CustomResource("bench:index:Plain", `u${i}`, { ...props, udfBodyHash: undefined, sharedToken: undefined, __provider: stub }, { additionalSecretOutputs: ["sharedToken"] }).id
          : new pulumi.CustomResource("bench:index:Plain", `u${i}`, props).id,
      );
    }
  }
  await Promise.all(ids.map((id) => new Promise((ok) => id.apply(ok))));
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}

/** Runs the program in its own process and returns its figures. */
export function runProgram(mode, n) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=4096", import.meta.filename, mode, String(n)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`${mode} program exited ${code}`))));
  });
}

/** `npm run bench` part: 10,000 resources, target under 20 s and 1 GB. */
export async function benchPulumiProgram(line, n = 10_000) {
  const plain = await runProgram("plain", n);
  const shape = await runProgram("shape", n);
  const svc = await runProgram("svc", n);
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  line(`declare ${n.toLocaleString("en")} svc.Udf under setMocks`, s(svc.ms), `< 20 s; floors ${s(plain.ms)} plain resources, ${s(shape.ms)} plain of svc.Udf's shape`);
  line("  program peak RSS", `${Math.round(svc.maxRssMb)} MB`, `< 1024 MB; floors ${Math.round(plain.maxRssMb)} MB plain, ${Math.round(shape.maxRssMb)} MB of svc.Udf's shape`);
  const pass = svc.ms < 20_000 && svc.maxRssMb < 1024;
  console.log(`  ${pass ? "PASS" : "FAIL"}: Pulumi program of ${n.toLocaleString("en")} resources`);
}

if (process.argv[1] === import.meta.filename && process.argv[2]) await program(process.argv[2], Number(process.argv[3]));
