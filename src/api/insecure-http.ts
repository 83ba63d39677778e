/**
 * The platform URL must not carry the token in clear: plain `http://` is accepted only for the
 * loopback (the emulator, a tunnel on this machine), unless the operator opts in with
 * `SVC_ALLOW_INSECURE_HTTP=1` (a platform on a private network that has no TLS). The refusal names
 * the setting and the URL's origin and path, never the token nor credentials written in the URL.
 */
import { SvcError } from "../errors";

/** The environment variable that allows plain http to a host other than the loopback. */
export const ALLOW_INSECURE_HTTP_ENV = "SVC_ALLOW_INSECURE_HTTP";

/** True when the environment opts in to plain http to other hosts (`SVC_ALLOW_INSECURE_HTTP=1` or `true`). */
export function insecureHttpAllowed(env: Record<string, string | undefined>): boolean {
  return /^(1|true)$/i.test((env[ALLOW_INSECURE_HTTP_ENV] ?? "").trim());
}

/** `localhost`, `127.0.0.0/8` and `::1`: the requests never leave this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A URL a platform setting may name: `setting` is how the user set it (`SVC_BASE_URL`, `svc:baseUrl`, …). */
export interface PlatformUrlSetting {
  setting: string;
  url: string | undefined;
}

/** Thrown before any request when a platform URL is plain http to another host and no opt-in was given. */
export class InsecureHttpError extends SvcError {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super("insecure_http", message);
  }
}

/**
 * Throws {@link InsecureHttpError} for the first setting whose URL is `http://` to a host other than
 * the loopback, unless `allowed`. A URL that does not parse is left to the client, which says what
 * is wrong with it.
 * @example
 * refuseInsecureHttp([{ setting: "SVC_BASE_URL", url: env.SVC_BASE_URL }], insecureHttpAllowed(env));
 */
export function refuseInsecureHttp(settings: readonly PlatformUrlSetting[], allowed: boolean): void {
  if (allowed) return;
  for (const { setting, url } of settings) {
    let parsed: URL;
    try {
      parsed = new URL(url ?? "");
    } catch {
      continue;
    }
    if (parsed.protocol !== "http:" || isLoopbackHost(parsed.hostname)) continue;
    // Shown without user, password, query or fragment: only where the requests would go.
    const shown = `http://${parsed.host}${parsed.pathname}`;
    throw new InsecureHttpError(
      setting,
      `${setting} is ${JSON.stringify(shown)}: plain http to a host other than this machine would send the token unencrypted, so nothing was sent. Use https://, or set ${ALLOW_INSECURE_HTTP_ENV}=1 to allow plain http (only on a network you trust).`,
    );
  }
}
