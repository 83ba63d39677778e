#!/usr/bin/env node
/**
 * `pulumi-resource-svc`: the Pulumi provider plugin of package `svc` (resource types
 * `svc:index:Canvas`, …). The engine starts it with its own address as argument and reads the
 * port this prints as the first line of stdout; nothing is printed before it. A person running it
 * with `--help` or `--version` gets an answer and the prompt back (the engine never passes either:
 * its flags are `-v=N`, `--logtostderr`, `--tracing`, `--logflow`).
 */
import { packageVersion, startPlugin } from "./server";

const HELP = `pulumi-resource-svc: the Pulumi provider plugin of package "svc" (svc-iac ${packageVersion()})

Pulumi starts it; you do not run it yourself. The engine finds it by its name, in this order:
  - a path under plugins.providers in Pulumi.yaml (- name: svc, path: ./node_modules/.bin),
  - Pulumi's plugin cache (pulumi plugin install resource svc <version> --file <folder>),
  - PATH (svc-iac and @pulumi/pulumi installed with npm install -g),
then runs it with the engine's address as argument and reads its port from the first stdout line.

Configuration (stack config of package svc, each falling back to its environment variable):
  svc:baseUrl (SVC_BASE_URL), svc:udfBaseUrl (SVC_UDF_BASE_URL),
  svc:token (SVC_TOKEN, secret), svc:serviceToken (SVC_SERVICE_TOKEN, secret)

Options:
  --help       this text
  --version    the plugin's version

Details: docs/pulumi.md in the svc-iac package.
`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) process.stdout.write(HELP);
else if (args.includes("--version")) process.stdout.write(`${packageVersion()}\n`);
else
  startPlugin(args).catch((e: unknown) => {
    process.stderr.write(`pulumi-resource-svc: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
