/**
 * One lifecycle suite, run against both ways Pulumi reaches the platform, each over gRPC the way
 * the engine calls it: the dynamic resources (`svc-iac/pulumi`) through Pulumi's dynamic-provider
 * host, and the provider plugin `pulumi-resource-svc` as a process of its own. For every kind:
 * Check with bad inputs, Create, a repeated Create, Read with state, Read with only an id, Diff
 * after Read, Update, Delete, and Delete of what is gone; secrets only ever in secret fields (and,
 * from the plugin, marked secret on the wire).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../../src/api/errors";
import { KINDS } from "../../src/kinds/registry";
import { useEmulator } from "../helpers/emulator";
import { ProviderHost, isWireSecret, revealed, secret, type Props } from "../helpers/provider-host";

// The dynamic provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();

interface Target {
  name: string;
  /** A short prefix for the names of what this target makes. */
  tag: string;
  start(): Promise<ProviderHost>;
  configure(host: ProviderHost): Promise<void>;
  urn(kind: string, name: string): string;
  /** The properties a call carries for these inputs (secret inputs as the program gives them). */
  wire(kind: string, props: Props): Props;
  /** The plugin marks secrets on the wire; the dynamic host leaves it to the resource classes. */
  marksSecrets: boolean;
}

const noEnv = {
  SVC_BASE_URL: undefined,
  SVC_TOKEN: undefined,
  SVC_SERVICE_TOKEN: undefined,
  SVC_UDF_BASE_URL: undefined,
};

