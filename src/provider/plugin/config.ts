/**
 * The provider's configuration: where the platform is and how to sign in. Stack config
 * `svc:baseUrl`, `svc:udfBaseUrl`, `svc:token` (secret), `svc:serviceToken` (secret), or an explicit
 * `new svc.Provider(...)`'s arguments; each unset key falls back to its `SVC_*` environment
 * variable, as the `svc-iac` command reads them.
 */
import { clientFromEnv, type SvcClient } from "../../api/client";
import { insecureHttpAllowed, refuseInsecureHttp } from "../../api/insecure-http";
import type { CheckFailure } from "../../kinds/kind";
import { conceal, reveal, type Props } from "./secrets";
import { SvcError } from "../../errors";

/** Each configuration key and the environment variable it falls back to. */
export const CONFIG_KEYS = {
  baseUrl: "SVC_BASE_URL",
  udfBaseUrl: "SVC_UDF_BASE_URL",
  token: "SVC_TOKEN",
  serviceToken: "SVC_SERVICE_TOKEN",
} as const;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type PluginConfig = Partial<Record<ConfigKey, string>>;

/** Keys kept as secrets whatever the stack says. */
export const SECRET_CONFIG: readonly ConfigKey[] = ["token", "serviceToken"];
/** Keys the engine itself adds to a provider's inputs. */
const ENGINE_KEYS = ["version", "pluginDownloadURL"];
const isConfigKey = (k: string): k is ConfigKey => Object.hasOwn(CONFIG_KEYS, k);

/** `CheckConfig`: every failure at once (unknown keys, non-strings, URLs that are not http(s)); inputs with tokens kept secret. */
export function checkConfig(news: Props): { inputs: Props; failures: CheckFailure[] } {
  const { values } = reveal(news);
  const failures: CheckFailure[] = [];
  for (const [k, v] of Object.entries(values).sort(([a], [b]) => a.localeCompare(b))) {
    if (ENGINE_KEYS.includes(k)) continue;
    if (!isConfigKey(k)) {
      failures.push({
        property: k,
        reason: `Unknown configuration key "svc:${k}". Expected one of ${Object.keys(CONFIG_KEYS)
          .map((c) => `svc:${c}`)
          .join(", ")}.`,
      });
      continue;
    }
    if (typeof v !== "string") {
      const found = SECRET_CONFIG.includes(k) ? "a secret value" : JSON.stringify(v);
      failures.push({ property: k, reason: `Invalid svc:${k} ${found}. svc:${k} is a string.` });
      continue;
    }
    if ((k === "baseUrl" || k === "udfBaseUrl") && !isHttpUrl(v)) {
      failures.push({
        property: k,
        reason: `Invalid svc:${k} ${JSON.stringify(v)}. svc:${k} is an http(s) URL, e.g. "https://host/server/v1".`,
      });
    }
  }
  return { inputs: conceal(news, SECRET_CONFIG), failures };
}

function isHttpUrl(v: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}

/** `DiffConfig`: the keys whose values differ (secrets compared by value, never shown). Nothing replaces. */
export function diffConfig(olds: Props, news: Props): string[] {
  const a = reveal(olds).values;
  const b = reveal(news).values;
  return Object.keys(CONFIG_KEYS).filter((k) => (a[k] ?? null) !== (b[k] ?? null));
}

/**
 * `Configure`'s request as configuration: the structured `args` first (secrets marked), then the
 * `variables` map, keyed `svc:config:<key>` (and `svc:<key>`, as older engines send it).
 */
export function configFromRequest(variables: Record<string, string>, args: Props | undefined): PluginConfig {
  const fromArgs = reveal(args).values;
  const config: PluginConfig = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const v = fromArgs[key] ?? variables[`svc:config:${key}`] ?? variables[`svc:${key}`];
    if (typeof v === "string" && v !== "") config[key] = v;
  }
  return config;
}

/** A client from the configuration, each unset key taken from the environment. */
export function clientFromConfig(config: PluginConfig, env: NodeJS.ProcessEnv = process.env): SvcClient {
  const settings: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(CONFIG_KEYS).map(([k, name]) => [name, config[k as ConfigKey] ?? env[name]]),
  );
  // Named as the user set it: the stack's config key, else the environment variable.
  const named = (k: "baseUrl" | "udfBaseUrl") => (config[k] !== undefined ? `svc:${k}` : CONFIG_KEYS[k]);
  try {
    refuseInsecureHttp(
      [
        { setting: named("baseUrl"), url: settings.SVC_BASE_URL },
        { setting: named("udfBaseUrl"), url: settings.SVC_UDF_BASE_URL },
      ],
      insecureHttpAllowed(env),
    );
    return clientFromEnv(settings, { allowInsecureHttp: true });
  } catch (e) {
    throw new SvcError(
      "no_platform",
      `pulumi-resource-svc: ${(e as Error).message
        .replace("SVC_BASE_URL is not set", "neither svc:baseUrl nor SVC_BASE_URL is set")
        .replace(
          "Neither SVC_TOKEN nor SVC_SERVICE_TOKEN is set",
          "none of svc:token, svc:serviceToken, SVC_TOKEN and SVC_SERVICE_TOKEN is set",
        )}`,
    );
  }
}
