import { describe, expect, it } from "vitest";
import { newId } from "../../src/emulator/catalog";
import { ManualClock } from "../../src/emulator/clock";
import { hashToken } from "../../src/emulator/keys";
import { failure, useEmulator } from "../helpers/emulator";

const clock = new ManualClock("2026-01-05T06:00:00Z");
const fx = useEmulator({ clock });

let seq = 0;
/** Inserts a canvas straight into the store (independent of the canvas endpoints). */
function makeCanvas(o: { env?: string; owner?: string; scope?: "team" | "public"; name?: string } = {}): {
  id: string;
  name: string;
} {
  const id = newId();
  const name = o.name ?? `session_canvas_${++seq}`;
  const now = clock.now().toISOString();
  fx.emu.env.store.run(
    "INSERT INTO canvases (id, env_id, owner_user_id, name, access_scope, created_at, last_updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
    id,
    o.env ?? "env-demo",
    o.owner ?? "user-demo-1",
    name,
    o.scope ?? "team",
    now,
    now,
  );
  return { id, name };
}

/** A shared team canvas and its token. */
async function sharedTeamCanvas(name?: string) {
  const c = makeCanvas({ name });
  const shared = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
  return { ...c, token: shared.share_token! };
}

function expectScrubbed(e: any, ...secrets: string[]) {
  for (const s of secrets) {
    for (const text of [e.path, e.message, JSON.stringify(e)]) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(encodeURIComponent(s));
    }
  }
}

describe("POST /session-token/by-access-token/{canvas_token} (4.1)", () => {
  it("GIVEN a shared team canvas WHEN a session token is minted THEN it expires after the default 3600 s and opens the canvas", async () => {
    const c = await sharedTeamCanvas();
    const s = await fx.user.sessionTokens.create(c.token);
    expect(s.token).toBe(c.token);
    expect(s.session_token).toMatch(/^svc_sess_/);
    expect(s.expires_at).toBe(new Date(clock.now().getTime() + 3600_000).toISOString());
    expect((await fx.anon.sharing.getByToken(c.token, { sessionToken: s.session_token })).id).toBe(c.id);
  });

  it("stores session tokens only as hashes", async () => {
    const c = await sharedTeamCanvas();
    const s = await fx.user.sessionTokens.create(c.token);
    const rows = fx.emu.env.store.all<{ token_hash: string }>(
      "SELECT token_hash FROM session_tokens WHERE canvas_id = ?",
      c.id,
    );
    expect(rows).toEqual([{ token_hash: hashToken(s.session_token) }]);
  });

  it("GIVEN a ttl WHEN the clock passes expires_at THEN the session token stops working (401)", async () => {
    const c = await sharedTeamCanvas();
    const s = await fx.service.sessionTokens.create(c.token, { ttl: 60 });
    expect(s.expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    clock.advance(59_000);
    expect((await fx.anon.sharing.getByToken(c.token, { sessionToken: s.session_token })).id).toBe(c.id);
    clock.advance(1_000);
    const e = await failure(fx.anon.sharing.getByToken(c.token, { sessionToken: s.session_token }));
    expect(e).toMatchObject({
      status: 401,
      code: "unauthorized",
      detail: "The session token is invalid, expired or revoked",
    });
    expectScrubbed(e, c.token, s.session_token);
  });

  it("accepts the largest ttl 86400 and refuses 86401 and 0 with 422 on [body, ttl]", async () => {
    const c = await sharedTeamCanvas();
    const max = await fx.user.sessionTokens.create(c.token, { ttl: 86_400 });
    expect(max.expires_at).toBe(new Date(clock.now().getTime() + 86_400_000).toISOString());
    const tooLong = await failure(fx.user.sessionTokens.create(c.token, { ttl: 86_401 }));
    expect(tooLong).toMatchObject({ status: 422, code: "validation_failed" });
    expect(tooLong.detail).toEqual([
      { loc: ["body", "ttl"], msg: "Input should be less than or equal to 86400", type: "less_than_equal" },
    ]);
    expectScrubbed(tooLong, c.token);
    const zero = await failure(fx.user.sessionTokens.create(c.token, { ttl: 0 }));
    expect(zero.detail).toEqual([
      { loc: ["body", "ttl"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" },
    ]);
  });

  it("GIVEN an unknown canvas token or another team's WHEN minting THEN 404 without the token in the error", async () => {
    const unknown = "fc_noSuchCanvasTokenHere";
    const e = await failure(fx.user.sessionTokens.create(unknown));
    expect(e).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
      path: "/session-token/by-access-token/{canvas_token}",
    });
    expectScrubbed(e, unknown);
    const c = await sharedTeamCanvas();
    const theirs = await failure(fx.other.sessionTokens.create(c.token));
    expect(theirs).toMatchObject({ status: 404, detail: "Canvas token not found" });
    expectScrubbed(theirs, c.token);
    expect(await failure(fx.other.sessionTokens.revokeAll(c.token))).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
    });
  });

  it("GIVEN no credentials WHEN minting or revoking THEN 401", async () => {
    const c = await sharedTeamCanvas();
    expect(await failure(fx.anon.sessionTokens.create(c.token))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
    expect(await failure(fx.anon.sessionTokens.revokeAll(c.token))).toMatchObject({
      status: 401,
      detail: "Not authenticated",
    });
  });

  it("GIVEN a rotated canvas token THEN old session tokens stop working and the old token can no longer mint (404)", async () => {
    const c = await sharedTeamCanvas();
    const s = await fx.user.sessionTokens.create(c.token);
    const rotated = await fx.user.sharing.share({ collectionId: c.id, newToken: true });
    const newToken = rotated.share_token!;
    expect(await failure(fx.anon.sharing.getByToken(newToken, { sessionToken: s.session_token }))).toMatchObject({
      status: 401,
      detail: "The session token is invalid, expired or revoked",
    });
    expect(await failure(fx.user.sessionTokens.create(c.token))).toMatchObject({
      status: 404,
      detail: "Canvas token not found",
    });
    const fresh = await fx.user.sessionTokens.create(newToken);
    expect((await fx.anon.sharing.getByToken(newToken, { sessionToken: fresh.session_token })).id).toBe(c.id);
  });

  it("GIVEN an unshared canvas THEN its session tokens are revoked and stay dead after sharing again", async () => {
    const c = await sharedTeamCanvas();
    const s = await fx.user.sessionTokens.create(c.token);
    await fx.user.sharing.unshare(c.id);
    expect(fx.emu.env.store.all("SELECT token_hash FROM session_tokens WHERE canvas_id = ?", c.id)).toEqual([]);
    const again = await fx.user.sharing.share({ collectionId: c.id, clientId: "rt-demo-primary" });
    expect(
      await failure(fx.anon.sharing.getByToken(again.share_token!, { sessionToken: s.session_token })),
    ).toMatchObject({ status: 401 });
  });

  it("GIVEN a name-based token WHEN minting THEN the session token opens the canvas through either token", async () => {
    const c = await sharedTeamCanvas("named_team_canvas");
    const named = "fc_demo/named_team_canvas";
    const s = await fx.user.sessionTokens.create(named);
    expect(s.token).toBe(named);
    expect((await fx.anon.sharing.getByToken(named, { sessionToken: s.session_token })).id).toBe(c.id);
    expect((await fx.anon.sharing.getByToken(c.token, { sessionToken: s.session_token })).id).toBe(c.id);
  });
});

