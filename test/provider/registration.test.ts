/**
 * How every svc resource registers with the Pulumi SDK: its type token, the provider stub it
 * carries in `__provider`, the source position the engine records, and the stacks the SDK
 * captures while it is declared. Programs run through the real SDK under `setMocks`, with the
 * monitor's RegisterResource calls recorded as the engine receives them. The stub is then run by
 * the real dynamic-provider host over gRPC, next to the closure-serialized stub that stacks made
 * by earlier versions hold in their state.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { ProviderHost } from "../helpers/provider-host";

// The resources are loaded from the built package, as a user's program loads them.
const svc = require("../../dist/provider/index.js");
const { providerText } = require("../../dist/provider/stub");
const { quietStacks } = require("../../dist/provider/registration");
const settings = require("@pulumi/pulumi/runtime/settings");

interface Registration {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  sourceUri: string | undefined;
  secretOutputs: string[];
}

let registrations: Registration[];

/** A fresh mocked engine that records every registration with the fields the engine reads. */
beforeEach(async () => {
  registrations = [];
  await pulumi.runtime.setMocks(
    { newResource: async (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: async () => ({}) },
    "proj",
    "dev",
    false,
  );
  const monitor = settings.getMonitor();
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req: any, callback: unknown) => {
    registrations.push({
      type: req.getType(),
      name: req.getName(),
      inputs: req.getObject().toJavaScript(),
      sourceUri: req.getSourceposition()?.getUri(),
      secretOutputs: req.getAdditionalsecretoutputsList(),
    });
    return register(req, callback);
  };
});

const settled = () => pulumi.runtime.disconnect();
const outputValue = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

function declareOneOfEach(): void {
  const canvas = new svc.Canvas("c", { name: "reports", passcode: "hunter2" });
  const udf = new svc.Udf("u", { canvasId: canvas.id, slug: "daily", code: "def udf():\n    return 1\n" });
  const share = new svc.CanvasShare("s", { canvasId: canvas.id });
  new svc.SessionToken("t", { canvasToken: share.shareToken });
  new svc.Cronjob("j", { name: "nightly", schedule: "0 2 * * *", udfId: udf.id });
  new svc.Secret("k", { key: "api_key", value: "v" });
  new svc.ServiceAccount("a", { name: "deployer" });
  new svc.BucketPolicy("b", { bucketName: "exports" });
}

