import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "../../../src/api/client";
import { AnswerTooLarge } from "../../../src/api/files";
import { describe, expect, it } from "vitest";
import { failure, useEmulator } from "../../helpers/emulator";
import {
  LockLostError,
  LockMismatchError,
  LockedError,
  StateFileError,
} from "../../../src/reconcile/state/lock-errors";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import { thisProcess } from "../../../src/reconcile/state/lock-file";
import type { Inventory } from "../../../src/model/inventory";
import type { LockInfo } from "../../../src/reconcile/state/types";

const fx = useEmulator();
const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => () => new Date(T0.getTime() + ms);
const lockOpts = (owner: string, now = at(0)) => ({ owner, operation: "apply", ttlMs: 60_000, now });

let n = 0;
/** A fresh state prefix per test, so tests do not see each other's locks. */
function fresh(settleMs = 20) {
  const url = `s3://demo-bucket/state/listings/t${++n}`;
  const open = () =>
    openStateBackend(
      { kind: "remote", url },
      { root: "/unused", client: fx.user, project: "listings", target: "prod", settleMs },
    );
  return { url, open, backend: open() };
}

const inventory: Inventory = {
  version: 1,
  project: "listings",
  target: "prod",
  updatedAt: "2026-03-01T10:00:00.000Z",
  objects: {
    "share.sales": {
      kind: "CanvasShare",
      id: "s-1",
      key: "sales",
      createdAt: "2026-03-01T10:00:00.000Z",
      appliedAt: "2026-03-01T10:00:00.000Z",
      kept: { scope: "team" },
    },
    "canvas.sales": {
      kind: "Canvas",
      id: "c-1",
      key: "sales",
      createdAt: "2026-03-01T10:00:00.000Z",
      appliedAt: "2026-03-01T10:00:00.000Z",
    },
  },
};

describe("the remote state backend's inventory", () => {
  it("is undefined before anything was applied, and reads back what was written to <url>/inventory.json", async () => {
    const { url, open, backend } = fresh();
    expect(backend.location).toBe(url);
    expect(await backend.readInventory()).toBeUndefined();
    await backend.writeInventory(inventory);
    expect(await open().readInventory()).toEqual(inventory);
    expect(await fx.user.files.list(`${url}/`)).toEqual([`${url}/inventory.json`]);
    const text = (await fx.user.files.download(`${url}/inventory.json`)).toString();
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys(JSON.parse(text).objects)).toEqual(["canvas.sales", "share.sales"]);
  });

  it("names the object's URL when it is corrupt", async () => {
    const { url, backend } = fresh();
    await fx.user.files.upload(`${url}/inventory.json`, Buffer.from('{"version": 1'));
    const e = await failure(backend.readInventory());
    expect(e).toBeInstanceOf(StateFileError);
    expect(e.message).toContain(`Inventory file ${url}/inventory.json is not valid JSON`);
  });

  it("accepts a trailing slash in the location", async () => {
    const { url } = fresh();
    const b = openStateBackend(
      { kind: "remote", url: `${url}/` },
      { root: "/unused", client: fx.user, project: "listings", target: "prod" },
    );
    expect(b.location).toBe(url);
  });
});

