import { describe, expect, it } from "vitest";
import { secretFingerprint } from "../../src/kinds/field-diff";
import { sessionTokenKind, type SessionTokenState } from "../../src/kinds/session-token/resource";

const CANVAS_TOKEN = "fc_canvas_token_secret";
const NOW = new Date("2026-01-05T06:00:00Z");
const now = () => NOW;

const state = (over: Partial<SessionTokenState> = {}): SessionTokenState => ({
  canvasToken: CANVAS_TOKEN,
  canvasTokenFingerprint: secretFingerprint(CANVAS_TOKEN, "SessionToken", "canvasToken")!,
  ttl: 3600,
  sessionToken: "svc_sess_secret",
  expiresAt: "2026-01-05T07:00:00.000Z",
  ...over,
});

describe("SessionToken check", () => {
  it("GIVEN a canvas token THEN ttl defaults to 3600", () => {
    expect(sessionTokenKind.check({ canvasToken: CANVAS_TOKEN })).toEqual({
      inputs: { canvasToken: CANVAS_TOKEN, ttl: 3600 },
      failures: [],
    });
  });

  it("accepts ttl up to 86400", () => {
    expect(sessionTokenKind.check({ canvasToken: CANVAS_TOKEN, ttl: 86400 }).failures).toEqual([]);
  });

  it("GIVEN ttl above 86400 THEN names the value and the maximum", () => {
    expect(sessionTokenKind.check({ canvasToken: CANVAS_TOKEN, ttl: 90000 }).failures).toEqual([
      {
        property: "ttl",
        reason:
          "Invalid ttl 90000. ttl is at most 86400 seconds (24 hours), the platform's longest session-token lifetime.",
      },
    ]);
  });

  it("GIVEN bad inputs THEN reports each, never showing the canvas token", () => {
    expect(sessionTokenKind.check({ canvasToken: "", ttl: 0 }).failures).toEqual([
      {
        property: "canvasToken",
        reason:
          "Invalid canvasToken a secret value. canvasToken must not be empty: give a canvas token, e.g. share.shareToken.",
      },
      { property: "ttl", reason: "Invalid ttl 0. ttl is at least 1 second." },
    ]);
    expect(sessionTokenKind.check({ ttl: 1.5 }).failures).toEqual([
      {
        property: "canvasToken",
        reason: "canvasToken is required: canvasToken is a canvas token (fc_...), e.g. share.shareToken.",
      },
      { property: "ttl", reason: "Invalid ttl 1.5. ttl is a whole number of seconds from 1 to 86400." },
    ]);
    const r = sessionTokenKind.check({ canvasToken: 12345678 });
    expect(JSON.stringify(r.failures)).not.toContain("12345678");
  });

  it("the natural key is a fingerprint of the canvas token, not the token", () => {
    const key = sessionTokenKind.key({ canvasToken: CANVAS_TOKEN, ttl: 3600 });
    expect(key).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(key).not.toContain(CANVAS_TOKEN);
  });
});

describe("SessionToken diff", () => {
  it("GIVEN the same inputs before expiry THEN nothing changes", () => {
    expect(sessionTokenKind.diff(state(), { canvasToken: CANVAS_TOKEN, ttl: 3600 }, { now })).toEqual({
      changes: false,
      replaces: [],
      stables: ["canvasToken", "ttl"],
      deleteBeforeReplace: false,
      fields: [],
    });
  });

  it("GIVEN another canvas token THEN it replaces, old first, showing fingerprints only", () => {
    const d = sessionTokenKind.diff(state(), { canvasToken: "fc_other_secret", ttl: 3600 }, { now });
    expect(d.replaces).toEqual(["canvasToken"]);
    expect(d.deleteBeforeReplace).toBe(true);
    expect(d.fields[0]).toMatchObject({ field: "canvasToken", action: "replace", secret: true });
    expect(d.fields[0].fromFingerprint).toMatch(/^sha256:/);
    expect(JSON.stringify(d)).not.toContain("fc_other_secret");
    expect(JSON.stringify(d)).not.toContain(CANVAS_TOKEN);
  });

  it("GIVEN another ttl THEN it replaces, old first (delete revokes every session token of the canvas token)", () => {
    const d = sessionTokenKind.diff(state(), { canvasToken: CANVAS_TOKEN, ttl: 60 }, { now });
    expect(d.replaces).toEqual(["ttl"]);
    expect(d.deleteBeforeReplace).toBe(true);
    expect(d.fields).toEqual([{ field: "ttl", action: "replace", secret: false, from: 3600, to: 60 }]);
  });

  it('GIVEN an expired token THEN it replaces, with the note "expired"', () => {
    const at = () => new Date("2026-01-05T07:00:00.000Z");
    const d = sessionTokenKind.diff(state(), { canvasToken: CANVAS_TOKEN, ttl: 3600 }, { now: at });
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual(["expiresAt"]);
    expect(d.deleteBeforeReplace).toBe(true);
    expect(d.fields).toEqual([
      { field: "expiresAt", action: "replace", secret: false, from: "2026-01-05T07:00:00.000Z", note: "expired" },
    ]);
  });

  it("GIVEN no clock THEN the current time is used", () => {
    expect(
      sessionTokenKind.diff(state({ expiresAt: "2000-01-01T00:00:00Z" }), { canvasToken: CANVAS_TOKEN, ttl: 3600 })
        .replaces,
    ).toEqual(["expiresAt"]);
    expect(
      sessionTokenKind.diff(state({ expiresAt: "2999-01-01T00:00:00Z" }), { canvasToken: CANVAS_TOKEN, ttl: 3600 })
        .changes,
    ).toBe(false);
  });
});

describe("SessionToken read", () => {
  const ctx = { client: undefined as never, now };
  // Whether the platform still honours a valid one is asked of it (test/provider/lifecycle.test.ts).
  it("reads an expired token as gone without asking the platform", async () => {
    expect(await sessionTokenKind.read(ctx, "id", state({ expiresAt: NOW.toISOString() }))).toBeUndefined();
  });

  it("refuses a read from an id alone, saying why", async () => {
    await expect(sessionTokenKind.read(ctx, "id", {} as never)).rejects.toThrow(
      /cannot be read from its id alone: the platform neither lists nor returns session tokens/,
    );
  });

  it("cannot list session tokens", async () => {
    expect(await sessionTokenKind.observeAll(ctx)).toEqual([]);
  });
});
