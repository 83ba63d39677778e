/**
 * The example program (`examples/pulumi`) run through the real Pulumi SDK: `setMocks` stands in
 * for the engine, and forwards every dynamic resource to the real provider host over gRPC, keeping
 * state per URN. Up, up again (no changes), a config change, then destroy, asserting the platform.
 * The program imports the resources as users do, `import * as svc from "svc-iac/pulumi"`, resolved
 * through the package's `exports` map from the program's node_modules.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { ProviderHost, type Props } from "../helpers/provider-host";

const programDir = join(__dirname, "../../examples/pulumi");
const fx = useEmulator();
let host: ProviderHost;

interface Kept {
  urn: string;
  id: string;
  props: Props;
}

/** The engine's part, reduced to what a single-stack `pulumi up` does with dynamic resources. */
class Engine {
  readonly state = new Map<string, Kept>();
  readonly log: string[] = [];
  private seen = new Set<string>();

  mocks(): pulumi.runtime.Mocks {
    return {
      newResource: async (args) => {
        if (!args.type.startsWith("pulumi-nodejs:dynamic")) return { id: `${args.name}-id`, state: args.inputs };
        const urn = `urn:pulumi:dev::svc-listings::${args.type}::${args.name}`;
        this.seen.add(urn);
        const prev = this.state.get(urn);
        const inputs = unwrapSecrets(args.inputs) as Props;
        const checked = await host.check(urn, prev?.props ?? {}, inputs);
        if (checked.failures.length)
          throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
        if (!prev) {
          const c = await host.create(urn, checked.inputs);
          this.state.set(urn, { urn, id: c.id, props: c.properties });
          this.log.push(`create ${args.name}`);
        } else {
          const d = await host.diff(urn, prev.id, prev.props, checked.inputs);
          if (d.changes === "none") this.log.push(`same ${args.name}`);
          else if (d.replaces.length) {
            if (d.deleteBeforeReplace) await host.delete(urn, prev.id, prev.props);
            const c = await host.create(urn, checked.inputs);
            if (!d.deleteBeforeReplace) await host.delete(urn, prev.id, prev.props);
            this.state.set(urn, { urn, id: c.id, props: c.properties });
            this.log.push(`replace ${args.name}`);
          } else {
            const u = await host.update(urn, prev.id, prev.props, checked.inputs);
            this.state.set(urn, { urn, id: prev.id, props: u.properties });
            this.log.push(`update ${args.name}`);
          }
        }
        const kept = this.state.get(urn)!;
        const { __provider: _p, ...outs } = kept.props;
        return { id: kept.id, state: outs };
      },
      call: async () => ({}),
    };
  }

  /** Runs the program once, as `pulumi up` would, and returns its resolved exports. */
  async up(config: Record<string, string> = {}): Promise<Record<string, any>> {
    this.log.length = 0;
    this.seen = new Set();
    await pulumi.runtime.setMocks(this.mocks(), "svc-listings", "dev", false);
    pulumi.runtime.setAllConfig(Object.fromEntries(Object.entries(config).map(([k, v]) => [`svc-listings:${k}`, v])));
    vi.resetModules();
    const program = await import(join(programDir, "index.ts"));
    expect(readFileSync(join(programDir, "index.ts"), "utf8")).toContain('import * as svc from "svc-iac/pulumi";');
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(program)) out[k] = await resolve(v);
    return out;
  }

  /** Deletes everything, dependants first (reverse creation order). */
  async destroy(): Promise<void> {
    for (const kept of [...this.state.values()].reverse()) await host.delete(kept.urn, kept.id, kept.props);
    this.state.clear();
  }
}

