#!/usr/bin/env node
/**
 * The `svc-iac` command. Most of a command's start is loading modules, so in a build the program
 * (`program.ts` and all it loads, the dependencies the command line needs included) is also one
 * bundled file, `dist/cli/program.bundle.js` (scripts/build-cli.mjs), and V8's compiled code of
 * it is kept on disk and reused by the next run (`compile-cache.ts`, on before the program loads).
 * Help and the version need only the usage text: for them the unbundled program loads its few
 * small modules, quicker than the whole bundle. Both run the same source. The library
 * (`require("svc-iac")`) and the tests' in-process runs use the unbundled modules.
 */
import "./compile-cache";
import { onlyHelpOrVersion } from "./help-request";

require(onlyHelpOrVersion(process.argv.slice(2)) ? "./program" : "./program.bundle.js");
