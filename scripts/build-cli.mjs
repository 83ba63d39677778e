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
import { readdirSync, readFileSync } from "node:fs";
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

/**
 * zod's locale index with English alone. `import { z } from "zod"` is a namespace holding
 * `z.locales`, so the bundle would keep all 64 locales, and start each (11 ms of a profiled
 * no-op plan); zod itself registers English from `locales/en.js`, and svc-iac writes its own
 * messages and sets no other locale.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "index.js"), namespace: "zod-english-only" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: dirname(args.path),
    }));
  },
};

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
    plugins: [zodEnglishOnly],
    minifyWhitespace: true,
    minifySyntax: true,
    // Names as written (no keepNames: its __name() wrapper ran for every function made, a few
    // percent of a plan's CPU); a class esbuild had to rename is refused below.
    sourcemap: false,
    legalComments: "eof",
    logLevel: "error",
  });
  refuseRenamedClasses(readFileSync(join(root, "dist", "cli", "program.bundle.js"), "utf8"));
}

/** Every `class X` written in src/. */
function classesInSources(dir = join(root, "src"), found = new Set()) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) classesInSources(path, found);
    else if (e.name.endsWith(".ts"))
      for (const m of readFileSync(path, "utf8").matchAll(/\bclass ([A-Za-z_$][\w$]*)/g)) found.add(m[1]);
  }
  return found;
}

/**
 * Fails when esbuild renamed one of our classes (two modules declaring a class of the same name
 * become `Name` and `Name2`): an error's `name` is its class's (`errors.ts`), and users see it.
 */
export function refuseRenamedClasses(bundle, written = classesInSources()) {
  // `class Name2 extends` as written, or `Name2=class` where a module starts lazily: either way the class's name.
  const found = bundle.matchAll(/\bclass ([A-Za-z_$][\w$]*\d)\b|\b([A-Za-z_$][\w$]*\d)=class\b/g);
  const renamed = [...new Set([...found].map((m) => m[1] ?? m[2]))].filter(
    (name) => !written.has(name) && written.has(name.replace(/\d+$/, "")),
  );
  if (renamed.length)
    throw new Error(
      `dist/cli/program.bundle.js renamed ${renamed.join(", ")}: two modules declare a class of the same name; rename one in src/`,
    );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli();
