#!/usr/bin/env node
/**
 * Bundles the command line's program (src/cli/program.ts and everything it loads) into one file,
 * dist/cli/program.bundle.js, beside the unbundled modules `npm run build` or the fast tier's build
 * wrote. `dist/cli/main.js` (the `svc-iac` bin) turns V8's compile cache on, then loads it (or, for
 * help and the version alone, the unbundled `program.js`, which loads a few small files). Most of
 * a command's start was loading modules: 425 files for a plan, each found, read and compiled; as
 * one file whose compiled code the cache keeps, a no-op plan of 10,000 UDFs used about a quarter
 * less CPU (npm run bench prints the figures).
 *
 * Left outside the bundle, loaded from node_modules when used: Pulumi and gRPC (optional peers),
 * CEL (loaded on first use of a rule), and what only the emulator's datasets and imports need.
 * The library (`require("svc-iac")`) and the tests' in-process runs use the unbundled modules.
 *
 *   node scripts/build-cli.mjs    writes dist/cli/program.bundle.js
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Packages the bundle leaves to node_modules (see the file comment). */
export const OUTSIDE = [
  "@pulumi/*",
  "@grpc/*",
  "@bufbuild/*",
  "h3-js",
  "hyparquet",
  "hyparquet-writer",
  "fflate",
  "csv-parse",
  "smol-toml",
];

/** Writes dist/cli/program.bundle.js. */
export async function buildCli() {
  await build({
    absWorkingDir: root,
    entryPoints: ["src/cli/program.ts"],
    outfile: join(root, "dist", "cli", "program.bundle.js"),
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    // ESM builds of the dependencies where they have one, so that what the program never uses
    // (zod's 64 locales) is left out.
    mainFields: ["module", "main"],
    external: OUTSIDE,
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    sourcemap: false,
    legalComments: "eof",
    logLevel: "error",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