const targets: Target[] = [
  {
    name: "the dynamic resources through the dynamic-provider host",
    tag: "dyn",
    start: () => ProviderHost.start({ env: noEnv }),
    configure: (h) => h.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token }),
    urn: (kind, name) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:${kind}::${name}`,
    wire: (kind, props) => ({ __provider: providerText(kind), ...props }),
    marksSecrets: false,
  },
  {
    name: "the provider plugin pulumi-resource-svc",
    tag: "plg",
    start: () => ProviderHost.startPlugin({ env: noEnv }),
    configure: async (h) => {
      await h.configureWith({ "svc:config:baseUrl": fx.emu.baseUrl, "svc:config:token": fx.emu.tokens.user_token });
    },
    urn: (kind, name) => `urn:pulumi:dev::proj::svc:index:${kind}::${name}`,
    // The engine sends what the program made secret as a secret.
    wire: (kind, props) =>
      Object.fromEntries(
        Object.entries(props).map(([k, v]) => [k, KINDS[kind]!.secretInputs.includes(k) ? secret(v) : v]),
      ),
    marksSecrets: true,
  },
];

interface Made {
  canvasId: string;
  udfId: string;
  canvasToken: string;
}

interface KindCase {
  kind: string;
  bad(m: Made): Props;
  /** A property the bad inputs' failures name. */
  badProperty: string;
  inputs(p: string, m: Made): Props;
  /** Inputs that change in place, and how the platform then shows it. */
  update?: { inputs(p: string, m: Made): Props; shows(id: string, state: Props): Promise<void> };
  /** Whether the object is on the platform. */
  exists(id: string, state: Props): Promise<boolean>;
  /** A second Create with the same inputs (an answer lost and retried). */
  repeat: "adopts" | "refused" | "mints";
  /** Delete leaves nothing behind on the platform (a bucket policy is computed, never removed). */
  removable: boolean;
  /** The secret values of a state (never in clear). */
  secrets(state: Props, p: string): string[];
}

const found = async (call: Promise<unknown>) => {
  try {
    await call;
    return true;
  } catch (e) {
    if (isApiError(e, "not_found") || isApiError(e, "unauthorized")) return false;
    throw e;
  }
};

const cases: KindCase[] = [
  {
    kind: "Canvas",
    bad: () => ({ name: "bad name!", accessScope: "everyone" }),
    badProperty: "name",
    inputs: (p) => ({ name: `${p}_canvas`, passcode: `${p}-passcode-value` }),
    update: {
      inputs: (p) => ({ name: `${p}_canvas`, passcode: `${p}-passcode-value`, allowPublicRead: true }),
      shows: async (id) => expect((await fx.user.canvases.getById(id)).allow_public_read).toBe(true),
    },
    exists: (id) => found(fx.user.canvases.getById(id)),
    repeat: "adopts",
    removable: true,
    secrets: (_s, p) => [`${p}-passcode-value`],
  },
  {
    kind: "Udf",
    bad: (m) => ({ canvasId: m.canvasId, slug: "no spaces", code: 42 }),
    badProperty: "slug",
    inputs: (p, m) => ({ canvasId: m.canvasId, slug: `${p}-udf`, code: "def udf():\n    return 1\n" }),
    update: {
      inputs: (p, m) => ({ canvasId: m.canvasId, slug: `${p}-udf`, code: "def udf():\n    return 2\n" }),
      shows: async (id) => expect((await fx.user.udfs.getById(id)).udf_body).toContain("return 2"),
    },
    exists: (id) => found(fx.user.udfs.getById(id)),
    repeat: "adopts",
    removable: true,
    secrets: () => [],
  },
  {
    kind: "CanvasShare",
    bad: () => ({ canvasId: "", accessScope: "world" }),
    badProperty: "canvasId",
    inputs: (_p, m) => ({ canvasId: m.canvasId }),
    update: {
      inputs: (_p, m) => ({ canvasId: m.canvasId, clientId: "rt-demo-secondary" }),
      shows: async (id) => expect((await fx.user.canvases.getById(id)).share_client_id).toBe("rt-demo-secondary"),
    },
    exists: async (id) => !!(await fx.user.canvases.getById(id)).share_token,
    repeat: "adopts",
    removable: true,
    secrets: (s) => [String(s.shareToken)],
  },
  {
    kind: "Cronjob",
    bad: (m) => ({ name: "", schedule: "0,30 6 * * *", udfId: m.udfId }),
    badProperty: "schedule",
    inputs: (p, m) => ({ name: `${p}_cron`, schedule: "0 6 * * 1-5", udfId: m.udfId }),
    update: {
      inputs: (p, m) => ({ name: `${p}_cron`, schedule: "0 6 * * 1-5", udfId: m.udfId, enabled: false }),
      shows: async (id) => expect((await fx.user.cronjobs.get(id)).enabled).toBe(false),
    },
    exists: (id) => found(fx.user.cronjobs.get(id)),
    repeat: "adopts",
    removable: true,
    secrets: () => [],
  },
  {
    kind: "Secret",
    bad: () => ({ key: "", value: 7 }),
    badProperty: "key",
    inputs: (p) => ({ key: `${p.toUpperCase()}_KEY`, value: `${p}-secret-value-1` }),
    update: {
      inputs: (p) => ({ key: `${p.toUpperCase()}_KEY`, value: `${p}-secret-value-2` }),
      shows: async (id) => expect((await fx.user.secrets.get(id)).value).toMatch(/-secret-value-2$/),
    },
    exists: (id) => found(fx.user.secrets.get(id)),
    repeat: "adopts",
    removable: true,
    secrets: (_s, p) => [`${p}-secret-value-1`, `${p}-secret-value-2`],
  },
  {
    kind: "ServiceAccount",
    bad: () => ({ name: "" }),
    badProperty: "name",
    inputs: (p) => ({ name: `${p}-deployer`, rotation: "2026-01" }),
    exists: async (id) => (await fx.user.environment.listServiceAccounts()).some((sa) => sa.id === id),
    repeat: "refused",
    removable: true,
    secrets: (s) => [String(s.token)],
  },
  {
    kind: "BucketPolicy",
    bad: () => ({ bucketName: "Not_A_Bucket" }),
    badProperty: "bucketName",
    inputs: (p) => ({ bucketName: `${p}-data-bucket` }),
    exists: (id) => found(fx.user.files.s3IamPolicy(id)),
    repeat: "adopts",
    removable: false,
    secrets: () => [],
  },
  {
    kind: "SessionToken",
    bad: (m) => ({ canvasToken: m.canvasToken, ttl: 999_999 }),
    badProperty: "ttl",
    inputs: (_p, m) => ({ canvasToken: m.canvasToken, ttl: 600 }),
    exists: (_id, s) =>
      found(fx.anon.sharing.getByToken(String(s.canvasToken), { sessionToken: String(s.sessionToken) })),
    repeat: "mints",
    removable: true,
    secrets: (s) => [String(s.sessionToken), String(s.canvasToken)],
  },
];

/** Secret values appear only in the kind's secret fields, which the plugin marks secret. */
function expectSecretsKept(t: Target, kind: string, props: Props, values: string[]): void {
  const k = KINDS[kind]!;
  const secretFields = new Set([...k.secretOutputs, ...k.secretInputs]);
  const plain = JSON.stringify(Object.fromEntries(Object.entries(props).filter(([f]) => !secretFields.has(f))));
  for (const v of values) expect(plain).not.toContain(v);
  if (t.marksSecrets)
    for (const f of secretFields)
      if (props[f] !== undefined && props[f] !== null)
        expect(isWireSecret(props[f]), `${kind}.${f} is marked secret`).toBe(true);
}

describe.each(targets)("$name", (t) => {
  let host: ProviderHost;
  let made: Made;

  beforeAll(async () => {
    host = await t.start();
    await t.configure(host);
    const canvas = await fx.user.canvases.create({ name: `${t.tag}_lifecycle` });
    const udf = await fx.user.udfs.create({
      slug: "runs",
      udf_type: "auto",
      collection_id: canvas.id,
      udf_body: JSON.stringify({
        name: "runs",
        type: "geopandas_v2",
        entrypoint: "udf",
        code: "def udf():\n    return 1\n",
        headers: [],
        metadata: {},
      }),
    });
    const tokenCanvas = await fx.user.canvases.create({ name: `${t.tag}_tokens` });
    const shared = await fx.user.sharing.share({ collectionId: tokenCanvas.id, clientId: "rt-demo-primary" });
    made = { canvasId: canvas.id, udfId: udf.id, canvasToken: shared.share_token! };
  });
  afterAll(async () => host?.stop());

  it.each(cases)(
    "$kind: Check refuses bad inputs; Create, a repeated Create, Read with state, Read with only an id, Diff after Read, Update, Delete and Delete of what is gone",
    async (c) => {
      const p = `${t.tag}${c.kind.toLowerCase()}`;
      const urn = t.urn(c.kind, p);
      const check = async (props: Props, olds: Props = {}) => {
        const r = await host.check(urn, olds, t.wire(c.kind, props));
        expect(r.failures).toEqual([]);
        return r.inputs;
      };

      // GIVEN bad inputs WHEN checked THEN the failures name the property, and nothing is created
      const bad = await host.check(urn, {}, t.wire(c.kind, c.bad(made)));
      expect(bad.failures.map((f) => f.property)).toContain(c.badProperty);

      // WHEN created THEN the object is on the platform, and its secrets are kept secret
      const inputs = await check(c.inputs(p, made));
      const created = await host.create(urn, inputs);
      const state = revealed(created.properties);
      expect(await c.exists(created.id, state)).toBe(true);
      const secrets = c.secrets(state, p);
      expectSecretsKept(t, c.kind, created.properties, secrets);

      // WHEN created again with the same inputs (a lost answer, retried)
      if (c.repeat === "adopts") {
        expect((await host.create(urn, inputs)).id).toBe(created.id);
      } else if (c.repeat === "refused") {
        await expect(host.create(urn, inputs)).rejects.toThrow(/already exists/);
      } else {
        const again = await host.create(urn, inputs);
        expect(again.id).not.toBe(created.id);
      }

      // WHEN read with its state THEN it is the same object, and the program's inputs diff empty
      const read = await host.read(urn, created.id, created.properties);
      expect(read.id).toBe(created.id);
      expectSecretsKept(t, c.kind, read.properties, secrets);
      expect((await host.diff(urn, created.id, read.properties, inputs)).changes).toBe("none");

      // WHEN read with only an id (refresh of a resource read by id, import)
      if (c.kind === "SessionToken") {
        const byId = t.marksSecrets
          ? host.importRead(urn, created.id)
          : host.readById(urn, created.id, t.wire(c.kind, {}));
        await expect(byId).rejects.toThrow(/cannot be read from its id alone/);
      } else {
        // (the dynamic host needs its `__provider`, and nothing else is sent)
        const byId = t.marksSecrets
          ? await host.importRead(urn, created.id)
          : await host.readById(urn, created.id, t.wire(c.kind, {}));
        expect(byId.id).toBe(created.id);
        expectSecretsKept(t, c.kind, byId.properties, secrets);
        // THEN Diff after Read is empty: no replacement, no update
        expect(await host.diff(urn, created.id, byId.properties, inputs)).toEqual({
          changes: "none",
          replaces: [],
          deleteBeforeReplace: false,
        });
      }

      // WHEN updated in place THEN the platform shows it
      let last = read.properties;
      if (c.update) {
        const next = await check(c.update.inputs(p, made), read.properties);
        expect(await host.diff(urn, created.id, read.properties, next)).toMatchObject({
          changes: "some",
          replaces: [],
        });
        last = (await host.update(urn, created.id, read.properties, next)).properties;
        await c.update.shows(created.id, revealed(last));
        expectSecretsKept(t, c.kind, last, secrets);
        expect((await host.diff(urn, created.id, last, next)).changes).toBe("none");
      }

      // WHEN deleted THEN it is gone; deleting what is gone is no error
      await host.delete(urn, created.id, last);
      expect(await c.exists(created.id, revealed(last))).toBe(!c.removable);
      await host.delete(urn, created.id, last);
      if (c.removable && c.kind !== "SessionToken") expect((await host.read(urn, created.id, last)).id).toBe("");
    },
  );

  it("a SessionToken read after its canvas token's session tokens were revoked, or the canvas token rotated, reads as gone", async () => {
    const urn = t.urn("SessionToken", "revoked");
    const canvas = await fx.user.canvases.create({ name: `${t.tag}_revoked` });
    const { share_token: token } = await fx.user.sharing.share({
      collectionId: canvas.id,
      clientId: "rt-demo-primary",
    });
    const inputs = (await host.check(urn, {}, t.wire("SessionToken", { canvasToken: token }))).inputs;

    // GIVEN a session token WHEN every session token of its canvas token is revoked THEN a refresh finds it gone
    const first = await host.create(urn, inputs);
    expect((await host.read(urn, first.id, first.properties)).id).toBe(first.id);
    await fx.user.sessionTokens.revokeAll(token!);
    expect((await host.read(urn, first.id, first.properties)).id).toBe("");

    // GIVEN another WHEN the canvas token is rotated THEN it is gone too
    const second = await host.create(urn, inputs);
    await fx.user.sharing.share({ collectionId: canvas.id, clientId: "rt-demo-primary", newToken: true });
    expect((await host.read(urn, second.id, second.properties)).id).toBe("");
  });

  it("a SessionToken on a canvas with a passcode still reads as existing while it is honoured", async () => {
    const urn = t.urn("SessionToken", "gated");
    const canvas = await fx.user.canvases.create({ name: `${t.tag}_gated`, passcode: "gate-passcode-value" });
    const { share_token: token } = await fx.user.sharing.share({
      collectionId: canvas.id,
      clientId: "rt-demo-primary",
    });
    const inputs = (await host.check(urn, {}, t.wire("SessionToken", { canvasToken: token }))).inputs;
    const created = await host.create(urn, inputs);
    expect((await host.read(urn, created.id, created.properties)).id).toBe(created.id);
    await fx.user.sessionTokens.revokeAll(token!);
    expect((await host.read(urn, created.id, created.properties)).id).toBe("");
  });
});
