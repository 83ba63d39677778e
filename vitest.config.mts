import { defineConfig } from "vitest/config";

/**
 * The slow tier (`npm run test:slow`; `.ci/run` runs it after `npm test`): tests whose cost is the
 * behaviour itself, real processes sent signals or killed, a real terminal, compilers, hashing
 * gigabytes, hundreds of fuzzed repositories, the tutorial replayed as a script. Every other test
 * is in `npm test`, which is kept within about 150 s on this 2-core machine.
 */
export const SLOW_TESTS = [
  "test/cli/apply-output.test.ts", // a real terminal (tmux): the status line, Ctrl-C at the prompt
  "test/cli/interrupts.test.ts", // SIGINT and SIGTERM sent to a running apply and destroy
  "test/reconcile/engine/kill.test.ts", // apply killed (SIGKILL) half-way, then taken over
  "test/provider/typescript-setups.test.ts", // tsc run on a Pulumi program under five tsconfigs
  "test/reconcile/broken-repositories.test.ts", // 300 fuzzed repositories, 4 through the command line
  "test/reconcile/engine/saved-plan-big-file.test.ts", // a 2 GiB file digested twice
  "test/docs/tutorial.test.ts", // the tutorial's commands, each in its own process
  "test/reconcile/udf-tests/switch-over-interrupt.test.ts", // SIGKILL and SIGINT during a tested switch-over
];

/**
 * `SVC_TEST_TIER=slow`: only the slow tier; `all`: both; unset: the fast tier (`npm test`). A test
 * file named on the command line (`npx vitest run test/cli/interrupts.test.ts`) runs whatever its tier.
 */
const tier = process.env.SVC_TEST_TIER || (process.argv.some((a) => a.endsWith(".test.ts")) ? "all" : undefined);

export default defineConfig({
  test: {
    include: tier === "slow" ? SLOW_TESTS : ["test/**/*.test.ts"],
    exclude: tier === undefined ? SLOW_TESTS : [],
    // The run's own temporary folder, removed at its end (test/setup/temporary-folder.ts).
    globalSetup: ["test/setup/temporary-folder.ts"],
    // Every plan a test makes is checked against the published plan schema.
    setupFiles: ["test/setup/plan-schema.ts", "test/setup/embedded-platform.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    // Test files share their worker's loaded modules: a new module graph per file cost about two
    // thirds of the CPU of the fast files (import, transform, setup). Each file still gets its own
    // emulator, folders and environment, and no test leaves process state behind.
    isolate: false,
    // The built package is CommonJS, loaded by Node as a user's program loads it.
    server: { deps: { external: [/\/dist\//] } },
  },
});
