import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/emulator/clock";
import { sessionTokenKind } from "../../src/kinds/session-token/resource";
import { failure, useEmulator } from "../helpers/emulator";
import { HostError, ProviderHost, type Props } from "../helpers/provider-host";

// The provider is loaded from the built package, as a user's program loads it.
const { providerText } = require("../../dist/provider/stub");

// The emulator's clock starts at the real time: the provider host judges expiry by the real clock.
const clock = new ManualClock(new Date());
const fx = useEmulator({ clock });
const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/svc:SessionToken::t";
let host: ProviderHost;
let __provider: string;
let canvasId: string;
let canvasToken: string;
/** Every text the provider gave back (outputs minus secret outputs, diffs, errors, ids). */
const seen: string[] = [];

async function checked(news: Props, olds: Props = {}): Promise<Props> {
  const r = await host.check(URN, olds, { __provider, ...news });
  expect(r.failures).toEqual([]);
  return r.inputs;
}

function plainOutputs(props: Props): Props {
  return Object.fromEntries(
    Object.entries(props).filter(([k]) => !sessionTokenKind.secretOutputs.includes(k) && k !== "__provider"),
  );
}

/** Whether a session token opens the team-only canvas right now (by the emulator's clock). */
async function opens(sessionToken: string): Promise<boolean> {
  try {
    await fx.anon.sharing.getByToken(canvasToken, { sessionToken });
    return true;
  } catch (e: any) {
    if (e.status === 401) return false;
    throw e;
  }
}

const sessionRows = () => fx.emu.env.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM session_tokens")!.n;

beforeAll(async () => {
  host = await ProviderHost.start({ env: { SVC_BASE_URL: undefined, SVC_TOKEN: undefined } });
  await host.configure({ "svc:baseUrl": fx.emu.baseUrl, "svc:token": fx.emu.tokens.user_token });
  __provider = providerText("SessionToken");
  canvasId = (await fx.user.canvases.create({ name: "session_prov" })).id;
  canvasToken = (await fx.user.sharing.share({ collectionId: canvasId, clientId: fx.emu.clientId })).share_token!;
});
afterAll(async () => host?.stop());

