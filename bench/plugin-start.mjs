// The provider plugin's start, as the engine starts it: `pulumi-resource-svc <engine address>`,
// timed from spawn to its port on stdout. Floors measured in the same run: Pulumi's own Node.js
// dynamic-provider host started the same way (what a TypeScript program's dynamic resources cost),
// and a bare Node printing one line.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, "..");
const PLUGIN = join(ROOT, "dist/provider/plugin/main.js");
const HOST = join(dirname(require.resolve("@pulumi/pulumi/package.json")), "cmd/dynamic-provider/index.js");

/** Milliseconds from spawn to the first stdout line; the process is then stopped. */
function toFirstLine(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
    let text = "";
    child.on("error", reject);
    child.stdout.on("data", (d) => {
      text += d;
      if (!text.includes("\n")) return;
      const ms = performance.now() - started;
      child.kill("SIGTERM");
      resolve({ ms, line: text.split("\n")[0] });
    });
    child.on("close", (code) =>
      text.includes("\n") ? undefined : reject(new Error(`exited ${code} before printing a line`)),
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Medians of `runs` starts, in ms: the plugin, the dynamic-provider host, a bare Node. */
export async function benchPluginStart({ runs = 5 } = {}) {
  const plugin = [];
  const host = [];
  const node = [];
  for (let i = 0; i < runs; i++) {
    const p = await toFirstLine([PLUGIN, "127.0.0.1:1"]);
    if (!/^\d+$/.test(p.line)) throw new Error(`the plugin's first line is not a port: ${p.line}`);
    plugin.push(p.ms);
    host.push((await toFirstLine([HOST, "127.0.0.1:1"])).ms);
    node.push((await toFirstLine(["-e", "console.log(1)"])).ms);
  }
  return { plugin: median(plugin), host: median(host), node: median(node) };
}
