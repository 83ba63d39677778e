/**
 * Serves the ResourceProvider gRPC protocol with `@pulumi/pulumi/provider`'s server, and answers
 * itself the calls that server leaves out in 3.270: `CheckConfig` and `DiffConfig` (it answers
 * UNIMPLEMENTED) and `Configure` (it never hands the request's configuration to the provider).
 *
 * The SDK's `main` builds its service object and registers it in one synchronous step, and does
 * not export it; so, for that step only, the registration is intercepted and the service is given
 * with those three handlers on top of it (every other call is the SDK's own).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { SvcClient } from "../../api/client";
import { checkConfig, clientFromConfig, configFromRequest, diffConfig, type PluginConfig } from "./config";
import { pluginProvider } from "./provider";
import { pulumiSchemaText } from "./schema";
import { SvcError } from "../../errors";

type Callback = (err: unknown, value?: unknown) => void;
type Call = { request: any };

/** The package's version: the plugin's, as `GetPluginInfo` reports it. */
export function packageVersion(): string {
  return JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")).version;
}

/** `@pulumi/pulumi/provider`, an optional peer dependency of svc-iac that the plugin needs. */
function loadSdk(): typeof import("@pulumi/pulumi/provider") {
  try {
    return require("@pulumi/pulumi/provider");
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND" ||
      !String((e as Error).message).includes("@pulumi/pulumi/provider")
    )
      throw e;
    throw new SvcError(
      "pulumi_missing",
      "@pulumi/pulumi is not installed beside svc-iac. The plugin serves Pulumi's protocol with it: install it in the same folder, npm install @pulumi/pulumi.",
    );
  }
}

/** Starts the plugin: binds a free port on 127.0.0.1 and prints it as the first line of stdout. */
export async function startPlugin(args: string[]): Promise<void> {
  const sdk = loadSdk();
  const fromSdk = createRequire(require.resolve("@pulumi/pulumi/provider"));
  const grpc = fromSdk("@grpc/grpc-js");
  const structproto = fromSdk("google-protobuf/google/protobuf/struct_pb");
  const provproto = fromSdk("../proto/provider_pb");
  const provrpc = fromSdk("../proto/provider_grpc_pb");

  let config: PluginConfig = {};
  let cached: { config: PluginConfig; client: SvcClient } | undefined;
  const client = () => {
    if (cached?.config !== config) cached = { config, client: clientFromConfig(config) };
    return cached.client;
  };
  const version = packageVersion();
  const provider = pluginProvider({ version, client, getSchema: async () => pulumiSchemaText(version) });

  const failuresOf = (list: { property: string; reason: string }[]) =>
    list.map((f) => {
      const failure = new provproto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    });

  const configHandlers = {
    checkConfig(call: Call, callback: Callback) {
      try {
        const r = checkConfig(call.request.getNews()?.toJavaScript() ?? {});
        const resp = new provproto.CheckResponse();
        resp.setInputs(structproto.Struct.fromJavaScript(r.inputs));
        resp.setFailuresList(failuresOf(r.failures));
        callback(null, resp);
      } catch (e) {
        callback(e);
      }
    },
    diffConfig(call: Call, callback: Callback) {
      try {
        const changed = diffConfig(
          call.request.getOlds()?.toJavaScript() ?? {},
          call.request.getNews()?.toJavaScript() ?? {},
        );
        const resp = new provproto.DiffResponse();
        resp.setChanges(
          changed.length ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE,
        );
        resp.setDiffsList(changed);
        callback(null, resp);
      } catch (e) {
        callback(e);
      }
    },
    configure(call: Call, callback: Callback) {
      try {
        const req = call.request;
        const variables: Record<string, string> = Object.fromEntries(req.getVariablesMap().entries());
        config = configFromRequest(variables, req.hasArgs() ? req.getArgs().toJavaScript() : undefined);
        const resp = new provproto.ConfigureResponse();
        resp.setAcceptsecrets(true);
        // Plain values only: no resource references or output values in the inputs.
        resp.setAcceptresources(false);
        resp.setAcceptoutputs(false);
        resp.setSupportspreview(false);
        callback(null, resp);
      } catch (e) {
        callback(e);
      }
    },
  };

  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (this: unknown, service: unknown, implementation: object) {
    const impl =
      service === provrpc.ResourceProviderService
        ? Object.assign(Object.create(implementation), configHandlers)
        : implementation;
    return addService.call(this, service, impl);
  };
  let serving: Promise<void>;
  try {
    serving = sdk.main(provider, args);
  } finally {
    grpc.Server.prototype.addService = addService;
  }
  await serving;
}
