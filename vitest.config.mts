import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every plan a test makes is checked against the published plan schema.
    setupFiles: ["test/setup/plan-schema.ts", "test/setup/embedded-platform.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    // The built package is CommonJS, loaded by Node as a user's program loads it.
    server: { deps: { external: [/\/dist\//] } },
  },
});