describe("DELETE /session-token/by-access-token/{canvas_token} (4.1)", () => {
  it("GIVEN several session tokens WHEN revoked THEN 204 and none of them works any more, while the canvas stays shared", async () => {
    const c = await sharedTeamCanvas();
    const a = await fx.user.sessionTokens.create(c.token);
    const b = await fx.service.sessionTokens.create(c.token, { ttl: 7200 });
    const other = await sharedTeamCanvas();
    const keep = await fx.user.sessionTokens.create(other.token);
    await fx.service.sessionTokens.revokeAll(c.token);
    for (const s of [a, b]) {
      const e = await failure(fx.anon.sharing.getByToken(c.token, { sessionToken: s.session_token }));
      expect(e).toMatchObject({ status: 401, detail: "The session token is invalid, expired or revoked" });
      expectScrubbed(e, c.token, s.session_token);
    }
    expect(
      fx.emu.env.store.get<{ share_token: string }>("SELECT share_token FROM canvases WHERE id = ?", c.id)!.share_token,
    ).toBe(c.token);
    // Another canvas's session token is untouched.
    expect((await fx.anon.sharing.getByToken(other.token, { sessionToken: keep.session_token })).id).toBe(other.id);
    // Minting again works after a revoke.
    const again = await fx.user.sessionTokens.create(c.token);
    expect((await fx.anon.sharing.getByToken(c.token, { sessionToken: again.session_token })).id).toBe(c.id);
  });

  it("GIVEN an unknown canvas token WHEN revoking THEN 404 without the token in the error", async () => {
    const unknown = "fc_notARealTokenToRevoke";
    const e = await failure(fx.user.sessionTokens.revokeAll(unknown));
    expect(e).toMatchObject({ status: 404, detail: "Canvas token not found", method: "DELETE" });
    expectScrubbed(e, unknown);
  });
});
