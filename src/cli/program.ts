/**
 * The `svc-iac` program: the command line (`run-cli.ts`) on this process's streams, environment and
 * folder. Run by `main.ts`; in a build, `dist/cli/program.bundle.js` is this module with everything
 * it loads bundled into one file (scripts/build-cli.mjs).
 */
import { runCli } from "./run-cli";

void runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  beforeReconcile: (name) => {
    // These hold the repository, the inventory and the platform's objects at once: keep the heap small.
    if (name === "validate") return;
    const heap = require("./young-generation") as typeof import("./young-generation");
    if (name === "plan" || name === "drift") heap.keepHeapSmall();
    else heap.capYoungGeneration();
  },
}).then((code) => {
  if (code !== 0 || !process.exitCode) process.exitCode = code;
});
