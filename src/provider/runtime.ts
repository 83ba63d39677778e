/**
 * The dynamic provider's implementation, loaded by the stub (`stub.ts`) inside Pulumi's provider
 * host at call time. It maps the engine's calls onto the resource kinds of `src/kinds`.
 * Credentials are read at call time: stack config given to `configure` (`svc:baseUrl`,
 * `svc:udfBaseUrl`, `svc:token`, `svc:serviceToken`) or else the `SVC_*` environment variables.
 */
import { clientFromEnv, type SvcClient } from "../api/client";
import { insecureHttpAllowed, refuseInsecureHttp } from "../api/insecure-http";
import { checkCall, createCall, deleteCall, diffCall, readCall, updateCall } from "./kind-calls";
import { SvcError } from "../errors";

const PROVIDER_KEY = "__provider";

interface ConfigSource {
  get(key: string): string | undefined;
}

let configured: Record<string, string | undefined> = {};
let cached: { signature: string; client: SvcClient } | undefined;

/** Called once per provider by the host with the stack's configuration. */
export async function configure(req: { config: ConfigSource }): Promise<void> {
  // A host that was never given configuration hands over a config whose reads throw.
  const read = (k: string) => {
    try {
      return req.config.get(`svc:${k}`) ?? undefined;
    } catch {
      return undefined;
    }
  };
  configured = {
    baseUrl: read("baseUrl"),
    udfBaseUrl: read("udfBaseUrl"),
    token: read("token"),
    serviceToken: read("serviceToken"),
  };
}

function client(): SvcClient {
  const env = process.env;
  const settings = {
    SVC_BASE_URL: configured.baseUrl ?? env.SVC_BASE_URL,
    SVC_UDF_BASE_URL: configured.udfBaseUrl ?? env.SVC_UDF_BASE_URL,
    SVC_TOKEN: configured.token ?? env.SVC_TOKEN,
    SVC_SERVICE_TOKEN: configured.serviceToken ?? env.SVC_SERVICE_TOKEN,
  };
  const signature = JSON.stringify(settings);
  if (cached?.signature !== signature) {
    try {
      // Named as the user set it: the stack's config key, else the environment variable.
      refuseInsecureHttp(
        [
          { setting: configured.baseUrl ? "svc:baseUrl" : "SVC_BASE_URL", url: settings.SVC_BASE_URL },
          { setting: configured.udfBaseUrl ? "svc:udfBaseUrl" : "SVC_UDF_BASE_URL", url: settings.SVC_UDF_BASE_URL },
        ],
        insecureHttpAllowed(env),
      );
      cached = { signature, client: clientFromEnv(settings, { allowInsecureHttp: true }) };
    } catch (e) {
      throw new SvcError(
        "no_platform",
        `svc provider: ${(e as Error).message.replace("SVC_BASE_URL is not set", "neither svc:baseUrl nor SVC_BASE_URL is set")}`,
      );
    }
  }
  return cached.client;
}

function strip(props: Record<string, unknown>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _p, ...rest } = props ?? {};
  return rest;
}

export async function check(kind: string, _olds: Record<string, unknown>, news: Record<string, unknown>) {
  // During preview, inputs computed from other resources are unknown; validate what is known.
  return checkCall(kind, strip(news));
}

export async function diff(kind: string, _id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  return diffCall(kind, strip(olds), strip(news));
}

export async function create(kind: string, inputs: Record<string, unknown>) {
  return createCall(client(), kind, strip(inputs));
}

export async function read(kind: string, id: string, props: Record<string, unknown>) {
  const state = await readCall(client(), kind, id, strip(props));
  // An object deleted out of band reads as no properties: the engine then plans a create.
  return state === undefined ? { id: "", props: {} } : { id, props: state };
}

export async function update(kind: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  return { outs: await updateCall(client(), kind, id, strip(olds), strip(news)) };
}

export async function remove(kind: string, id: string, props: Record<string, unknown>): Promise<void> {
  await deleteCall(client(), kind, id, strip(props));
}