describe("registering svc resources", () => {
  it("GIVEN one resource of each kind THEN each registers under the type token stacks already hold, carrying its kind's stub", async () => {
    declareOneOfEach();
    await settled();
    const kinds = [
      "Canvas",
      "Udf",
      "CanvasShare",
      "SessionToken",
      "Cronjob",
      "Secret",
      "ServiceAccount",
      "BucketPolicy",
    ];
    const byKind = new Map(registrations.map((r) => [r.type.replace("pulumi-nodejs:dynamic/svc:", ""), r]));
    expect([...byKind.keys()].sort()).toEqual([...kinds].sort());
    expect(registrations).toHaveLength(kinds.length);
    for (const kind of kinds) {
      const stub = byKind.get(kind)!.inputs.__provider as string;
      expect(stub).toBe(providerText(kind));
      expect(stub).toContain(`const kind = "${kind}";`);
      expect(stub).toContain('require("svc-iac/provider-runtime")');
      for (const other of kinds.filter((k) => k !== kind)) expect(stub).not.toContain(`"${other}"`);
    }
  });

  it("THEN the engine records the program's own line as each resource's source position, not a line of svc-iac", async () => {
    // The SDK reads positions from named frames only, as a program's functions are.
    function declareReports() {
      return new svc.Canvas("c", { name: "reports" });
    }
    declareReports();
    await settled();
    expect(registrations[0].sourceUri).toMatch(/^file:.*\/test\/provider\/registration\.test\.ts$/);
  });

  it("GIVEN a UDF that mints no shared token THEN `sharedToken` is not a registered output, and reads as undefined", async () => {
    // An engine that answers every UDF with a body hash and a token in its state.
    await pulumi.runtime.setMocks(
      {
        newResource: async (a) => ({
          id: `${a.name}-id`,
          state: { ...a.inputs, udfBodyHash: `hash-${a.name}`, sharedToken: `fsh_${a.name}` },
        }),
        call: async () => ({}),
      },
      "proj",
      "dev",
      false,
    );
    const canvas = new svc.Canvas("c", { name: "reports" });
    const plain = new svc.Udf("plain", { canvasId: canvas.id, slug: "plain", code: "x" });
    const minting = new svc.Udf("minting", {
      canvasId: canvas.id,
      slug: "minting",
      code: "x",
      createSharedToken: true,
    });
    const later = new svc.Udf("later", {
      canvasId: canvas.id,
      slug: "later",
      code: "x",
      createSharedToken: pulumi.output(true),
    });
    expect(await outputValue(plain.udfBodyHash)).toBe("hash-plain");
    expect(await outputValue(plain.sharedToken)).toBeUndefined();
    expect(plain.sharedToken).toBe(plain.sharedToken);
    expect(await outputValue(minting.sharedToken)).toBe("fsh_minting");
    expect(await outputValue(later.sharedToken)).toBe("fsh_later");
  });

  it("THEN only a UDF that may mint a token asks the engine to keep `sharedToken` secret", async () => {
    const canvas = new svc.Canvas("c", { name: "reports" });
    new svc.Udf("plain", { canvasId: canvas.id, slug: "plain", code: "x" });
    new svc.Udf("minting", { canvasId: canvas.id, slug: "minting", code: "x", createSharedToken: true });
    await settled();
    const secretOutputs = Object.fromEntries(registrations.map((r) => [r.name, r.secretOutputs]));
    expect(secretOutputs).toEqual({ c: ["passcodeFingerprint"], plain: [], minting: ["sharedToken"] });
  });

  it("GIVEN a program's stack limit THEN declaring resources leaves it as it was, and an error thrown while declaring carries the program's stack", async () => {
    const before = Error.stackTraceLimit;
    Error.stackTraceLimit = 25;
    try {
      declareOneOfEach();
      expect(Error.stackTraceLimit).toBe(25);
      let thrown: Error | undefined;
      try {
        new svc.Udf("", { canvasId: "c", slug: "s", code: "x" });
      } catch (e) {
        thrown = e as Error;
      }
      expect(thrown?.message).toMatch(/Missing resource name/);
      expect(thrown?.stack).toMatch(/registration\.test\.ts/);
      expect(Error.stackTraceLimit).toBe(25);
      await settled();
    } finally {
      Error.stackTraceLimit = before;
    }
  });

  it("GIVEN the SDK's stacks THEN they are off while a resource is declared, and kept under PULUMI_DEBUG_PROMISE_LEAKS", () => {
    const before = Error.stackTraceLimit;
    const quiet = quietStacks();
    expect(Error.stackTraceLimit).toBe(0);
    quiet.restore();
    expect(Error.stackTraceLimit).toBe(before);
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
    try {
      const kept = quietStacks();
      expect(Error.stackTraceLimit).toBe(before);
      kept.restore();
    } finally {
      delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    }
  });

  it("GIVEN an input named __provider THEN the resource is refused, naming the reserved key", () => {
    expect(
      () => new svc.BucketPolicy("b", { bucketName: "x", __provider: "exports.handler = () => ({})" } as any),
    ).toThrow(/"__provider" is reserved/);
  });
});

describe("the stub through the dynamic-provider host", () => {
  const fx = useEmulator();
  const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:Udf::u";
  // What a stack made by an earlier version of svc-iac holds: the SDK's closure serialization of the stub object.
  const closureStub = readFileSync(join(__dirname, "../fixtures/closure-stub/Udf.js"), "utf8");
  let host: ProviderHost;
  let canvasId: string;

  beforeAll(async () => {
    host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
    await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
    canvasId = (await fx.user.canvases.create({ name: "stub_upgrade" })).id;
  });
  afterAll(async () => host?.stop());

  it("GIVEN a UDF created under the closure-serialized stub WHEN the program moves to the module stub THEN there is no change, and update, read and delete work", async () => {
    const args = { canvasId, slug: "upgraded", code: "def udf():\n    return 1\n" };
    const old = await host.create(URN, (await host.check(URN, {}, { ...args, __provider: closureStub })).inputs);
    expect(old.properties.__provider).toBe(closureStub);

    const news = (await host.check(URN, old.properties, { ...args, __provider: providerText("Udf") })).inputs;
    expect(await host.diff(URN, old.id, old.properties, news)).toMatchObject({ changes: "none", replaces: [] });

    const edited = (
      await host.check(URN, old.properties, {
        ...args,
        code: "def udf():\n    return 2\n",
        __provider: providerText("Udf"),
      })
    ).inputs;
    expect(await host.diff(URN, old.id, old.properties, edited)).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(URN, old.id, old.properties, edited);
    expect(updated.properties.__provider).toBe(providerText("Udf"));
    expect(JSON.parse((await fx.user.udfs.getById(old.id)).udf_body).code).toBe("def udf():\n    return 2\n");

    expect((await host.read(URN, old.id, { ...old.properties })).properties.slug).toBe("upgraded");
    await host.delete(URN, old.id, old.properties);
    await expect(fx.user.udfs.getById(old.id)).rejects.toMatchObject({ status: 404 });
  });
});
