import { describe, expect, it } from "vitest";
import { canvasShareKind, type CanvasShareState } from "../../src/kinds/canvas-share/resource";
import { useEmulator } from "../helpers/emulator";
import { countingRequests } from "../helpers/saved-plan";

const state = (over: Partial<CanvasShareState> = {}): CanvasShareState => ({
  canvasId: "c1",
  shareToken: "fc_secret_token_value",
  shareClientId: "rt-a",
  mintedScope: "team",
  ...over,
});

describe("CanvasShare check", () => {
  it("GIVEN only a canvas THEN the instance and rotation are left to defaults", () => {
    expect(canvasShareKind.check({ canvasId: "c1" })).toEqual({ inputs: { canvasId: "c1" }, failures: [] });
  });

  it("accepts a string or a number as rotation", () => {
    expect(canvasShareKind.check({ canvasId: "c1", rotation: 3 }).failures).toEqual([]);
    expect(canvasShareKind.check({ canvasId: "c1", rotation: "2026-06" }).failures).toEqual([]);
  });

  it("GIVEN bad inputs THEN reports every one at once", () => {
    expect(
      canvasShareKind.check({ canvasId: "", clientId: "", rotation: true, accessScope: "world" }).failures,
    ).toEqual([
      {
        property: "canvasId",
        reason: 'Invalid canvasId "". canvasId must not be empty: give the id of the canvas to share (e.g. canvas.id).',
      },
      {
        property: "clientId",
        reason: 'Invalid clientId "". clientId must not be empty; omit it to use the preferred real-time instance.',
      },
      {
        property: "rotation",
        reason: "Invalid rotation true. rotation is any string or number; changing it rotates the share token.",
      },
      {
        property: "accessScope",
        reason: 'Invalid accessScope "world". accessScope is "team" or "public" (the canvas\'s access scope).',
      },
    ]);
    expect(canvasShareKind.check({ canvasId: "c1", token: "x" }).failures).toEqual([
      {
        property: "token",
        reason: 'Unknown input "token". Expected one of accessScope, canvasId, clientId, rotation.',
      },
    ]);
    expect(canvasShareKind.check({}).failures).toEqual([
      {
        property: "canvasId",
        reason: "canvasId is required: canvasId is the id of the canvas to share (e.g. canvas.id).",
      },
    ]);
  });

  it("the natural key is the canvas id", () => {
    expect(canvasShareKind.key({ canvasId: "c1" })).toBe("c1");
  });
});

describe("CanvasShare diff", () => {
  it("GIVEN the same inputs THEN nothing changes", () => {
    expect(canvasShareKind.diff(state({ rotation: 1 }), { canvasId: "c1", rotation: 1 })).toEqual({
      changes: false,
      replaces: [],
      stables: ["accessScope", "canvasId", "clientId", "rotation"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });

  it("GIVEN another canvas THEN it replaces, the new share first (two canvases can both be shared)", () => {
    const d = canvasShareKind.diff(state(), { canvasId: "c2" });
    expect(d.replaces).toEqual(["canvasId"]);
    expect(d.deleteBeforeReplace).toBe(false);
  });

  it("GIVEN another instance THEN it updates in place", () => {
    const d = canvasShareKind.diff(state(), { canvasId: "c1", clientId: "rt-b" });
    expect(d.fields).toEqual([{ field: "clientId", action: "update", secret: false, from: "rt-a", to: "rt-b" }]);
    expect(d.replaces).toEqual([]);
  });

  it("GIVEN a pinned instance that is the one in use THEN it is stable", () => {
    expect(canvasShareKind.diff(state(), { canvasId: "c1", clientId: "rt-a" }).changes).toBe(false);
  });

  it("GIVEN a pin removed THEN it updates (to the preferred instance)", () => {
    const d = canvasShareKind.diff(state({ clientId: "rt-a" }), { canvasId: "c1" });
    expect(d.fields).toEqual([
      { field: "clientId", action: "update", secret: false, from: "rt-a", to: "(preferred instance)" },
    ]);
  });

  it("GIVEN a new rotation value THEN it updates in place by rotating the token, and says so", () => {
    const d = canvasShareKind.diff(state({ rotation: 1 }), { canvasId: "c1", rotation: 2 });
    expect(d.replaces).toEqual([]);
    expect(d.fields).toEqual([
      {
        field: "rotation",
        action: "update",
        secret: false,
        from: 1,
        to: 2,
        note: "rotates the share token: old links and the session tokens minted for them stop working",
      },
    ]);
  });

  it("GIVEN a scope other than the one the token was minted under THEN the diff says a rotation is required", () => {
    const d = canvasShareKind.diff(state({ mintedScope: "team" }), { canvasId: "c1", accessScope: "public" });
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual([]);
    expect(d.fields).toEqual([
      {
        field: "accessScope",
        action: "update",
        secret: false,
        from: "team",
        to: "public",
        note: 'the share token was minted under scope "team"; a scope change on a shared canvas needs a rotation, which rotates the share token: old links and the session tokens minted for them stop working',
      },
    ]);
  });

  it("GIVEN the scope the token was minted under THEN it is stable", () => {
    expect(
      canvasShareKind.diff(state({ mintedScope: "public" }), { canvasId: "c1", accessScope: "public" }).changes,
    ).toBe(false);
  });

  it("never shows the share token", () => {
    const d = canvasShareKind.diff(state(), { canvasId: "c2", clientId: "rt-b", rotation: "x", accessScope: "public" });
    expect(JSON.stringify(d)).not.toContain("fc_secret_token_value");
  });
});

describe("GIVEN a shared canvas with a session token minted for its share token", () => {
  const fx = useEmulator();

  it("WHEN the share is deleted THEN its session tokens are revoked (DELETE /session-token/…) before it is unshared", async () => {
    const c = await fx.user.canvases.create({ name: "share_revoke" });
    const shared = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    await fx.user.sessionTokens.create(shared.share_token!);
    const { byMethod } = await countingRequests(() =>
      canvasShareKind.delete({ client: fx.user }, c.id, state({ canvasId: c.id })),
    );
    expect(byMethod.DELETE).toBe(1);
    expect((await fx.user.canvases.getById(c.id)).share_token ?? null).toBeNull();
    // Already unshared: nothing left to revoke, and no error.
    const again = await countingRequests(() =>
      canvasShareKind.delete({ client: fx.user }, c.id, state({ canvasId: c.id })),
    );
    expect(again.byMethod.DELETE).toBeUndefined();
  });
});
