/**
 * The token never crosses a network in clear: a platform URL that is plain http to a host other
 * than the loopback is refused before the first request (command, action, plugin, client), unless
 * SVC_ALLOW_INSECURE_HTTP=1 says otherwise. The refusal names the setting, never the token. The
 * platform here listens on this machine's network address, recording what reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFromEnv, createClient } from "../../src/api/client";
import { isLoopbackHost } from "../../src/api/insecure-http";
import { runAction } from "../../src/github/action";
import * as reconcileCommands from "../../src/reconcile/commands";
import type { CommandResult } from "../../src/reconcile/commands/command-types";
import { destroyCommand } from "../../src/reconcile/commands/destroy";
import { clientFromConfig } from "../../src/provider/plugin/config";
import { copyRepo, FIXTURE_SECRETS } from "../helpers/repo";
import { startPlainHttpListener, type PlainHttpListener } from "../helpers/plain-http-listener";

const TOKEN = "svc_pat_plantedClearTextToken_8d1f";
let platform: PlainHttpListener;
beforeAll(async () => {
  platform = await startPlainHttpListener();
});
afterAll(() => platform.close());

const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");

describe("GIVEN a platform URL that is plain http to this machine's network address", () => {
  it("WHEN plan runs THEN it is refused naming SVC_BASE_URL and the opt-in, nothing reaches the platform, and the token is in no output", async (ctx) => {
    if (!platform.url) return ctx.skip();
    const dir = copyRepo("valid-full");
    const r = await reconcileCommands.planCommand({
      dir,
      env: { ...FIXTURE_SECRETS, SVC_BASE_URL: platform.url, SVC_TOKEN: TOKEN, SVC_CACHE_DIR: "" },
    });
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain(`SVC_BASE_URL is "${platform.url}"`);
    expect(messageOf(r)).toContain("SVC_ALLOW_INSECURE_HTTP=1");
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    expect(platform.seen).toEqual([]);
  });

  it("WHEN the target names its own variables THEN the refusal names those", async (ctx) => {
    if (!platform.url) return ctx.skip();
    const dir = copyRepo("valid-full");
    const r = await reconcileCommands.planCommand({
      dir,
      target: "staging",
      env: {
        ...FIXTURE_SECRETS,
        STAGING_SVC_BASE_URL: platform.url.replace("http://", "http://user:pass-in-url@"),
        STAGING_SVC_TOKEN: TOKEN,
        SVC_CACHE_DIR: "",
      },
    });
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain(`STAGING_SVC_BASE_URL is "${platform.url}"`);
    expect(JSON.stringify(r)).not.toContain("pass-in-url");
    expect(platform.seen).toEqual([]);
  });

  it("WHEN the action runs plan THEN the step fails with the same refusal as an annotation, and the token reaches nobody", async (ctx) => {
    if (!platform.url) return ctx.skip();
    const dir = copyRepo("valid-full");
    let stdout = "";
    const code = await runAction({
      env: {
        ...FIXTURE_SECRETS,
        GITHUB_WORKSPACE: dir,
        INPUT_COMMAND: "plan",
        SVC_BASE_URL: platform.url,
        SVC_TOKEN: TOKEN,
        SVC_CACHE_DIR: "",
      },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => true },
      deps: { commands: { ...reconcileCommands, destroyCommand } },
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/::error .*SVC_BASE_URL is .*plain http.*SVC_ALLOW_INSECURE_HTTP=1/);
    expect(stdout).not.toContain(TOKEN);
    expect(platform.seen).toEqual([]);
  });

  it("WHEN the plugin is configured with svc:baseUrl THEN its client is refused naming svc:baseUrl", (ctx) => {
    if (!platform.url) return ctx.skip();
    expect(() => clientFromConfig({ baseUrl: platform.url, token: TOKEN }, {})).toThrow(
      /svc:baseUrl is ".*": plain http to a host other than this machine/,
    );
    expect(() => clientFromConfig({ token: TOKEN }, { SVC_BASE_URL: platform.url })).toThrow(/SVC_BASE_URL is "/);
    try {
      clientFromConfig({ baseUrl: platform.url, token: TOKEN }, {});
    } catch (e) {
      expect(String(e)).not.toContain(TOKEN);
    }
  });

  it("WHEN a library user creates a client THEN it is refused too, unless allowInsecureHttp", async (ctx) => {
    if (!platform.url) return ctx.skip();
    expect(() => createClient({ baseUrl: platform.url!, token: TOKEN })).toThrow(/baseUrl is "/);
    expect(() =>
      clientFromEnv({ SVC_BASE_URL: "https://ok.example/v1", SVC_UDF_BASE_URL: platform.url, SVC_TOKEN: TOKEN }),
    ).toThrow(/SVC_UDF_BASE_URL is "/);
  });

  it("WHEN SVC_ALLOW_INSECURE_HTTP=1 is set THEN the operator's choice is honoured: the request goes out", async (ctx) => {
    if (!platform.url) return ctx.skip();
    const dir = copyRepo("valid-full");
    const r = await reconcileCommands.planCommand({
      dir,
      env: {
        ...FIXTURE_SECRETS,
        SVC_BASE_URL: platform.url,
        SVC_TOKEN: TOKEN,
        SVC_ALLOW_INSECURE_HTTP: "1",
        SVC_CACHE_DIR: "",
      },
    });
    expect(r.exitCode).toBe(1); // the listener answers 401
    expect(platform.seen.length).toBeGreaterThan(0);
    expect(messageOf(r)).not.toContain(TOKEN);
    platform.seen.length = 0;
  });
});

describe("GIVEN the hosts that are the loopback", () => {
  it("THEN localhost, 127.0.0.0/8 and ::1 are, and nothing else is", () => {
    for (const h of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "[::1]", "::1"])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["localhost.example", "128.0.0.1", "192.0.2.2", "127.0.0.1.nip.io", "[::2]", "0.0.0.0"])
      expect(isLoopbackHost(h)).toBe(false);
  });
});
