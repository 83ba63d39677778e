import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountName, serviceAccountKind } from "../../src/kinds/service-account/resource";
import { useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost, type Props } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");
const { ServiceAccount } = require("../../dist/provider/service-account");
const pulumi = require("@pulumi/pulumi");

const fx = useEmulator();
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:ServiceAccount::sa";
let host: ProviderHost;
let __provider: string;

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("ServiceAccount");
});
afterAll(async () => host?.stop());

/** Whether a service token is accepted by the platform. */
const works = async (token: string) =>
  fx
    .client({ serviceToken: token })
    .environment.getSelf()
    .then(
      () => true,
      (e) => (e.status === 401 ? false : Promise.reject(e)),
    );
const accounts = () => fx.user.environment.listServiceAccounts();
/** Outputs other than the token, which the SDK marks secret through additionalSecretOutputs. */
const plainOutputs = (p: Props) =>
  Object.fromEntries(Object.entries(p).filter(([k]) => k !== "token" && k !== "__provider"));

describe("ServiceAccount through the dynamic-provider host", () => {
  it("runs check, create, read, diff, a rotation (new before old) and delete against the platform", async () => {
    const checked = await host.check(URN, {}, { __provider, name: "ci-deployer", rotation: "2025-06" });
    expect(checked.failures).toEqual([]);

    const created = await host.create(URN, checked.inputs);
    const token = created.properties.token as string;
    const onPlatform = (await accounts()).find((a) => a.id === created.id);
    expect(onPlatform).toMatchObject({ name: accountName({ name: "ci-deployer", rotation: "2025-06" }) });
    expect(onPlatform!.name).toMatch(/^ci-deployer \[svc-iac [0-9a-f]{6}\]$/);
    expect(created.properties).toMatchObject({
      id: created.id,
      name: "ci-deployer",
      rotation: "2025-06",
      accountName: onPlatform!.name,
      createdAt: onPlatform!.created_at,
    });
    expect(token).toMatch(/^svc_sa_/);
    expect(await works(token)).toBe(true);
    expect(JSON.stringify(plainOutputs(created.properties))).not.toContain(token);
    expect(__provider).not.toContain(token);

    // Read keeps the token recorded at creation (the platform never returns it again).
    const read = await host.read(URN, created.id, created.properties);
    expect(read.properties).toMatchObject({ id: created.id, token, accountName: onPlatform!.name });
    expect(await host.diff(URN, created.id, read.properties, checked.inputs)).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });

    // A new rotation replaces, new before old: both tokens work until the old account is deleted.
    const rotated = (await host.check(URN, read.properties, { __provider, name: "ci-deployer", rotation: "2025-07" }))
      .inputs;
    expect(await host.diff(URN, created.id, read.properties, rotated)).toEqual({
      changes: "some",
      replaces: ["rotation"],
      deleteBeforeReplace: false,
    });
    const replacement = await host.create(URN, rotated);
    const newToken = replacement.properties.token as string;
    expect(replacement.id).not.toBe(created.id);
    expect(newToken).not.toBe(token);
    expect([await works(token), await works(newToken)]).toEqual([true, true]);
    await host.delete(URN, created.id, read.properties);
    expect([await works(token), await works(newToken)]).toEqual([false, true]);
    expect((await accounts()).map((a) => a.id)).not.toContain(created.id);

    // A new name replaces too.
    const renamed = (
      await host.check(URN, replacement.properties, { __provider, name: "ci-release", rotation: "2025-07" })
    ).inputs;
    expect(await host.diff(URN, replacement.id, replacement.properties, renamed)).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: false,
    });

    await host.delete(URN, replacement.id, replacement.properties);
    expect(await works(newToken)).toBe(false);
    expect((await host.read(URN, replacement.id, replacement.properties)).id).toBe("");
    await host.delete(URN, replacement.id, replacement.properties);
  });

  it("never touches an account made by hand with the same name", async () => {
    const handMade = (await accounts()).find((a) => a.name === "ci-bot")!;
    const created = await host.create(URN, (await host.check(URN, {}, { __provider, name: "ci-bot" })).inputs);
    expect(created.id).not.toBe(handMade.id);
    await host.delete(URN, created.id, created.properties);
    expect((await accounts()).map((a) => a.id)).toContain(handMade.id);
  });

  it("GIVEN an account with the same platform name exists THEN create stops with a clear message and makes no duplicate", async () => {
    // As left by a create whose answer was lost: the account exists, its token is known to no one.
    const orphan = await fx.user.environment.createServiceAccount(accountName({ name: "lost-answer", rotation: 1 }));
    const inputs = (await host.check(URN, {}, { __provider, name: "lost-answer", rotation: 1 })).inputs;
    const err = await host.create(URN, inputs).catch((e) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err.message).toContain(
      `Service account "${orphan.name}" (id ${orphan.id}, created ${orphan.created_at}) already exists, and a service account's token can only be read when it is created.`,
    );
    expect(err.message).toContain("change `rotation` (or `name`) to create a new one");
    expect(err.message).not.toContain(orphan.token);
    expect((await accounts()).filter((a) => a.name === orphan.name)).toHaveLength(1);
    expect(await works(orphan.token)).toBe(true);

    // Changing the rotation is one way out.
    const fresh = await host.create(
      URN,
      (await host.check(URN, {}, { __provider, name: "lost-answer", rotation: 2 })).inputs,
    );
    expect(fresh.id).not.toBe(orphan.id);
    await host.delete(URN, fresh.id, fresh.properties);
  });

  it("reports bad inputs in check, and nothing reaches the platform", async () => {
    const before = (await accounts()).length;
    const r = await host.check(URN, {}, { __provider, name: "" });
    expect(r.failures).toEqual([
      { property: "name", reason: 'Invalid name "". A service account name must not be empty.' },
    ]);
    expect((await host.check(URN, {}, { __provider })).failures).toEqual([
      { property: "name", reason: 'name is required: A service account name is a string, e.g. "ci-deployer".' },
    ]);
    await expect(host.create(URN, { __provider, name: "" })).rejects.toBeInstanceOf(HostError);
    expect((await accounts()).length).toBe(before);
  });

  it("observes every account without tokens, a hand-made one keyed by its untagged name (never a desired key)", async () => {
    const created = await host.create(URN, (await host.check(URN, {}, { __provider, name: "observed" })).inputs);
    const all = await serviceAccountKind.observeAll({ client: fx.user });
    expect(all.find((o) => o.id === created.id)).toEqual({
      id: created.id,
      key: accountName({ name: "observed" }),
      state: {
        name: "observed",
        id: created.id,
        accountName: accountName({ name: "observed" }),
        token: null,
        createdAt: created.properties.createdAt,
      },
    });
    const handMade = all.find((o) => o.state.name === "ci-bot")!;
    expect(handMade.key).toBe("ci-bot");
    expect(handMade.key).not.toBe(accountName({ name: "ci-bot" }));
    await host.delete(URN, created.id, created.properties);
  });
});

describe("ServiceAccount resource class", () => {
  it("asks the engine to keep the token secret (additionalSecretOutputs) and keeps new-before-old", async () => {
    pulumi.runtime.setMocks(
      { newResource: (args: any) => ({ id: "sa-1", state: args.inputs }), call: () => ({}) },
      "proj",
      "dev",
      false,
    );
    let seen: any;
    // A transformation sees the options the class hands to the SDK.
    new ServiceAccount(
      "deployer",
      { name: "ci-deployer" },
      { additionalSecretOutputs: ["createdAt"], transformations: [(a: any) => void (seen = a.opts)] },
    );
    expect(seen.additionalSecretOutputs).toEqual(["createdAt", "token"]);
    expect(seen.deleteBeforeReplace).toBe(false);
  });
});
