// The bundled GitHub Action's start, as the runner starts it: `node dist-action/index.js` alone in
// an empty folder, `validate` on a small repository, timed from spawn to the first byte on stdout
// (and to exit). The floor is Node itself printing one line, measured in the same run.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, "..");

/** Milliseconds from spawn to the first stdout byte and to exit, and the exit code. */
function timed(args, opts) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first;
    const child = spawn(process.execPath, args, { ...opts, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", () => (first ??= performance.now() - started));
    child.on("error", reject);
    child.on("close", (code) => resolve({ first: first ?? Number.NaN, total: performance.now() - started, code }));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs the bundle `runs` times; returns medians in ms: `first` (to first output), `total`, and
 * `floor` (a bare Node printing a line), plus the exit codes seen.
 * @param {{ bundle?: string, runs?: number }} [opts]
 */
export async function benchActionStart({ bundle = join(ROOT, "dist-action", "index.js"), runs = 5 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "svc-action-start-"));
  try {
    const actionDir = join(root, "action");
    const workspace = join(root, "workspace");
    mkdirSync(actionDir);
    copyFileSync(bundle, join(actionDir, "index.js"));
    const { starterFiles } = require(join(ROOT, "dist", "reconcile", "init", "starter-repository.js"));
    for (const [path, text] of Object.entries(
      starterFiles({ project: "bench", schemaBase: "node_modules/svc-iac/schemas" }),
    )) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), text);
    }
    const env = {
      PATH: dirname(process.execPath),
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: join(root, "output"),
      GITHUB_STEP_SUMMARY: join(root, "summary"),
      GITHUB_EVENT_NAME: "push",
      INPUT_COMMAND: "validate",
      "INPUT_WORKING-DIRECTORY": ".",
    };
    const action = [];
    const floor = [];
    for (let i = 0; i < runs; i++) {
      action.push(await timed([join(actionDir, "index.js")], { cwd: workspace, env }));
      floor.push(await timed(["-e", "process.stdout.write('ready\\n')"], { cwd: workspace, env }));
    }
    return {
      first: median(action.map((r) => r.first)),
      total: median(action.map((r) => r.total)),
      floor: median(floor.map((r) => r.first)),
      codes: [...new Set(action.map((r) => r.code))],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
