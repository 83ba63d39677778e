/**
 * `createClient`: a typed client for every endpoint of the platform API, grouped by area.
 *
 * @example
 * const svc = createClient({ baseUrl: "https://host/server/v1", token: process.env.SVC_TOKEN });
 * for await (const canvas of svc.canvases.listSelf()) console.log(canvas.name);
 */
import { accountApi } from "./account";
import { canvasesApi } from "./canvases";
import { cronjobsApi } from "./cronjobs";
import { datasetsApi } from "./datasets";
import { environmentApi } from "./environment";
import { filesApi } from "./files";
import { insecureHttpAllowed, refuseInsecureHttp } from "./insecure-http";
import { jobsApi } from "./jobs";
import { realtimeApi } from "./realtime";
import { secretsApi } from "./secrets";
import { sessionTokensApi } from "./session-tokens";
import { sharingApi } from "./sharing";
import { Transport, type TransportOptions } from "./transport";
import { udfsApi } from "./udfs";
import { SvcError } from "../errors";

export interface ClientOptions extends TransportOptions {
  /**
   * Allow `http://` to a host other than the loopback, which sends the token unencrypted. Without
   * it, such a `baseUrl` or `udfBaseUrl` throws `InsecureHttpError` before any request.
   * @default false
   */
  allowInsecureHttp?: boolean;
}

/**
 * @throws InsecureHttpError when `baseUrl` or `udfBaseUrl` is plain http to another host and
 * `allowInsecureHttp` is not set.
 */
export function createClient(options: ClientOptions) {
  refuseInsecureHttp(
    [
      { setting: "baseUrl", url: options.baseUrl },
      { setting: "udfBaseUrl", url: options.udfBaseUrl },
    ],
    options.allowInsecureHttp === true,
  );
  const t = new Transport(options);
  return {
    transport: t,
    /** 4.1 */
    sessionTokens: sessionTokensApi(t),
    /** 4.2 */
    secrets: secretsApi(t),
    /** 4.3 */
    cronjobs: cronjobsApi(t),
    /** 4.4 */
    realtime: realtimeApi(t),
    /** 4.5 */
    files: filesApi(t),
    /** 4.6 */
    environment: environmentApi(t),
    /** 4.7 (listing, CRUD, export/import) */
    canvases: canvasesApi(t),
    /** 4.7 sharing, canvas tokens and per-UDF shared tokens */
    sharing: sharingApi(t),
    /** 4.8 */
    jobs: jobsApi(t),
    /** 4.9 */
    udfs: udfsApi(t),
    /** 4.10 */
    account: accountApi(t),
    /** 4.11 */
    datasets: datasetsApi(t),
    /** Closes the connection pool. */
    close: () => t.close(),
  };
}

export type SvcClient = ReturnType<typeof createClient>;

/**
 * A client configured from `SVC_BASE_URL`, `SVC_UDF_BASE_URL`, `SVC_TOKEN` and `SVC_SERVICE_TOKEN`.
 * Throws when `SVC_BASE_URL` or both credentials are missing, and when a URL is plain http to a host
 * other than the loopback without `SVC_ALLOW_INSECURE_HTTP=1`.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ClientOptions> = {}): SvcClient {
  const baseUrl = overrides.baseUrl ?? env.SVC_BASE_URL;
  if (!baseUrl)
    throw new SvcError(
      "no_platform",
      "SVC_BASE_URL is not set. Set it to the platform's base URL, e.g. https://host/server/v1.",
    );
  const token = overrides.token ?? (env.SVC_TOKEN || undefined);
  const serviceToken = overrides.serviceToken ?? (env.SVC_SERVICE_TOKEN || undefined);
  if (!token && !serviceToken)
    throw new SvcError(
      "no_credentials",
      "Neither SVC_TOKEN nor SVC_SERVICE_TOKEN is set. Set one of them to authenticate.",
    );
  const udfBaseUrl = overrides.udfBaseUrl ?? (env.SVC_UDF_BASE_URL || undefined);
  // Checked here, so the refusal names the variables the user set rather than the client's options.
  const allowInsecureHttp = overrides.allowInsecureHttp ?? insecureHttpAllowed(env);
  refuseInsecureHttp(
    [
      { setting: "SVC_BASE_URL", url: baseUrl },
      { setting: "SVC_UDF_BASE_URL", url: udfBaseUrl },
    ],
    allowInsecureHttp,
  );
  return createClient({
    ...overrides,
    allowInsecureHttp: true,
    baseUrl,
    udfBaseUrl,
    token,
    serviceToken,
  });
}
