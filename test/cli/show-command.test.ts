/**
 * `svc-iac show`: what a target deployed, from a fresh read of the emulator (default) or the
 * inventory alone (--offline): ids, declarations, references, URLs with tokens as placeholders,
 * outputs, secrets as present/absent and drift. Every output is searched for the real token and
 * secret values.
 */
import { runCaptured } from "../helpers/cli-run";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { runShowCommand } from "../../src/cli/show-command";
import type { ShowReport } from "../../src/reconcile/deployed/show-report";
import { useEmulator } from "../helpers/emulator";
import { join, relative } from "node:path";
import { appliedRepo, builtCli, copyRepo, emulatorEnv, FIXTURE_SECRETS, outputsFileOf } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

const exec = promisify(execFile);

const show = (argv: string[], env: Record<string, string>) => runCaptured(runShowCommand, argv, env);

describe("GIVEN the valid-full repository applied (a shared canvas with a passcode, a UDF with its own shared token, a service account)", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;
  const printed: string[] = [];
  const cli = async (...argv: string[]) => {
    const r = await show(argv, env);
    printed.push(r.stdout, r.stderr);
    return r;
  };
  const json = async (...argv: string[]) => {
    const r = await cli(...argv, "--json");
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as ShowReport;
  };

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    env = emulatorEnv(fx.emu);
  });

  it("WHEN show runs THEN every inventory object is listed with its id, declaration, references, outputs and secrets as present, in sync", async () => {
    const r = await json(dir);
    expect(r).toMatchObject({
      project: "listings",
      target: "default",
      read: "platform",
      drift: false,
      pending: [],
      unmanaged: [],
    });
    expect(r.objects.map((o) => o.address)).toContain("udf.listings/loader");
    expect(r.objects).toHaveLength(13);
    const by = new Map(r.objects.map((o) => [o.address, o]));
    const canvas = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "listings")!;
    expect(by.get("canvas.listings")).toMatchObject({
      id: canvas.id,
      declared: "canvases/listings/canvas.yaml:1",
      status: "in sync",
      secrets: { passcode: "present" },
      outputs: { name: "listings", accessScope: "public" },
    });
    expect(by.get("udf.listings/loader")).toMatchObject({
      references: ["canvas.listings"],
      declared: "canvases/listings/loader.py:1",
      secrets: { sharedToken: "present" },
    });
    expect(by.get("cronjob.daily-stats")).toMatchObject({ references: ["udf.listings/stats"] });
    expect(by.get("secret.MAPBOX_TOKEN")!.secrets).toEqual({ value: "present" });
    // Shown only in its create answer, and minted by the apply: present.
    expect(by.get("service_account.reader")!.secrets).toEqual({ token: "present" });
    for (const o of r.objects) expect(o.status).toBe("in sync");
  });

  it("WHEN show runs THEN the shared canvas's URLs and its UDFs' shared URLs are listed with the share token as a placeholder", async () => {
    const r = await json(dir);
    const by = new Map(r.objects.map((o) => [o.address, o]));
    const base = fx.emu.udfBaseUrl.replace(/\/+$/, "");
    expect(by.get("share.listings")!.urls).toEqual([
      { name: "canvas page", url: `${base}/<share token>.api` },
      { name: "OpenAPI document", url: `${base}/<share token>.api.json` },
    ]);
    expect(by.get("share.listings")!.secrets).toEqual({ shareToken: "present" });
    expect(by.get("udf.listings/stats")!.urls).toEqual([{ name: "shared URL", url: `${base}/<share token>/stats` }]);
    expect(by.get("udf.listings/loader")!.urls).toContainEqual({
      name: "own shared URL",
      url: `${base}/<shared token>`,
    });
    expect(by.get("udf.reports/weekly")!.urls).toEqual([]);
  });

  it("WHEN addresses are given THEN only those are shown; one that matches nothing exits 1 naming it", async () => {
    const r = await json(dir, "udf.listings/*");
    expect(r.objects.map((o) => o.address)).toEqual(["udf.listings/loader", "udf.listings/stats"]);
    const none = await cli(dir, "canvas.nowhere");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      "canvas.nowhere matches no object in the repository or the inventory of listings (default).",
    );
  });

  it("WHEN the address comes before the folder (as run takes them) THEN show reads that folder and shows that object", async () => {
    const r = await json("udf.listings/stats", dir);
    expect(r.objects.map((o) => o.address)).toEqual(["udf.listings/stats"]);
  });

  it("WHEN show runs with --offline and no platform credentials THEN it reads the inventory alone and says so, secrets from what the inventory keeps", async () => {
    const offline = { ...FIXTURE_SECRETS, ...minimalEnv() };
    const r = await show([dir, "--offline", "--json"], offline);
    printed.push(r.stdout, r.stderr);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ShowReport;
    expect(report).toMatchObject({ read: "inventory", drift: null });
    expect(report.objects).toHaveLength(13);
    const by = new Map(report.objects.map((o) => [o.address, o]));
    expect(by.get("share.listings")).toMatchObject({ status: "not read", secrets: { shareToken: "present" } });
    expect(by.get("share.listings")!.urls[0]!.url).toBe("{udf_base_url}/<share token>.api");
    expect(by.get("udf.listings/stats")).toMatchObject({
      references: ["canvas.listings"],
      declared: "canvases/listings/stats.py:1",
    });
    // No emulator was started: nothing said about one.
    expect(r.stderr).toBe("");
    const text = await show([dir, "--offline"], offline);
    printed.push(text.stdout);
    expect(text.stdout).toMatch(
      /^listings \(default\): 13 deployed objects, from the inventory alone \(--offline; the platform was not read\)\.\n/,
    );
  });

  it("WHEN a UDF is edited and a cronjob deleted on the platform by hand THEN show says what drifted, and the text shows it", async () => {
    const canvas = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "listings")!;
    const stats = (await fx.user.udfs.listExecEnv().toArray()).find(
      (u) => u.collection_id === canvas.id && u.slug === "stats",
    )!;
    const body = JSON.parse(stats.udf_body) as { code: string };
    await fx.user.udfs.update(stats.id, { udf_body: JSON.stringify({ ...body, code: body.code.replace("42", "43") }) });
    const cron = (await fx.user.cronjobs.list()).find((c) => c.name === "daily-stats")!;
    await fx.user.cronjobs.delete(cron.id);
    const r = await json(dir);
    expect(r.drift).toBe(true);
    const by = new Map(r.objects.map((o) => [o.address, o]));
    expect(by.get("udf.listings/stats")).toMatchObject({ status: "changed", changed_fields: ["code"] });
    expect(by.get("cronjob.daily-stats")!.status).toBe("missing");
    const text = await cli(dir);
    expect(text.stdout).toContain("2 drifted.");
    expect(text.stdout).toMatch(
      /udf\.listings\/stats \(Udf, id [^)]+\)\n {2}declared +canvases\/listings\/stats\.py:1\n {2}status +drifted: changed on the platform: code\n {2}refers to +canvas\.listings\n {2}shared URL +http:\/\/[^\n]+\/<share token>\/stats\n/,
    );
    expect(text.stdout).toContain("drifted: missing, deleted on the platform out of band");
  });

  it("WHEN show is called through the built CLI THEN it prints the same report", async () => {
    const { stdout } = await exec(process.execPath, [builtCli(), "show", dir, "share.listings", "--json"], {
      env: { ...minimalEnv(), ...env },
    });
    printed.push(stdout);
    expect((JSON.parse(stdout) as ShowReport).objects.map((o) => o.address)).toEqual(["share.listings"]);
  });

  it("THEN no output holds a token or secret value: share token, per-UDF token, service-account tokens, passcode, secret value, credentials", async () => {
    const canvas = (await fx.user.canvases.listExecEnv()).find((c) => c.name === "listings")!;
    const outputs = JSON.parse(readFileSync(outputsFileOf(dir), "utf8")) as {
      tokens: Record<string, { token: string }>;
    };
    const values = [
      canvas.share_token!,
      encodeURIComponent(canvas.share_token!),
      ...Object.values(outputs.tokens).map((t) => t.token),
      ...Object.values(FIXTURE_SECRETS),
      fx.emu.tokens.user_token,
    ];
    expect(values.length).toBeGreaterThanOrEqual(6);
    for (const v of values) expect(v.length).toBeGreaterThan(6);
    for (const text of printed) for (const v of values) expect(text).not.toContain(v);
  });
});

