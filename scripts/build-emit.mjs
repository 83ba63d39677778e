#!/usr/bin/env node
/**
 * The fast tier's build (`npm test`, and the tests' own rebuild of a stale `dist/`): `dist/` as
 * `npm run build` lays it out (each `src/**\/*.ts` as its CommonJS `.js`, with a source map), transpiled file by file
 * with esbuild, without the type check or the declarations. It takes about 1 s of CPU where `tsc`
 * takes about 18 s on this 2-core machine, so the fast tier spends its time on tests.
 *
 * The type check is `npm run typecheck` (src, test and bench together), which `.ci/run` runs beside
 * lint. `npm run build` (tsc: checked, with declarations) stays the package's build: `prepack`, the
 * slow tier and the install check use it. esbuild already builds the GitHub Action from the same
 * sources (scripts/build-action.mjs).
 *
 *   node scripts/build-emit.mjs    replaces dist/ with the transpiled sources
 */
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildCli } from "./build-cli.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every TypeScript source under `dir`, declarations left out (tsc emits nothing for them). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

rmSync(join(root, "dist"), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: sources(join(root, "src")),
  outbase: "src",
  outdir: "dist",
  bundle: false,
  platform: "node",
  // tsconfig.json's target.
  target: "es2023",
  format: "cjs",
  sourcemap: true,
  logLevel: "error",
});
// The command line's program as one file, as `npm run build` leaves it (scripts/build-cli.mjs).
await buildCli();
