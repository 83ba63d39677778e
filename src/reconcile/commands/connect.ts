/**
 * Where the commands send requests: the platform named by the target's credential variables
 * (`SVC_BASE_URL` and `SVC_TOKEN` or `SVC_SERVICE_TOKEN` by default), or, when the base URL is not
 * set, the embedded emulator started in-process with its state under `<repo>/.svc-iac/local/`: the
 * entry point gives it (`src/embedded-platform.ts`), so the engine never imports the emulator.
 */
import { join, relative, sep } from "node:path";
import { createClient, type SvcClient } from "../../api/client";
import { isApiError } from "../../api/errors";
import { insecureHttpAllowed, refuseInsecureHttp } from "../../api/insecure-http";
import type { TransportOptions } from "../../api/transport";
import { embeddedPlatformStarter } from "../../embedded-platform";
import { SvcError } from "../../errors";
import type { LoadedProject } from "../../model/desired";
import { RepositoryJail } from "../../repository/jail";

export interface Connection {
  client: SvcClient;
  /** True when the embedded emulator serves the requests. */
  embedded: boolean;
  /** For messages: the base URL (never a credential). */
  baseUrl: string;
  /** The shared-UDF host (`{udf_base_url}`), when known. */
  udfBaseUrl?: string;
  close(): Promise<void>;
}

/** Folder of the embedded emulator's state, relative to the repository root. */
export const EMBEDDED_DIR = ".svc-iac/local";

export async function connect(
  project: Pick<LoadedProject, "root" | "settings">,
  env: Record<string, string | undefined>,
  opts: { log?: (line: string) => void; client?: Partial<TransportOptions> } = {},
): Promise<Connection> {
  const names = project.settings.credentials;
  const baseUrl = env[names.baseUrlEnv];
  if (!baseUrl) {
    // Started here, not before: a run against a real platform never loads the emulator.
    const start = embeddedPlatformStarter();
    if (!start)
      throw new SvcError(
        "no_platform",
        `${names.baseUrlEnv} is not set and this program has no embedded emulator: set ${names.baseUrlEnv}, and ${names.tokenEnv} or ${names.serviceTokenEnv}, to reach a platform.`,
      );
    // The data folder is the repository's to point anywhere (a committed `.svc-iac` link): checked
    // part by part through the jail, and created, before the emulator writes a byte of its database
    // or master key there. A link leaving the repository is refused here, naming it.
    const dataDir = RepositoryJail.forProject(project.root).folder(EMBEDDED_DIR, { create: true });
    const emu = await start(dataDir);
    // The folder as the user reaches it from where they ran the command (the repository may be elsewhere).
    const shown = relative(process.cwd(), join(project.root, EMBEDDED_DIR)) || ".";
    opts.log?.(
      `${names.baseUrlEnv} is not set: using the embedded emulator (state under ${shown}${sep}). Set ${names.baseUrlEnv}, and ${names.tokenEnv} or ${names.serviceTokenEnv}, to reach a real platform.`,
    );
    const client = createClient({
      ...opts.client,
      baseUrl: emu.baseUrl,
      udfBaseUrl: emu.udfBaseUrl,
      token: emu.token,
    });
    return {
      client,
      embedded: true,
      baseUrl: emu.baseUrl,
      udfBaseUrl: emu.udfBaseUrl,
      close: async () => {
        await client.close();
        await emu.close();
      },
    };
  }
  const token = env[names.tokenEnv] || undefined;
  const serviceToken = env[names.serviceTokenEnv] || undefined;
  if (!token && !serviceToken) {
    throw new SvcError(
      "no_credentials",
      `${names.baseUrlEnv} is set but neither ${names.tokenEnv} nor ${names.serviceTokenEnv} is: set one of them to authenticate.`,
    );
  }
  const udfBaseUrl = env[names.udfBaseUrlEnv] || undefined;
  // Before any request: the token must not cross a network in clear (named by the target's own variables).
  refuseInsecureHttp(
    [
      { setting: names.baseUrlEnv, url: baseUrl },
      { setting: names.udfBaseUrlEnv, url: udfBaseUrl },
    ],
    insecureHttpAllowed(env),
  );
  // The spec's {base_url} includes the version segment; without it every path answers 404.
  if (!/\/v\d+\/?$/.test(safePath(baseUrl))) {
    opts.log?.(
      `${names.baseUrlEnv} does not end with a version segment such as /v1 (the platform's base URL includes it, e.g. https://host/server/v1): if requests answer 404 Not Found, add it.`,
    );
  }
  const client = createClient({ ...opts.client, allowInsecureHttp: true, baseUrl, udfBaseUrl, token, serviceToken });
  return { client, embedded: false, baseUrl, ...(udfBaseUrl ? { udfBaseUrl } : {}), close: () => client.close() };
}

/** The path of a URL, or the text itself when it is not one (createClient then says what is wrong). */
function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * What to check when the platform answered 401: the variables whose token was sent (a 401 names
 * none, and a target may use other variables than SVC_TOKEN). Empty for any other error.
 */
export function refusedCredentialsHint(
  e: unknown,
  project: Pick<LoadedProject, "settings">,
  env: Record<string, string | undefined>,
): string {
  if (!isApiError(e, "unauthorized")) return "";
  const names = project.settings.credentials;
  const sent = [names.tokenEnv, names.serviceTokenEnv].filter((n) => env[n]);
  if (!sent.length) return "";
  return `\nThe platform at ${names.baseUrlEnv} refused the token in ${sent.join(" and ")}: check that it is current and was issued by that platform.`;
}