describe("SessionToken through the dynamic-provider host", () => {
  it("runs check, create, read, diff, update, replace (ttl) and delete against the platform", async () => {
    clock.set(new Date());
    const inputs = await checked({ canvasToken, ttl: 600 });
    expect(inputs).toMatchObject({ canvasToken, ttl: 600 });

    const created = await host.create(URN, inputs);
    const token = created.properties.sessionToken as string;
    expect(token).toMatch(/^svc_sess_/);
    expect(created.properties.expiresAt).toBe(new Date(clock.now().getTime() + 600_000).toISOString());
    expect(await opens(token)).toBe(true);
    expect(created.id).toMatch(/^sha256:/);
    seen.push(created.id, JSON.stringify(plainOutputs(created.properties)));

    const read = await host.read(URN, created.id, created.properties);
    expect(read).toEqual({ id: created.id, properties: created.properties });
    const same = await host.diff(URN, created.id, created.properties, inputs);
    expect(same.changes).toBe("none");
    // Nothing updates in place: an update keeps the token as it is.
    const updated = await host.update(URN, created.id, created.properties, inputs);
    expect(updated.properties).toEqual(created.properties);

    // WHEN ttl changes THEN it is replaced, the old one deleted first
    const longer = await checked({ canvasToken, ttl: 7200 }, created.properties);
    const d = await host.diff(URN, created.id, created.properties, longer);
    expect(d).toEqual({ changes: "some", replaces: ["ttl"], deleteBeforeReplace: true });
    seen.push(JSON.stringify(d), JSON.stringify(sessionTokenKind.diff(created.properties as never, longer as never)));
    await host.delete(URN, created.id, created.properties);
    expect(await opens(token)).toBe(false);
    const replaced = await host.create(URN, longer);
    expect(await opens(replaced.properties.sessionToken as string)).toBe(true);
    expect(replaced.properties.expiresAt).toBe(new Date(clock.now().getTime() + 7_200_000).toISOString());
    seen.push(replaced.id, JSON.stringify(plainOutputs(replaced.properties)));

    await host.delete(URN, replaced.id, replaced.properties);
    expect(await opens(replaced.properties.sessionToken as string)).toBe(false);
  });

  it("GIVEN an expired token THEN the diff replaces it and a read says it is gone", async () => {
    // Minted two days ago with a one-minute lifetime: long expired by now.
    clock.set(Date.now() - 2 * 86_400_000);
    const inputs = await checked({ canvasToken, ttl: 60 });
    const created = await host.create(URN, inputs);
    expect(await opens(created.properties.sessionToken as string)).toBe(true);
    clock.set(new Date());
    expect(await opens(created.properties.sessionToken as string)).toBe(false);

    const d = await host.diff(URN, created.id, created.properties, inputs);
    expect(d).toEqual({ changes: "some", replaces: ["expiresAt"], deleteBeforeReplace: true });
    const plan = sessionTokenKind.diff(created.properties as never, inputs as never, { now: () => clock.now() });
    expect(plan.fields).toEqual([
      { field: "expiresAt", action: "replace", secret: false, from: created.properties.expiresAt, note: "expired" },
    ]);
    expect((await host.read(URN, created.id, created.properties)).id).toBe("");

    // The engine's order: delete the old (revoking, harmless now), then create the new one.
    await host.delete(URN, created.id, created.properties);
    const fresh = await host.create(URN, inputs);
    expect(await opens(fresh.properties.sessionToken as string)).toBe(true);
    await host.delete(URN, fresh.id, fresh.properties);
  });

  it("GIVEN a token minted by the emulator's clock WHEN that clock passes its expiry THEN the kind sees it expired", async () => {
    clock.set(new Date());
    const inputs = sessionTokenKind.check({ canvasToken, ttl: 30 }).inputs;
    const { state } = await sessionTokenKind.create({ client: fx.user }, inputs);
    const now = () => clock.now();
    expect(sessionTokenKind.diff(state, inputs, { now }).changes).toBe(false);
    clock.advance(30_000);
    expect(await opens(state.sessionToken)).toBe(false);
    expect(sessionTokenKind.diff(state, inputs, { now }).replaces).toEqual(["expiresAt"]);
    expect(await sessionTokenKind.read({ client: fx.user, now }, "id", state)).toBeUndefined();
    clock.set(new Date());
  });

  it("GIVEN the canvas token rotated THEN it is replaced; deleting the old one (already dead) is fine", async () => {
    clock.set(new Date());
    const created = await host.create(URN, await checked({ canvasToken }));
    const rotated = (await fx.user.sharing.share({ collectionId: canvasId, newToken: true })).share_token!;
    const next = await checked({ canvasToken: rotated }, created.properties);
    const d = await host.diff(URN, created.id, created.properties, next);
    expect(d).toEqual({ changes: "some", replaces: ["canvasToken"], deleteBeforeReplace: true });
    const plan = sessionTokenKind.diff(created.properties as never, next as never);
    expect(plan.fields[0]).toMatchObject({ field: "canvasToken", action: "replace", secret: true });
    seen.push(JSON.stringify(d), JSON.stringify(plan));
    await host.delete(URN, created.id, created.properties);
    canvasToken = rotated;
    const replaced = await host.create(URN, next);
    expect(await opens(replaced.properties.sessionToken as string)).toBe(true);
    await host.delete(URN, replaced.id, replaced.properties);
  });

  it("delete revokes every session token of the canvas token (the platform has no per-token revocation)", async () => {
    clock.set(new Date());
    const inputs = await checked({ canvasToken });
    const a = await host.create(URN, inputs);
    const b = await host.create(URN, inputs);
    await host.delete(URN, a.id, a.properties);
    expect(await opens(b.properties.sessionToken as string)).toBe(false);
  });

  it("reports bad inputs in check (ttl above 86400 names the value and the maximum), and nothing reaches the platform", async () => {
    const before = sessionRows();
    const r = await host.check(URN, {}, { __provider, canvasToken, ttl: 90000 });
    expect(r.failures).toEqual([
      {
        property: "ttl",
        reason:
          "Invalid ttl 90000. ttl is at most 86400 seconds (24 hours), the platform's longest session-token lifetime.",
      },
    ]);
    expect((await host.check(URN, {}, { __provider })).failures).toEqual([
      {
        property: "canvasToken",
        reason: "canvasToken is required: canvasToken is a canvas token (fc_...), e.g. share.shareToken.",
      },
    ]);
    const e = await failure(host.create(URN, { __provider, canvasToken, ttl: 90000 }));
    expect(e).toBeInstanceOf(HostError);
    seen.push(e.message, JSON.stringify(r.failures));
    expect(sessionRows()).toBe(before);
  });

  it("GIVEN a canvas token that does not exist THEN create fails without echoing it", async () => {
    const bogus = "fc_no_such_canvas_token_123";
    const e = await failure(host.create(URN, await checked({ canvasToken: bogus })));
    expect(e.message).toContain("canvasToken is not a current canvas token of your team");
    expect(e.message).not.toContain(bogus);
    expect(host.stderr).not.toContain(bogus);
  });

  it("no secret value appears in __provider, plain outputs, ids, diffs or errors", () => {
    expect(seen.length).toBeGreaterThan(5);
    const text = [__provider, ...seen, host.stderr].join("\n");
    expect(text).not.toContain(canvasToken);
    expect(text).not.toMatch(/fc_[A-Za-z0-9_-]{20,}/);
    expect(text).not.toMatch(/svc_sess_/);
    expect(text).not.toContain(fx.emu.tokens.user_token);
  });
});
