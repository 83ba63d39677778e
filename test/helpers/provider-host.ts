/**
 * Drives a Pulumi resource provider over gRPC, as the engine does: the real dynamic-provider host
 * (`@pulumi/pulumi/cmd/dynamic-provider`, whose calls carry the serialized provider in
 * `__provider`), or this package's provider plugin `pulumi-resource-svc` (`startPlugin`). Either
 * is spawned, prints its port, and serves `pulumirpc.ResourceProvider`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

const projectRoot = join(__dirname, "../..");
const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [projectRoot] }));
const fromPulumi = createRequire(join(pulumiDir, "index.js"));
const grpc = fromPulumi("@grpc/grpc-js");
const structproto = fromPulumi("google-protobuf/google/protobuf/struct_pb");
const provproto = fromPulumi("./proto/provider_pb");
const provrpc = fromPulumi("./proto/provider_grpc_pb");
const emptyproto = fromPulumi("google-protobuf/google/protobuf/empty_pb");

/** The key and value marking a secret on the wire (when the provider accepts secrets). */
export const SECRET_SIG = {
  key: "4dabf18193072939515e22adb298388d",
  value: "1b47061264138c4ac30d75fd1eb44270",
} as const;
/** `value` as the engine sends a secret. */
export const secret = (value: unknown) => ({ [SECRET_SIG.key]: SECRET_SIG.value, value });
/** True when `v` is a secret on the wire. */
export const isWireSecret = (v: unknown): v is { value: unknown } =>
  !!v && typeof v === "object" && (v as Props)[SECRET_SIG.key] === SECRET_SIG.value;
/** `props` with every secret replaced by its value. */
export function revealed(props: Props): Props {
  const open = (v: unknown): unknown =>
    isWireSecret(v)
      ? open(v.value)
      : Array.isArray(v)
        ? v.map(open)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, open(x)]))
          : v;
  return open(props) as Props;
}
/** The built plugin, as the package's `bin` entry `pulumi-resource-svc` runs it. */
export const pluginScript = join(projectRoot, "dist/provider/plugin/main.js");

export type Props = Record<string, unknown>;

let folder: string | undefined;
/**
 * A folder laid out like a user's Pulumi program: `node_modules/svc-iac` is this package (as
 * `npm install` of a local path links it). `pulumi up` runs the host with the program's folder
 * as working directory, which is where `require("svc-iac/provider-runtime")` resolves from.
 */
export function programFolder(): string {
  if (folder) return folder;
  folder = mkdtempSync(join(tmpdir(), "svc-program-"));
  mkdirSync(join(folder, "node_modules"));
  symlinkSync(projectRoot, join(folder, "node_modules", "svc-iac"), "dir");
  process.once("exit", () => rmSync(folder!, { recursive: true, force: true }));
  return folder;
}

export interface HostOptions {
  /** Working directory of the host: where `require("svc-iac/…")` resolves from. @default {@link programFolder} */
  cwd?: string;
  env?: Record<string, string | undefined>;
}

