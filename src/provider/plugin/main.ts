#!/usr/bin/env node
/**
 * `pulumi-resource-svc`: the Pulumi provider plugin of package `svc` (resource types
 * `svc:index:Canvas`, …). The engine starts it with its own address as argument and reads the
 * port this prints as the first line of stdout; nothing is printed before it.
 */
import { startPlugin } from "./server";

startPlugin(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-svc: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
