import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:Canvas::c";
let host: ProviderHost;
let __provider: string;

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("Canvas");
});
afterAll(async () => host?.stop());

describe("Canvas through the dynamic-provider host", () => {
  it("GIVEN a serialized provider THEN it holds no client, schema, URL or token", () => {
    expect(__provider).toContain('require("svc-iac/provider-runtime")');
    expect(__provider).not.toContain(fx.emu.tokens.user_token);
    expect(__provider).not.toContain(fx.emu.baseUrl);
    expect(__provider.length).toBeLessThan(4000);
  });

  it("runs check, create, read, diff, update and delete against the platform", async () => {
    const checked = await host.check(URN, {}, { __provider, name: "prov_canvas", passcode: "pc-secret-123" });
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toMatchObject({ name: "prov_canvas", accessScope: "team", allowPublicRead: false });

    const created = await host.create(URN, checked.inputs);
    const onPlatform = await fx.user.canvases.getById(created.id);
    expect(onPlatform).toMatchObject({ name: "prov_canvas", access_scope: "team", passcode: "pc-secret-123" });
    expect(created.properties).toMatchObject({ id: created.id, name: "prov_canvas", username: "dana" });
    expect(JSON.stringify(created.properties)).not.toContain("pc-secret-123");

    const read = await host.read(URN, created.id, created.properties);
    expect(read.properties).toMatchObject({
      name: "prov_canvas",
      passcodeFingerprint: created.properties.passcodeFingerprint,
    });

    const same = await host.diff(URN, created.id, created.properties, checked.inputs);
    expect(same.changes).toBe("none");
    const next = (
      await host.check(URN, created.properties, {
        __provider,
        name: "prov_canvas_2",
        accessScope: "public",
        passcode: "pc-secret-123",
      })
    ).inputs;
    expect(await host.diff(URN, created.id, created.properties, next)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });

    const updated = await host.update(URN, created.id, created.properties, next);
    expect(updated.properties).toMatchObject({ name: "prov_canvas_2", accessScope: "public" });
    expect(await fx.user.canvases.getById(created.id)).toMatchObject({ name: "prov_canvas_2", access_scope: "public" });

    await host.delete(URN, created.id, updated.properties);
    await expect(fx.user.canvases.getById(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it("adopts a canvas that already exists by name instead of making a second one", async () => {
    const existing = await fx.user.canvases.create({ name: "adopt_me", access_scope: "team" });
    const inputs = (await host.check(URN, {}, { __provider, name: "adopt_me", allowPublicRead: true })).inputs;
    const created = await host.create(URN, inputs);
    expect(created.id).toBe(existing.id);
    expect(await fx.user.canvases.getById(existing.id)).toMatchObject({ allow_public_read: true });
    const all = await fx.user.canvases.listSelf().toArray();
    expect(all.filter((c) => c.name === "adopt_me")).toHaveLength(1);
  });

  it("reports every bad input at once in check, and nothing reaches the platform", async () => {
    const before = (await fx.user.canvases.listSelf().toArray()).length;
    const r = await host.check(
      URN,
      {},
      { __provider, name: "bad name!", accessScope: "world", allowPublicRead: "yes", passcode: "" },
    );
    expect(r.failures).toEqual([
      {
        property: "name",
        reason:
          'Invalid name "bad name!". A canvas name uses only letters, digits and underscores ([A-Za-z0-9_]), e.g. "sales_dashboard".',
      },
      { property: "accessScope", reason: 'Invalid accessScope "world". accessScope is "team" or "public".' },
      { property: "allowPublicRead", reason: 'Invalid allowPublicRead "yes". allowPublicRead is true or false.' },
      {
        property: "passcode",
        reason: "Invalid passcode a secret value. A passcode must not be empty; omit it for none.",
      },
    ]);
    const missing = await host.check(URN, {}, { __provider });
    expect(missing.failures).toEqual([
      { property: "name", reason: "name is required: A canvas name is a string of letters, digits and underscores." },
    ]);
    await expect(host.create(URN, { __provider, name: "bad name!" })).rejects.toBeInstanceOf(HostError);
    expect((await fx.user.canvases.listSelf().toArray()).length).toBe(before);
  });
});