export class ProviderHost {
  stderr = "";
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
  ) {}

  static async start(opts: HostOptions = {}): Promise<ProviderHost> {
    return ProviderHost.spawn(join(pulumiDir, "cmd/dynamic-provider/index.js"), opts);
  }

  /** Starts the provider plugin `pulumi-resource-svc` (built, in `dist/`) as the engine does. */
  static async startPlugin(opts: HostOptions = {}): Promise<ProviderHost> {
    return ProviderHost.spawn(pluginScript, { cwd: projectRoot, ...opts });
  }

  /** The first stdout line of the process (its port), and everything it printed before it. */
  private static async spawn(script: string, opts: HostOptions): Promise<ProviderHost> {
    const child = spawn(process.execPath, [script, "127.0.0.1:1"], {
      cwd: opts.cwd ?? programFolder(),
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const port = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", (l) => resolve(l));
      child.once("exit", (code) => reject(new Error(`provider host exited ${code}: ${stderr}`)));
    });
    if (!/^\d+$/.test(port)) throw new Error(`the provider's first stdout line is not a port: ${JSON.stringify(port)}`);
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const host = new ProviderHost(child, client);
    host.stderr = stderr;
    child.stderr!.on("data", (d) => (host.stderr += d));
    return host;
  }

  private call<T>(method: string, req: unknown): Promise<T> {
    return new Promise((resolve, reject) =>
      this.client[method](req, (err: any, res: T) =>
        err ? reject(new HostError(err.details ?? err.message, err.code)) : resolve(res),
      ),
    );
  }

  /** `Configure` with stack config such as `svc:baseUrl` (values as strings, as the engine sends them). */
  async configure(variables: Record<string, string>): Promise<void> {
    const req = new provproto.ConfigureRequest();
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(variables)) vars.set(k, v);
    req.setArgs(structproto.Struct.fromJavaScript(variables));
    await this.call("configure", req);
  }

  /** `Configure` as the engine sends it: the `variables` map (`svc:config:<key>`) and the structured `args` (secrets wrapped). */
  async configureWith(
    variables: Record<string, string>,
    args?: Props,
  ): Promise<{ acceptSecrets: boolean; acceptResources: boolean; supportsPreview: boolean }> {
    const req = new provproto.ConfigureRequest();
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(variables)) vars.set(k, v);
    if (args) req.setArgs(structproto.Struct.fromJavaScript(args));
    req.setAcceptsecrets(true);
    const res = await this.call<any>("configure", req);
    return {
      acceptSecrets: res.getAcceptsecrets(),
      acceptResources: res.getAcceptresources(),
      supportsPreview: res.getSupportspreview(),
    };
  }

  async checkConfig(
    urn: string,
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(structproto.Struct.fromJavaScript(olds));
    req.setNews(structproto.Struct.fromJavaScript(news));
    const res = await this.call<any>("checkConfig", req);
    return {
      inputs: res.getInputs().toJavaScript(),
      failures: res.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diffConfig(
    urn: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: "some" | "none" | "unknown"; diffs: string[]; replaces: string[] }> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setOlds(structproto.Struct.fromJavaScript(olds));
    req.setNews(structproto.Struct.fromJavaScript(news));
    const res = await this.call<any>("diffConfig", req);
    const C = provproto.DiffResponse.DiffChanges;
    const c = res.getChanges();
    return {
      changes: c === C.DIFF_SOME ? "some" : c === C.DIFF_NONE ? "none" : "unknown",
      diffs: res.getDiffsList(),
      replaces: res.getReplacesList(),
    };
  }

  async getSchema(): Promise<string> {
    const req = new provproto.GetSchemaRequest();
    return (await this.call<any>("getSchema", req)).getSchema();
  }

  async getPluginInfo(): Promise<{ version: string }> {
    return { version: (await this.call<any>("getPluginInfo", new emptyproto.Empty())).getVersion() };
  }

  /**
   * `Read` as `pulumi import` sends it: the id, and empty state and inputs. Returns the outputs and
   * the inputs the provider says declare the object (empty id when it does not exist).
   */
  async importRead(urn: string, id: string): Promise<{ id: string; properties: Props; inputs: Props | undefined }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(structproto.Struct.fromJavaScript({}));
    req.setInputs(structproto.Struct.fromJavaScript({}));
    const res = await this.call<any>("read", req);
    return {
      id: res.getId(),
      properties: res.getProperties()?.toJavaScript() ?? {},
      inputs: res.getInputs()?.toJavaScript(),
    };
  }

  async check(
    urn: string,
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(structproto.Struct.fromJavaScript(olds));
    req.setNews(structproto.Struct.fromJavaScript(news));
    const res = await this.call<any>("check", req);
    return {
      inputs: res.getInputs().toJavaScript(),
      failures: res.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
  ): Promise<{ changes: "some" | "none" | "unknown"; replaces: string[]; deleteBeforeReplace: boolean }> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(structproto.Struct.fromJavaScript(olds));
    req.setNews(structproto.Struct.fromJavaScript(news));
    const res = await this.call<any>("diff", req);
    const C = provproto.DiffResponse.DiffChanges;
    const c = res.getChanges();
    return {
      changes: c === C.DIFF_SOME ? "some" : c === C.DIFF_NONE ? "none" : "unknown",
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  async create(urn: string, properties: Props): Promise<{ id: string; properties: Props }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(structproto.Struct.fromJavaScript(properties));
    const res = await this.call<any>("create", req);
    return { id: res.getId(), properties: res.getProperties().toJavaScript() };
  }

  async read(urn: string, id: string, properties: Props): Promise<{ id: string; properties: Props }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(structproto.Struct.fromJavaScript(properties));
    const res = await this.call<any>("read", req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  /**
   * `Read` of an object the stack holds no state for: an id, no prior properties, and only the
   * program's inputs (with `__provider`), as the engine sends for a resource read by id
   * (`{ id }` resource option / `Resource.get`). Returns the outputs (empty when not found).
   */
  async readById(urn: string, id: string, inputs: Props): Promise<{ id: string; properties: Props }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setInputs(structproto.Struct.fromJavaScript(inputs));
    const res = await this.call<any>("read", req);
    return { id: res.getId(), properties: res.getProperties()?.toJavaScript() ?? {} };
  }

  async update(urn: string, id: string, olds: Props, news: Props): Promise<{ properties: Props }> {
    const req = new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(structproto.Struct.fromJavaScript(olds));
    req.setNews(structproto.Struct.fromJavaScript(news));
    const res = await this.call<any>("update", req);
    return { properties: res.getProperties().toJavaScript() };
  }

  async delete(urn: string, id: string, properties: Props): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(structproto.Struct.fromJavaScript(properties));
    await this.call("delete", req);
  }

  async stop(): Promise<void> {
    this.client.close();
    this.child.kill("SIGTERM");
    await new Promise((r) => (this.child.exitCode !== null ? r(null) : this.child.once("exit", r)));
  }
}

/** A failure the host reported (gRPC status with the provider's message in `details`). */
export class HostError extends Error {
  constructor(
    message: string,
    readonly grpcCode: number,
  ) {
    super(message);
  }
}

/** Serializes a dynamic provider exactly as the SDK does for `__provider`. */
export async function serializeProvider(provider: object): Promise<string> {
  const pulumi = fromPulumi("./index.js");
  const r = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return r.text;
}
