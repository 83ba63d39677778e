/**
 * The dynamic provider's implementation, loaded by the stub (`stub.ts`) inside Pulumi's provider
 * host at call time. It maps the engine's calls onto the resource kinds of `src/resources`.
 * Credentials are read at call time: stack config given to `configure` (`svc:baseUrl`,
 * `svc:udfBaseUrl`, `svc:token`, `svc:serviceToken`) or else the `SVC_*` environment variables.
 */
import { clientFromEnv, type SvcClient } from "../api/client";
import { KINDS } from "../resources/registry";
import type { ResourceKind } from "../resources/kind";

const PROVIDER_KEY = "__provider";
/** The engine's placeholder for values not known during preview. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

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
  configured = { baseUrl: read("baseUrl"), udfBaseUrl: read("udfBaseUrl"), token: read("token"), serviceToken: read("serviceToken") };
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
      cached = { signature, client: clientFromEnv(settings) };
    } catch (e) {
      throw new Error(`svc provider: ${(e as Error).message.replace("SVC_BASE_URL is not set", "neither svc:baseUrl nor SVC_BASE_URL is set")}`);
    }
  }
  return cached.client;
}

function kindOf(name: string): ResourceKind<any, any> {
  const k = KINDS[name];
  if (!k) throw new Error(`svc provider: unknown resource kind "${name}". Expected one of ${Object.keys(KINDS).join(", ")}.`);
  return k;
}

function strip(props: Record<string, unknown>): Record<string, unknown> {
  const { [PROVIDER_KEY]: _p, ...rest } = props ?? {};
  return rest;
}

function hasUnknowns(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(hasUnknowns);
  if (v && typeof v === "object") return Object.values(v).some(hasUnknowns);
  return false;
}

export async function check(kind: string, _olds: Record<string, unknown>, news: Record<string, unknown>) {
  const raw = strip(news);
  // During preview, inputs computed from other resources are unknown; validate what is known.
  if (hasUnknowns(raw)) return { inputs: raw, failures: [] };
  const { inputs, failures } = kindOf(kind).check(raw);
  return { inputs: { ...inputs }, failures };
}

export async function diff(kind: string, _id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  const raw = strip(news);
  if (hasUnknowns(raw)) return { changes: true, replaces: [], stables: [], deleteBeforeReplace: false };
  const k = kindOf(kind);
  const { inputs } = k.check(raw);
  const d = k.diff(strip(olds), inputs);
  return { changes: d.changes, replaces: d.replaces, stables: d.stables, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function create(kind: string, inputs: Record<string, unknown>) {
  const k = kindOf(kind);
  const checked = k.check(strip(inputs));
  if (checked.failures.length) throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("\n"));
  const r = await k.create({ client: client() }, checked.inputs);
  return { id: r.id, outs: r.state };
}

export async function read(kind: string, id: string, props: Record<string, unknown>) {
  const state = await kindOf(kind).read({ client: client() }, id, strip(props));
  // An object deleted out of band reads as no properties: the engine then plans a create.
  return state === undefined ? { id: "", props: {} } : { id, props: state };
}

export async function update(kind: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  const k = kindOf(kind);
  const { inputs } = k.check(strip(news));
  return { outs: await k.update({ client: client() }, id, strip(olds), inputs) };
}

export async function remove(kind: string, id: string, props: Record<string, unknown>): Promise<void> {
  await kindOf(kind).delete({ client: client() }, id, strip(props));
}
