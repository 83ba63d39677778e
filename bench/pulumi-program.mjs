// A Pulumi program at scale, as `pulumi up` runs it up to the engine: one process declares N
// resources through the real SDK under `setMocks` (the engine's part answers at once), waits for
// the SDK's registrations to finish as a program's end does, and reports its wall time and peak RSS.
// Two floors, measured in the same run:
// - "plain": N plain custom resources of three properties, as the SDK declares them by default;
// - "shape": N plain custom resources of an svc.Udf's shape (the same registered properties,
//   `udfBodyHash` and a `__provider` string as long as the stub), declared with quiet stacks as
//   svc-iac declares its own (src/provider/registration.ts): the SDK's own cost for that shape,
//   so "svc" minus "shape" is what svc-iac adds.
// Run as a child process: `node bench/pulumi-program.mjs <svc|plain|shape> N` prints one JSON line.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

async function program(mode, n) {
  const pulumi = require("@pulumi/pulumi");
  let registered = 0;
  await pulumi.runtime.setMocks(
    {
      newResource: async (args) => {
        registered++;
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: async () => ({}),
    },
    "bench",
    "dev",
    false,
  );
  const started = performance.now();
  const code = (i) => `@fused.udf\ndef udf(n: int = ${i}):\n    return n\n`;
  const udfs = [];
  if (mode === "svc") {
    const svc = require(join(import.meta.dirname, "../dist/provider/index.js"));
    const canvas = new svc.Canvas("c", { name: "bench" });
    for (let i = 0; i < n; i++) udfs.push(new svc.Udf(`u${i}`, { canvasId: canvas.id, slug: `u${i}`, code: code(i) }));
  } else {
    // The same graph without a dynamic provider: a parent whose id every resource takes as input.
    const canvas = new pulumi.CustomResource("bench:index:Canvas", "c", { name: "bench" });
    const stub = "x".repeat(require(join(import.meta.dirname, "../dist/provider/stub.js")).providerText("Udf").length);
    for (let i = 0; i < n; i++) {
      const props = { canvasId: canvas.id, slug: `u${i}`, code: code(i) };
      if (mode === "plain") {
        udfs.push(new pulumi.CustomResource("bench:index:Plain", `u${i}`, props));
        continue;
      }
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        udfs.push(
          new pulumi.CustomResource("bench:index:Plain", `u${i}`, {
            ...props,
            udfBodyHash: undefined,
            __provider: stub,
          }),
        );
      } finally {
        Error.stackTraceLimit = limit;
      }
    }
  }
  // As `pulumi up` ends a program: wait for the SDK's outstanding registrations to finish.
  await pulumi.runtime.disconnect();
  if (registered !== n + 1) throw new Error(`${registered} of ${n + 1} resources registered`);
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
}

/** Runs the program in its own process and returns its figures. */
export function runProgram(mode, n) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=4096", import.meta.filename, mode, String(n)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").pop()))
        : reject(new Error(`${mode} program exited ${code}`)),
    );
  });
}

/** `npm run bench` part: 10,000 resources, target under 20 s and 1 GB. */
export async function benchPulumiProgram(line, n = 10_000) {
  const plain = await runProgram("plain", n);
  const shape = await runProgram("shape", n);
  const svc = await runProgram("svc", n);
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const mb = (r) => `${Math.round(r.maxRssMb).toLocaleString("en")} MB`;
  line(
    `declare ${n.toLocaleString("en")} svc.Udf under setMocks`,
    s(svc.ms),
    `< 20 s; floors ${s(plain.ms)} plain resources, ${s(shape.ms)} plain of svc.Udf's shape`,
  );
  line("  program peak RSS", mb(svc), `< 1,024 MB; floors ${mb(plain)} plain, ${mb(shape)} plain of svc.Udf's shape`);
  const pass = svc.ms < 20_000 && svc.maxRssMb < 1024;
  console.log(`  ${pass ? "PASS" : "FAIL"}: Pulumi program of ${n.toLocaleString("en")} resources`);
}

if (process.argv[1] === import.meta.filename && process.argv[2])
  await program(process.argv[2], Number(process.argv[3]));