/** The engine hands dynamic providers plain values (they do not accept secrets): unwrap them. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
function unwrapSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o[SIG_KEY] === SECRET_SIG) return unwrapSecrets(o.value);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapSecrets(x)]));
  }
  return v;
}

function resolve(v: unknown): Promise<unknown> {
  if (pulumi.Output.isInstance(v)) return new Promise((r) => (v as pulumi.Output<unknown>).apply((x) => r(x)));
  if (v && typeof v === "object") {
    return Promise.all(Object.entries(v).map(async ([k, x]) => [k, await resolve(x)] as const)).then(
      Object.fromEntries,
    );
  }
  return Promise.resolve(v);
}

beforeAll(async () => {
  // What `npm install` in the example folder does: link the package the program depends on.
  const link = join(programDir, "node_modules", "svc-iac");
  if (!existsSync(link)) {
    mkdirSync(join(programDir, "node_modules"), { recursive: true });
    symlinkSync(join(programDir, "../.."), link, "dir");
  }
  host = await ProviderHost.start({ cwd: programDir, env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  // As `pulumi up` does with `pulumi config set svc:baseUrl …` and `--secret svc:token …`.
  await host.configure({
    "svc:baseUrl": fx.emu.baseUrl,
    "svc:udfBaseUrl": fx.emu.udfBaseUrl,
    "svc:token": fx.emu.tokens.user_token,
  });
});
afterAll(async () => host?.stop());

describe("examples/pulumi through the SDK and the real provider host", () => {
  const engine = new Engine();

  it("GIVEN an empty platform WHEN the program runs THEN every resource is created and the exports are useful", async () => {
    const out = await engine.up();
    expect(engine.log.filter((l) => l.startsWith("create"))).toHaveLength(9);
    const canvas = await fx.user.canvases.getById(out.canvasId);
    expect(canvas).toMatchObject({ name: "listings_demo", access_scope: "team", share_client_id: "rt-demo-primary" });
    expect(canvas.udfs.map((u) => u.slug).sort()).toEqual(["loader", "stats"]);
    const loaderBody = JSON.parse(canvas.udfs.find((u) => u.slug === "loader")!.udf_body);
    expect(loaderBody.code).toContain("from utils import price_per_room");
    expect(loaderBody.headers).toEqual([expect.objectContaining({ module_name: "utils", source_file: "utils.py" })]);
    expect(out.shareToken).toBe(canvas.share_token);
    const cron = await fx.user.cronjobs.get(out.cronjobId);
    expect(cron).toMatchObject({
      name: "listings_daily_stats",
      minute: [0],
      hour: [6],
      day_of_week: [1, 2, 3, 4, 5],
      udf: out.udfIds.stats,
    });
    expect((await fx.user.secrets.get("MAPBOX_TOKEN")).value).toBe("pk.example-token");
    expect(typeof out.deployerToken).toBe("string");
    expect((await fx.client({ serviceToken: out.deployerToken }).environment.getSelf()).id).toBe("env-demo");
    expect(typeof out.embedSessionToken).toBe("string");
    expect(JSON.stringify(out.bucketPolicy)).toContain("arn:aws:s3:::demo-bucket");
  });

  it("WHEN the program runs again unchanged THEN nothing changes", async () => {
    await engine.up();
    expect(engine.log.every((l) => l.startsWith("same"))).toBe(true);
    expect(engine.log).toHaveLength(9);
  });

  it("WHEN the share rotation changes THEN the token rotates and the old one stops resolving", async () => {
    const before = [...engine.state.values()].find((k) => k.urn.endsWith("::listings-share"))!.props
      .shareToken as string;
    const out = await engine.up({ shareRotation: "2" });
    expect(engine.log).toContain("update listings-share");
    expect(out.shareToken).not.toBe(before);
    await expect(fx.anon.sharing.getByToken(before)).rejects.toMatchObject({ status: 404 });
  });

  it("WHEN destroyed THEN the platform no longer holds what the program made", async () => {
    const canvasId = [...engine.state.values()].find((k) => k.urn.endsWith("::listings"))!.id;
    await engine.destroy();
    await expect(fx.user.canvases.getById(canvasId)).rejects.toMatchObject({ status: 404 });
    expect((await fx.user.cronjobs.list()).filter((c) => c.name === "listings_daily_stats")).toEqual([]);
    expect(await fx.user.secrets.list()).not.toContain("MAPBOX_TOKEN");
  });
});