describe("the remote state backend's lock", () => {
  it("is held by the first run; a second run is told who holds it and how to force it", async () => {
    const { url, open, backend } = fresh();
    const lease = await backend.acquireLock(lockOpts("dana@host pid 123"));
    expect(await open().readLock()).toEqual(lease.info);
    expect(await fx.user.files.list(`${url}/`)).toEqual([`${url}/lock.json`]);
    const e = await failure(open().acquireLock(lockOpts("erin", at(1000))));
    expect(e).toBeInstanceOf(LockedError);
    expect(e.message).toBe(
      `State ${url} is locked by dana@host pid 123 (apply, since 2026-03-01T10:00:00.000Z, lease until 2026-03-01T10:01:00.000Z). ` +
        `Wait for it to finish, or run with --force-unlock ${lease.info.id} if that run is gone.`,
    );
  });

  it("goes to exactly one of two runs that both found it free, and the loser names the winner", async () => {
    const { open } = fresh(150);
    const results = await Promise.allSettled([open().acquireLock(lockOpts("a")), open().acquireLock(lockOpts("b"))]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toBeInstanceOf(LockedError);
    const winner = (won[0] as PromiseFulfilledResult<{ info: { id: string } }>).value.info.id;
    expect(lost[0].reason.message).toContain(`--force-unlock ${winner}`);
  });

  it("is taken over once its lease expired, and the old holder learns it when it renews", async () => {
    const { open, backend } = fresh();
    const old = await backend.acquireLock(lockOpts("dana"));
    const next = await open().acquireLock(lockOpts("erin", at(61_000)));
    expect(await backend.readLock()).toEqual(next.info);
    expect(await failure(old.renew())).toBeInstanceOf(LockLostError);
    await next.renew();
  });

  it("is released only by its holder", async () => {
    const { url, open, backend } = fresh();
    const old = await backend.acquireLock(lockOpts("dana"));
    const next = await open().acquireLock(lockOpts("erin", at(61_000)));
    await old.release();
    expect(await backend.readLock()).toEqual(next.info);
    await next.release();
    expect(await backend.readLock()).toBeUndefined();
    expect(await fx.user.files.list(`${url}/`)).toEqual([]);
  });

  it("is force-unlocked only by its own id", async () => {
    const { backend } = fresh();
    const lease = await backend.acquireLock(lockOpts("dana"));
    const e = await failure(backend.forceUnlock("feedfacefeedface"));
    expect(e).toBeInstanceOf(LockMismatchError);
    expect(e.message).toContain(`locked with id ${lease.info.id} by dana`);
    expect(await backend.forceUnlock(lease.info.id)).toEqual(lease.info);
    expect(await backend.readLock()).toBeUndefined();
  });
});

describe("opening a state backend", () => {
  it("needs a client for a remote location, and says so", () => {
    expect(() =>
      openStateBackend(
        { kind: "remote", url: "s3://acme-iac/state/listings/prod" },
        { root: "/r", project: "listings", target: "prod" },
      ),
    ).toThrow(
      "The state location s3://acme-iac/state/listings/prod is remote, so it needs platform credentials to read and write it, but no client was given.",
    );
  });

  it("refuses a remote location that is not s3:// or gs://", () => {
    expect(() =>
      openStateBackend(
        { kind: "remote", url: "https://acme/state" },
        { root: "/r", client: fx.user, project: "listings", target: "prod" },
      ),
    ).toThrow(
      'Invalid remote state location "https://acme/state". It must be an s3:// or gs:// URL such as "s3://my-bucket/state/listings/prod".',
    );
  });
});

describe("GIVEN a remote lock whose holder ran on this host and has exited", () => {
  it("THEN the lease rule still holds: another machine cannot tell whether that run is alive", async () => {
    const { url, open } = fresh();
    const pid = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const held: LockInfo = {
      id: "0123456789abcdef0123456789abcdef",
      owner: "ci pid",
      operation: "apply",
      acquiredAt: T0.toISOString(),
      expiresAt: new Date(T0.getTime() + 60_000).toISOString(),
      process: { ...thisProcess(), pid },
    };
    await fx.user.files.upload(`${url}/lock.json`, Buffer.from(JSON.stringify(held)));
    const e = await failure(open().acquireLock(lockOpts("erin", at(1000))));
    expect(e).toBeInstanceOf(LockedError);
    expect(e.holder).toEqual(held);
  });
});

describe("GIVEN a state document larger than its reader's limit", () => {
  it("THEN readDocument refuses it naming the limit, and reads it under a larger one", async () => {
    const { url, backend } = fresh();
    const text = "x".repeat(200_000);
    await backend.writeDocument("history/index.json", text);
    const e = await failure(backend.readDocument("history/index.json", 1000));
    expect(e.code).toBe("state_unreadable");
    expect(e.message).toBe(
      `Cannot read the state: ${url}/history/index.json holds more than the limit of 1000 bytes for it.`,
    );
    expect(await backend.readDocument("history/index.json", 1_000_000)).toBe(text);
  });

  it("THEN a download that streams past its limit without a length is stopped there, not read to the end", async () => {
    // A hostile storage host: the platform's redirect leads to an answer of 400 chunks of 64 KiB, no Content-Length.
    let sent = 0;
    let closed!: () => void;
    const ended = new Promise<void>((r) => (closed = r));
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/v1/files/get")) {
        res.writeHead(307, { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/blob` });
        return res.end();
      }
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const more = () => {
        if (res.destroyed || sent >= 400) return void (res.end(), closed());
        sent++;
        res.write(chunk, () => setImmediate(more));
      };
      res.on("close", closed);
      more();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const client = createClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      token: "t",
    });
    try {
      const e = await failure(client.files.download("s3://b/big", { maxBytes: 1024 * 1024 }));
      expect(e).toBeInstanceOf(AnswerTooLarge);
      expect(e.message).toContain("larger than the limit of 1048576 bytes");
      await ended;
      expect(sent).toBeLessThan(400);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
