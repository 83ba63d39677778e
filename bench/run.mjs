// `npm run bench`: prints the figures of every benchmark. Targets are printed beside the figures;
// nothing here fails a build (speed is reported, not asserted). `npm run bench -- observe` runs
// only the reconciler's commands at 10,000, 20,000 and 100,000 UDFs.
import { cpus } from "node:os";
import { benchActionStart } from "./action-start.mjs";
import { benchDatasets } from "./datasets.mjs";
import { benchEmulator } from "./emulator.mjs";
import { benchHistory } from "./history.mjs";
import { benchPlanPicture } from "./plan-picture.mjs";
import { benchPulumiProgram } from "./pulumi-program.mjs";
import { benchObserve } from "./observe.mjs";
import { benchPluginStart } from "./plugin-start.mjs";
import { benchProjects } from "./projects.mjs";
import { benchReconcile, OBSERVE_SIZES } from "./reconcile.mjs";
import { benchRealCanvases } from "./real-canvases.mjs";
import { benchUdfRuns } from "./udf-runs.mjs";
import { benchYamlBounds } from "./yaml-bounds.mjs";
import { benchPythonCheck } from "./python-check.mjs";

const line = (label, value, target) =>
  console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${target ? `(target ${target})` : ""}`);

console.log(`svc-iac benchmarks on ${cpus().length} cores, Node ${process.version}\n`);
if (process.argv[2] === "observe") {
  // `npm run bench -- observe`: only the reconciler's commands, at 10,000, 20,000 and 100,000 UDFs (minutes).
  console.log("Reconciler commands (each its own process, emulator in its own)");
  await benchReconcile({ sizes: OBSERVE_SIZES });
  process.exit(0);
}
console.log("Emulator (separate process, 32 requests in flight)");
const emu = await benchEmulator();
line("authenticated GET /user/self per second", emu.get.perSecond, ">= 2000");
line("POST /udf/new per second", emu.create.perSecond, ">= 500");
if (emu.get.failed || emu.create.failed)
  console.log(`failed requests: ${emu.get.failed} GET, ${emu.create.failed} creates`);

console.log("\nReal-time UDF runs (emulator in its own process, each fresh run a python3 process; trivial UDF)");
try {
  const runs = await benchUdfRuns();
  line(`fresh runs per second (${runs.concurrency} in flight)`, runs.fresh.perSecond, "");
  line(`  floor: python3 starts/s (${runs.concurrency} at once)`, runs.python.perSecond, "");
  line("cached runs per second (32 in flight)", runs.cached.perSecond, "");
  line("  floor: authenticated GETs per second", runs.get.perSecond, "");
  if (runs.fresh.failed || runs.cached.failed)
    console.log(`failed runs: ${runs.fresh.failed} fresh, ${runs.cached.failed} cached`);
} catch (e) {
  console.log(`skipped: ${e.message}`);
}

console.log("\nDataset query (spec 4.11; emulator in its own process)");
await benchDatasets((label, value, note) =>
  console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${note ?? ""}`),
);

console.log("\nReconciler commands (each its own process, emulator in its own)");
await benchReconcile();

console.log("\nReal canvases: 500 records, 5 MB of code, 30 canvases in both layouts (each command its own process)");
await benchRealCanvases((label, value, floor) =>
  console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${floor ? `(floor: ${floor})` : ""}`),
);

console.log("\nDeployment history (apply as its own process; storage beside the code it holds)");
await benchHistory((label, value, note) =>
  console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${note ?? ""}`),
);

console.log("\nHostile YAML (bounded parse in this process; validate as its own process)");
await benchYamlBounds((label, value, note) =>
  console.log(`${label.padEnd(44)} ${String(value).padStart(10)}   ${note ?? ""}`),
);
console.log("\nPython check (validate of 10,000 UDFs, each a process; median of 3)");
try {
  await benchPythonCheck(line);
} catch (e) {
  console.log(`skipped: ${e.message}`);
}

console.log("\nObservation (engine in this process, emulator in its own; 100 UDFs per canvas)");
await benchObserve();

console.log("\nThe plan as a picture (pure, in this process, from dist/)");
await benchPlanPicture(line);

console.log("\nMonorepo change detection (the command and git each their own process)");
await benchProjects((label, value, target) =>
  console.log(`${label.padEnd(60)} ${String(value).padStart(8)}   ${target ? `(target ${target})` : ""}`),
);

console.log("\nPulumi program (its own process, real SDK under setMocks)");
await benchPulumiProgram(line);

console.log("\nPulumi provider plugin (pulumi-resource-svc started as the engine starts it)");
const plugin = await benchPluginStart();
line("start to port on stdout, ms (median of 5)", Math.round(plugin.plugin), "<= the dynamic host's");
line("floor: Pulumi's dynamic-provider host, ms", Math.round(plugin.host));
line("floor: Node printing one line, ms", Math.round(plugin.node));

console.log("\nGitHub Action bundle (dist-action/index.js alone in an empty folder, validate)");
const start = await benchActionStart();
line("start to first output, ms (median of 5)", Math.round(start.first), "< 1000");
line("start to exit, ms", Math.round(start.total));
line("floor: Node printing one line, ms", Math.round(start.floor));
if (start.codes.some((c) => c !== 0)) console.log(`the action exited with ${start.codes.join(", ")}`);
