import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvasShareKind } from "../../src/kinds/canvas-share/resource";
import { failure, useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost, type Props } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

const fx = useEmulator();
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:CanvasShare::s";
let host: ProviderHost;
let __provider: string;

async function checked(news: Props, olds: Props = {}): Promise<Props> {
  const r = await host.check(URN, olds, { __provider, ...news });
  expect(r.failures).toEqual([]);
  return r.inputs;
}

/** Properties other than the secret outputs hold no copy of `secret`. */
function expectOnlyInSecretOutputs(props: Props, secret: string): void {
  const plain = Object.fromEntries(Object.entries(props).filter(([k]) => !canvasShareKind.secretOutputs.includes(k)));
  expect(JSON.stringify(plain)).not.toContain(secret);
}

const newCanvas = (name: string) => fx.user.canvases.create({ name });

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("CanvasShare");
});
afterAll(async () => host?.stop());

describe("CanvasShare through the dynamic-provider host", () => {
  it("runs check, create, read, diff, update (instance, rotation) and delete against the platform", async () => {
    const canvas = await newCanvas("share_prov");
    const inputs = await checked({ canvasId: canvas.id });

    // WHEN created without an instance THEN the preferred one (highest preference_rank) is used
    const created = await host.create(URN, inputs);
    expect(created.id).toBe(canvas.id);
    const shared = await fx.user.canvases.getById(canvas.id);
    expect(shared.share_token).toMatch(/^fc_/);
    expect(shared.share_client_id).toBe("rt-demo-primary");
    expect(created.properties).toMatchObject({
      canvasId: canvas.id,
      shareToken: shared.share_token,
      shareClientId: "rt-demo-primary",
      mintedScope: "team",
    });
    expectOnlyInSecretOutputs(created.properties, shared.share_token!);
    expect(__provider).not.toContain(shared.share_token!);

    const read = await host.read(URN, created.id, created.properties);
    expect(read).toEqual({ id: canvas.id, properties: created.properties });
    expect((await host.diff(URN, created.id, created.properties, inputs)).changes).toBe("none");

    // WHEN the instance changes THEN it is re-shared there, in place, and the token is kept
    const moved = await checked({ canvasId: canvas.id, clientId: "rt-demo-secondary" }, created.properties);
    expect(await host.diff(URN, created.id, created.properties, moved)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const onSecondary = await host.update(URN, created.id, created.properties, moved);
    expect(await fx.user.canvases.getById(canvas.id)).toMatchObject({
      share_token: shared.share_token,
      share_client_id: "rt-demo-secondary",
    });
    expect(onSecondary.properties).toMatchObject({
      shareToken: shared.share_token,
      shareClientId: "rt-demo-secondary",
    });

    // WHEN rotation changes THEN a new token is minted; the old one and its session tokens die
    const oldToken = shared.share_token!;
    const session = await fx.user.sessionTokens.create(oldToken);
    const rotated = await checked(
      { canvasId: canvas.id, clientId: "rt-demo-secondary", rotation: 1 },
      onSecondary.properties,
    );
    const d = await host.diff(URN, created.id, onSecondary.properties, rotated);
    expect(d).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    const afterRotation = await host.update(URN, created.id, onSecondary.properties, rotated);
    const now = await fx.user.canvases.getById(canvas.id);
    expect(now.share_token).not.toBe(oldToken);
    expect(afterRotation.properties).toMatchObject({
      shareToken: now.share_token,
      shareClientId: "rt-demo-secondary",
      rotation: 1,
    });
    await expect(fx.anon.sharing.getByToken(oldToken, { sessionToken: session.session_token })).rejects.toMatchObject({
      status: 404,
    });
    await expect(fx.user.sessionTokens.create(oldToken)).rejects.toMatchObject({ status: 404 });

    // WHEN deleted THEN the canvas is unshared; again is fine; a read says it is gone
    await host.delete(URN, created.id, afterRotation.properties);
    expect(await fx.user.canvases.getById(canvas.id)).toMatchObject({ share_token: null, share_client_id: null });
    await host.delete(URN, created.id, afterRotation.properties);
    const gone = await host.read(URN, created.id, afterRotation.properties);
    expect(gone.id).toBe("");
  });

  it("GIVEN a shared canvas made public THEN the diff says a rotation is required, and the update mints a public token", async () => {
    const canvas = await newCanvas("share_scope");
    const created = await host.create(URN, await checked({ canvasId: canvas.id, accessScope: "team" }));
    const teamToken = created.properties.shareToken as string;
    expect(created.properties.mintedScope).toBe("team");

    await fx.user.canvases.update(canvas.id, { name: "share_scope", access_scope: "public" });
    // The token keeps the scope it was minted under: still team-only.
    await expect(fx.anon.sharing.getByToken(teamToken)).rejects.toMatchObject({ status: 401 });

    const publicInputs = await checked({ canvasId: canvas.id, accessScope: "public" }, created.properties);
    expect(await host.diff(URN, created.id, created.properties, publicInputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const plan = canvasShareKind.diff(created.properties as never, { canvasId: canvas.id, accessScope: "public" });
    expect(plan.fields).toEqual([
      expect.objectContaining({
        field: "accessScope",
        action: "update",
        from: "team",
        to: "public",
        note: expect.stringContaining("needs a rotation"),
      }),
    ]);
    expect(JSON.stringify(plan)).not.toContain(teamToken);

    const updated = await host.update(URN, created.id, created.properties, publicInputs);
    const publicToken = updated.properties.shareToken as string;
    expect(publicToken).not.toBe(teamToken);
    expect(updated.properties.mintedScope).toBe("public");
    expect((await fx.anon.sharing.getByToken(publicToken)).id).toBe(canvas.id);
    expect((await host.diff(URN, created.id, updated.properties, publicInputs)).changes).toBe("none");
    await host.delete(URN, created.id, updated.properties);
  });

  it("GIVEN accessScope other than the canvas's THEN create fails with a clear message and nothing is shared", async () => {
    const canvas = await newCanvas("share_mismatch");
    const e = await failure(host.create(URN, await checked({ canvasId: canvas.id, accessScope: "public" })));
    expect(e).toBeInstanceOf(HostError);
    expect(e.message).toContain(
      'accessScope "public" does not match canvas "share_mismatch", whose access scope is "team"',
    );
    expect((await fx.user.canvases.getById(canvas.id)).share_token).toBeNull();
  });

  it("adopts a canvas that is already shared, keeping its token", async () => {
    const canvas = await newCanvas("share_adopt");
    const before = await fx.user.sharing.share({ collectionId: canvas.id, clientId: "rt-demo-secondary" });
    const created = await host.create(URN, await checked({ canvasId: canvas.id }));
    expect(created.id).toBe(canvas.id);
    expect(created.properties).toMatchObject({ shareToken: before.share_token, shareClientId: "rt-demo-secondary" });
    expect(await fx.user.canvases.getById(canvas.id)).toMatchObject({
      share_token: before.share_token,
      share_client_id: "rt-demo-secondary",
    });

    // With a pinned instance, adoption moves the share there and still keeps the token.
    const pinned = await host.create(URN, await checked({ canvasId: canvas.id, clientId: "rt-demo-primary" }));
    expect(await fx.user.canvases.getById(canvas.id)).toMatchObject({
      share_token: before.share_token,
      share_client_id: "rt-demo-primary",
    });
    expect(pinned.properties.shareToken).toBe(before.share_token);
  });

  it("GIVEN another canvas THEN replaces: the new canvas is shared, then the old one unshared", async () => {
    const a = await newCanvas("share_replace_a");
    const b = await newCanvas("share_replace_b");
    const created = await host.create(URN, await checked({ canvasId: a.id }));
    const toB = await checked({ canvasId: b.id }, created.properties);
    expect(await host.diff(URN, created.id, created.properties, toB)).toEqual({
      changes: "some",
      replaces: ["canvasId"],
      deleteBeforeReplace: false,
    });
    const replaced = await host.create(URN, toB);
    await host.delete(URN, created.id, created.properties);
    expect(replaced.id).toBe(b.id);
    expect((await fx.user.canvases.getById(b.id)).share_token).toBe(replaced.properties.shareToken);
    expect((await fx.user.canvases.getById(a.id)).share_token).toBeNull();
  });

  it("GIVEN a share removed out of band THEN read says it is gone", async () => {
    const canvas = await newCanvas("share_oob");
    const created = await host.create(URN, await checked({ canvasId: canvas.id }));
    await fx.user.sharing.unshare(canvas.id);
    expect((await host.read(URN, created.id, created.properties)).id).toBe("");
  });

  it("reports every bad input at once in check, and nothing reaches the platform", async () => {
    const canvas = await newCanvas("share_bad");
    const r = await host.check(
      URN,
      {},
      { __provider, canvasId: canvas.id, clientId: "", rotation: { a: 1 }, accessScope: "world" },
    );
    expect(r.failures.map((f) => f.property)).toEqual(["clientId", "rotation", "accessScope"]);
    expect(r.failures[2].reason).toBe(
      'Invalid accessScope "world". accessScope is "team" or "public" (the canvas\'s access scope).',
    );
    expect((await host.check(URN, {}, { __provider })).failures).toEqual([
      {
        property: "canvasId",
        reason: "canvasId is required: canvasId is the id of the canvas to share (e.g. canvas.id).",
      },
    ]);
    await expect(host.create(URN, { __provider, canvasId: canvas.id, accessScope: "world" })).rejects.toBeInstanceOf(
      HostError,
    );
    expect((await fx.user.canvases.getById(canvas.id)).share_token).toBeNull();
  });

  it("observes every shared canvas of the team, keyed by canvas id", async () => {
    const canvas = await newCanvas("share_observed");
    const s = await fx.user.sharing.share({ collectionId: canvas.id, clientId: fx.emu.clientId });
    const all = await canvasShareKind.observeAll({ client: fx.user });
    expect(all.find((o) => o.id === canvas.id)).toEqual({
      id: canvas.id,
      key: canvas.id,
      state: { canvasId: canvas.id, shareToken: s.share_token, shareClientId: fx.emu.clientId, mintedScope: "team" },
    });
    expect(all.every((o) => o.state.shareToken)).toBe(true);
  });
});
