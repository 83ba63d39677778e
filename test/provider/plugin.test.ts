/**
 * The provider plugin `pulumi-resource-svc` as the engine starts and configures it: its port on the
 * first stdout line, its version, its configuration (`CheckConfig`, `DiffConfig`, `Configure` with
 * variables or args, the `SVC_*` fallbacks), and the errors a user sees when something is wrong.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { ProviderHost, isWireSecret, pluginScript, secret } from "../helpers/provider-host";

const fx = useEmulator();
const ROOT = join(__dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const noEnv = {
  SVC_BASE_URL: undefined,
  SVC_TOKEN: undefined,
  SVC_SERVICE_TOKEN: undefined,
  SVC_UDF_BASE_URL: undefined,
};
const PROVIDER_URN = "urn:pulumi:dev::proj::pulumi:providers:svc::default";
const canvasUrn = (name: string) => `urn:pulumi:dev::proj::svc:index:Canvas::${name}`;
const hosts: ProviderHost[] = [];
const started = async (env: Record<string, string | undefined> = noEnv) => {
  const h = await ProviderHost.startPlugin({ env });
  hosts.push(h);
  return h;
};
// One plugin for the tests below (each Configure replaces the configuration); another for the environment.
let host: ProviderHost;
beforeAll(async () => {
  host = await started();
});
afterAll(async () => Promise.all(hosts.map((h) => h.stop())));

describe("pulumi-resource-svc, started as the engine starts a plugin", () => {
  it("is the package's bin entry, and prints its port as the first stdout line with nothing before it", async () => {
    expect(pkg.bin["pulumi-resource-svc"]).toBe("dist/provider/plugin/main.js");
    expect(readFileSync(pluginScript, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const child = spawn(process.execPath, [pluginScript, "127.0.0.1:1"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout }).once("line", resolve),
      );
      expect(first).toMatch(/^\d{2,5}$/);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it.each([
    [
      "--help",
      /^pulumi-resource-svc: the Pulumi provider plugin of package "svc"[\s\S]*plugins\.providers[\s\S]*svc:baseUrl/,
    ],
    ["--version", new RegExp(`^${pkg.version.replace(/\./g, "\\.")}\n$`)],
  ])("run by a person with %s, answers on stdout and exits 0 (no port, no server left running)", (flag, shown) => {
    const r = spawnSync(process.execPath, [pluginScript, flag], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
    expect({ code: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ code: 0, signal: null, stderr: "" });
    expect(r.stdout).toMatch(shown);
  });

  it("without @pulumi/pulumi installed beside it, exits 1 saying what to install, and prints nothing on stdout", () => {
    // GIVEN the package installed without its optional peer dependency
    const app = mkdtempSync(join(tmpdir(), "svc-no-pulumi-"));
    try {
      mkdirSync(join(app, "node_modules"));
      for (const name of readdirSync(join(ROOT, "node_modules"))) {
        if (name !== "@pulumi" && !name.startsWith("."))
          symlinkSync(realpathSync(join(ROOT, "node_modules", name)), join(app, "node_modules", name));
      }
      cpSync(join(ROOT, "dist"), join(app, "dist"), { recursive: true });
      cpSync(join(ROOT, "package.json"), join(app, "package.json"));
      const r = spawnSync(process.execPath, [join(app, "dist/provider/plugin/main.js"), "127.0.0.1:1"], {
        cwd: app,
        encoding: "utf8",
      });
      expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
      expect(r.stderr).toContain("@pulumi/pulumi is not installed beside svc-iac");
      expect(r.stderr).toContain("npm install @pulumi/pulumi");
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it("answers GetSchema with the package schema of its version: all 8 resources, the document shipped in schemas/pulumi/schema.json", async () => {
    const schema = JSON.parse(await host.getSchema());
    expect(Object.keys(schema.resources).sort()).toEqual(
      ["BucketPolicy", "Canvas", "CanvasShare", "Cronjob", "Secret", "ServiceAccount", "SessionToken", "Udf"].map(
        (k) => `svc:index:${k}`,
      ),
    );
    expect(schema).toMatchObject({ name: "svc", version: pkg.version });
    expect(schema).toEqual(JSON.parse(readFileSync(join(ROOT, "schemas/pulumi/schema.json"), "utf8")));
  });

  it("reports the package's version", async () => {
    expect(await host.getPluginInfo()).toEqual({ version: pkg.version });
  });
});

describe("configuration", () => {
  it("CheckConfig reports every bad key at once, and keeps the token secret", async () => {
    const bad = await host.checkConfig(
      PROVIDER_URN,
      {},
      { baseUrl: "ftp://host", token: 42, colour: "blue", version: "0.1.0" },
    );
    expect(bad.failures).toEqual([
      {
        property: "baseUrl",
        reason: 'Invalid svc:baseUrl "ftp://host". svc:baseUrl is an http(s) URL, e.g. "https://host/server/v1".',
      },
      {
        property: "colour",
        reason:
          'Unknown configuration key "svc:colour". Expected one of svc:baseUrl, svc:udfBaseUrl, svc:token, svc:serviceToken.',
      },
      { property: "token", reason: "Invalid svc:token a secret value. svc:token is a string." },
    ]);
    const good = await host.checkConfig(PROVIDER_URN, {}, { baseUrl: fx.emu.baseUrl, token: "plain-token-value" });
    expect(good.failures).toEqual([]);
    expect(good.inputs.baseUrl).toBe(fx.emu.baseUrl);
    expect(isWireSecret(good.inputs.token)).toBe(true);
  });

  it("DiffConfig names the keys that changed, secrets compared by value, and replaces nothing", async () => {
    const olds = { baseUrl: "https://a/v1", token: secret("one") };
    expect(await host.diffConfig(PROVIDER_URN, olds, { baseUrl: "https://a/v1", token: secret("one") })).toEqual({
      changes: "none",
      diffs: [],
      replaces: [],
    });
    expect(await host.diffConfig(PROVIDER_URN, olds, { baseUrl: "https://b/v1", token: secret("two") })).toEqual({
      changes: "some",
      diffs: ["baseUrl", "token"],
      replaces: [],
    });
  });

  it("Configure takes the stack's args (the token secret), accepts secrets, and the calls then reach the platform", async () => {
    const accepted = await host.configureWith({}, { baseUrl: fx.emu.baseUrl, token: secret(fx.emu.tokens.user_token) });
    expect(accepted).toEqual({ acceptSecrets: true, acceptResources: false, supportsPreview: false });
    const made = await fx.user.canvases.create({ name: "plugin_args" });
    expect((await host.importRead(canvasUrn("a"), made.id)).properties).toMatchObject({ name: "plugin_args" });
  });

  it("Configure takes the svc:config:* variables when no args are sent", async () => {
    await host.configureWith({ "svc:config:baseUrl": fx.emu.baseUrl, "svc:config:token": fx.emu.tokens.user_token });
    const made = await fx.user.canvases.create({ name: "plugin_vars" });
    expect((await host.importRead(canvasUrn("v"), made.id)).properties).toMatchObject({ name: "plugin_vars" });
  });

  it("falls back to the SVC_* environment variables for what the stack does not set", async () => {
    const host = await started({ ...noEnv, SVC_BASE_URL: fx.emu.baseUrl, SVC_TOKEN: fx.emu.tokens.user_token });
    await host.configureWith({});
    const made = await fx.user.canvases.create({ name: "plugin_env" });
    expect((await host.importRead(canvasUrn("e"), made.id)).properties).toMatchObject({ name: "plugin_env" });
  });

  it("without a base URL, a call fails saying which setting is missing, and never shows the token", async () => {
    await host.configureWith({ "svc:config:token": "token-value-never-shown" });
    const err = await host.create(canvasUrn("x"), { name: "never_made" }).catch((e: Error) => e);
    expect(String(err)).toMatch(/neither svc:baseUrl nor SVC_BASE_URL is set/);
    expect(String(err) + host.stderr).not.toContain("token-value-never-shown");
  });

  it("a type outside the package is refused, naming the package's types", async () => {
    const err = await host.check("urn:pulumi:dev::proj::svc:index:Nope::x", {}, {}).catch((e: Error) => e);
    expect(String(err)).toMatch(
      /unknown resource type "svc:index:Nope". Expected one of svc:index:Canvas, svc:index:Udf/,
    );
  });
});