describe("GIVEN a repository with a shared canvas applied on the embedded emulator (no SVC_BASE_URL)", () => {
  // The embedded emulator is loaded from dist/: the built command, as a user runs it.
  let dir: string;
  const env = {
    ...minimalEnv(),
    HOME: process.env.HOME ?? "",
    SVC_CACHE_DIR: "",
    ...FIXTURE_SECRETS,
  };
  const cli = (...argv: string[]) => exec(process.execPath, [builtCli(), ...argv], { env, cwd: process.cwd() });
  beforeAll(async () => {
    dir = copyRepo("valid-full");
    await cli("apply", dir, "--auto-approve", "--discard-tokens");
  }, 120_000);

  it("WHEN show runs THEN it prints no URL of the emulator that stopped with it, and says how to serve them", async () => {
    const r = await cli("show", dir);
    expect(r.stdout).not.toMatch(/http:\/\/127\.0\.0\.1/);
    expect(r.stdout).toContain("{udf_base_url}/<share token>.api");
    expect(r.stderr).toContain(
      `The URLs show {udf_base_url}: the embedded emulator that served them stopped with this command. To open them, serve the same state with svc-iac emulator --data-dir ${relative(process.cwd(), join(dir, ".svc-iac/local"))} and use its udf_base_url.`,
    );
  }, 120_000);
});
