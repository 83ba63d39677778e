import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors";
import { failure, useEmulator } from "../helpers/emulator";

const fx = useEmulator();

function recordingClient(opts: Record<string, unknown> = {}) {
  const retries: { attempt: number; delayMs: number; reason: string; path: string }[] = [];
  const client = fx.client({ token: fx.emu.tokens.user_token, onRetry: (r) => retries.push(r), ...opts });
  return { client, retries };
}

describe("transport retries", () => {
  it("GIVEN one 503 WHEN a GET is sent THEN it is retried and succeeds", async () => {
    fx.emu.setFaults("503=1,count=1,paths=/user/self");
    const { client, retries } = recordingClient();
    const me = await client.account.getSelf();
    expect(me.handle).toBe("dana");
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, reason: "status 503", path: "/user/self" })]);
    expect(fx.emu.faults!.count).toBe(1);
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a 429 with Retry-After: 1 WHEN a GET is sent THEN it waits the server's delay, not its own back-off", async () => {
    fx.emu.setFaults("429=1,count=1,retry-after=1,paths=/user/self");
    const { client, retries } = recordingClient();
    const started = Date.now();
    await client.account.getSelf();
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: "status 429", delayMs: 1000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a reset connection WHEN a GET is sent THEN it is retried", async () => {
    fx.emu.setFaults("reset=1,count=1,methods=GET");
    const { client, retries } = recordingClient();
    await expect(client.account.getSelf()).resolves.toMatchObject({ handle: "dana" });
    expect(retries).toHaveLength(1);
    expect(retries[0].reason).toBe("network");
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a 503 WHEN a POST create is sent THEN it is not retried and the error says 503", async () => {
    fx.emu.setFaults("503=1,count=1,methods=POST");
    const { client, retries } = recordingClient();
    const e = await failure(client.transport.send("POST /collection/new", { body: { json: { name: "never_twice" } } }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 503,
      code: "server_error",
      attempts: 1,
      method: "POST",
      path: "/collection/new",
    });
    expect(retries).toHaveLength(0);
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a lost response WHEN a POST is sent THEN the client reports a network error once, and the change was committed", async () => {
    fx.emu.setFaults("lost=1,count=1,methods=POST,paths=/user/self");
    const { client, retries } = recordingClient();
    const e = await failure(client.transport.send("POST /user/self", { body: { json: { name: "Dana Lost" } } }));
    expect(e).toMatchObject({ code: "network", status: 0, attempts: 1 });
    expect(retries).toHaveLength(0);
    fx.emu.setFaults(undefined);
    expect((await client.account.getSelf()).name).toBe("Dana Lost");
    await client.account.updateSelf({ name: "Dana Demo" });
  });

  it("GIVEN a server that keeps failing WHEN a GET is sent THEN it stops after maxAttempts", async () => {
    fx.emu.setFaults("502=1,paths=/user/self");
    const { client, retries } = recordingClient({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
    const e = await failure(client.account.getSelf());
    expect(e).toMatchObject({ status: 502, code: "server_error", attempts: 3 });
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(fx.emu.faults!.count).toBe(3);
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a slow server WHEN the per-request time-out passes THEN the error is a time-out", async () => {
    fx.emu.setFaults("latency=400,paths=/user/self");
    const { client } = recordingClient({ timeoutMs: 100, retry: { maxAttempts: 1 } });
    const e = await failure(client.account.getSelf());
    expect(e).toMatchObject({ code: "timeout", status: 0, method: "GET", path: "/user/self" });
    expect(e.message).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+ within 100 ms/);
    fx.emu.setFaults(undefined);
  });

  it("GIVEN a server that trickles its answer WHEN the time-out passes mid-body THEN the error is a time-out", async () => {
    await withServer(
      (req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"name": "');
        const drip = setInterval(() => res.write("a"), 20);
        req.socket.on("close", () => clearInterval(drip));
      },
      async (baseUrl) => {
        const client = fx.client({ baseUrl, token: "t", timeoutMs: 150, retry: { maxAttempts: 1 } });
        const started = performance.now();
        const e = await failure(client.account.getSelf());
        expect(e).toMatchObject({ code: "timeout", method: "GET", path: "/user/self" });
        expect(performance.now() - started).toBeLessThan(1000);
      },
    );
  });

  it("GIVEN one connection held by a slow answer WHEN a second request's time-out passes while it waits THEN it fails as a time-out and is never sent", async () => {
    const seen: string[] = [];
    await withServer(
      (req, res) => {
        seen.push(req.url!);
        setTimeout(() => res.end('{"name": "slow"}'), 400);
      },
      async (baseUrl) => {
        const client = fx.client({ baseUrl, token: "t", connections: 1, timeoutMs: 1000, retry: { maxAttempts: 1 } });
        const slow = client.transport.send("GET /user/self");
        const queued = failure(
          client.transport.send("POST /collection/new", { body: { json: { name: "x" } }, timeoutMs: 100 }),
        );
        expect(await queued).toMatchObject({ code: "timeout", method: "POST" });
        await slow;
        await new Promise((r) => setTimeout(r, 50));
        expect(seen).toEqual(["/v1/user/self"]);
      },
    );
  });

  it("GIVEN nothing listening WHEN a POST is sent THEN the refused connection is retried (nothing was sent) and then reported", async () => {
    const dead = fx.client({
      baseUrl: "http://127.0.0.1:9/v1",
      token: "t0ken-value-123",
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const e = await failure(dead.transport.send("POST /collection/new", { body: { json: { name: "x" } } }));
    expect(e).toMatchObject({ code: "network", attempts: 2 });
    // The message names where the connection went (the address to check), without the path or the token.
    expect(e.message).toContain("connection to http://127.0.0.1:9 refused (ECONNREFUSED)");
    expect(JSON.stringify(e) + e.message + String(e.cause?.message)).not.toContain("t0ken-value-123");
  });
});

describe("the connection pool", () => {
  it("GIVEN the installed undici WHEN a client is made THEN its pool is undici's own Agent, loaded without the rest of the package", async () => {
    const { Agent } = await import("undici");
    const client = fx.client({ token: fx.emu.tokens.user_token });
    expect((client.transport as unknown as { dispatcher: unknown }).dispatcher).toBeInstanceOf(Agent);
    expect(require("undici/lib/dispatcher/agent")).toBe(Agent);
  });
});

describe("secrets never reach errors", () => {
  it("GIVEN a canvas token in the path, a passcode and a user token WHEN the call fails THEN none of them is in the error", async () => {
    const canvasToken = "fc_demo/very_secret_canvas_token_123";
    const passcode = "pass-code-XYZ-9876";
    const client = fx.client({ token: fx.emu.tokens.user_token });
    const e = await failure(
      client.transport.send("GET /session-token/by-access-token/{canvas_token}/nope", {
        params: { canvas_token: canvasToken },
        secretParams: ["canvas_token"],
        auth: { passcode },
      }),
    );
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(404);
    expect(e.path).toBe("/session-token/by-access-token/{canvas_token}/nope");
    const everything = [e.message, e.path, JSON.stringify(e), JSON.stringify(e.detail), String(e.stack)].join("\n");
    for (const secret of [canvasToken, encodeURIComponent(canvasToken), passcode, fx.emu.tokens.user_token]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("GIVEN a server that echoes a secret value WHEN the error is built THEN the value is scrubbed from message and detail", () => {
    const e = new ApiError({
      code: "validation_failed",
      status: 422,
      method: "POST",
      path: "/secrets/self/user",
      detail: [{ loc: ["body", "value"], msg: "bad value s3cr3t-value-42", type: "value_error" }],
      secrets: ["s3cr3t-value-42"],
    });
    expect(JSON.stringify(e) + e.message).not.toContain("s3cr3t-value-42");
    expect(e.detail).toEqual([{ loc: ["body", "value"], msg: "bad value [REDACTED]", type: "value_error" }]);
  });

  it("GIVEN a secret query parameter WHEN the call fails THEN the error path shows only its name", async () => {
    const client = fx.client({});
    const e = await failure(
      client.transport.send("GET /collection/by-token/{canvas_token}/missing", {
        params: { canvas_token: "fc_abcdefgh" },
        query: { svc_session_token: "sess-0123456789" },
        secretParams: ["canvas_token"],
        secretQuery: ["svc_session_token"],
        auth: "none",
      }),
    );
    expect(e.path).toBe("/collection/by-token/{canvas_token}/missing?svc_session_token=%7Bsvc_session_token%7D");
    expect(JSON.stringify(e) + e.message).not.toMatch(/fc_abcdefgh|sess-0123456789/);
  });
});

describe("scopes common to every endpoint (spec 5)", () => {
  it("answers 401 for a malformed Authorization header and for an unknown token", async () => {
    const res = await fetch(`${fx.emu.baseUrl}/user/self`, { headers: { authorization: "Token abc" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: "Invalid authorization header" });
    const unknown = fx.client({ token: "svc_pat_not-a-real-token" });
    expect(await failure(unknown.account.getSelf())).toMatchObject({
      status: 401,
      detail: "Invalid or expired credentials",
    });
  });

  it("refuses a user token presented as a service token, and the reverse", async () => {
    const swapped = fx.client({ serviceToken: fx.emu.tokens.user_token });
    expect(await failure(swapped.account.getSelf())).toMatchObject({ status: 401 });
  });

  it("answers 404 for an unknown path and 405 for a known path with another method", async () => {
    expect((await fetch(`${fx.emu.baseUrl}/no/such/thing`)).status).toBe(404);
    const res = await fetch(`${fx.emu.baseUrl}/user/self`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ detail: "Method Not Allowed" });
  });
});

/** Runs `body` with a plain HTTP server answering with `handle`, at `http://127.0.0.1:<port>/v1`. */
async function withServer(
  handle: Parameters<typeof createServer>[1],
  body: (baseUrl: string) => Promise<void>,
): Promise<void> {
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}
