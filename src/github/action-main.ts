/**
 * The GitHub Action's entry point, bundled by `npm run build:action` into `dist-action/index.js`
 * (the file `action.yml` runs on `node24`). The runner passes the inputs as `INPUT_*` variables
 * and the step's files as `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`; the step's exit code is the
 * command's (0, 2 changes or drift, 1 error).
 */
import { startEmbeddedEmulator } from "../cli/embedded-emulator";
import { provideEmbeddedPlatform } from "../embedded-platform";
import { runAction } from "./action";
import { annotation } from "./workflow-commands";

// Without SVC_BASE_URL the action's commands run on the embedded emulator, as the CLI's do.
provideEmbeddedPlatform(startEmbeddedEmulator);

runAction({ env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stdout.write(
      annotation("error", `svc-iac: ${(err as Error)?.message ?? String(err)}`, { title: "svc-iac" }),
    );
    process.exitCode = 1;
  },
);
