import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fingerprint, matchesFingerprint } from "../../../src/kinds/fingerprint";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import type { StateBackend } from "../../../src/reconcile/state/types";
import { failure } from "../../helpers/emulator";

const STATE = ".svc-iac/state/listings/default";
let root: string;
let backend: StateBackend;
const keyFile = () => join(root, STATE, "fingerprint-key.json");

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-key-"));
  backend = openStateBackend({ kind: "local", path: STATE }, { root, project: "listings", target: "default" });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the fingerprint key in a local state folder", () => {
  it("is made on first use only when asked, readable by its owner only, and the same key afterwards", async () => {
    expect(await backend.fingerprintKey({ create: false })).toBeUndefined();
    const made = (await backend.fingerprintKey({ create: true }))!;
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    const again = (await backend.fingerprintKey({ create: false }))!;
    expect(fingerprint("1234", "Canvas:passcode", again)).toBe(fingerprint("1234", "Canvas:passcode", made));
    expect(fingerprint("1234", "Canvas:passcode", made)).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);
  });

  it("is one key when runs make it at the same moment", async () => {
    const keys = await Promise.all(Array.from({ length: 6 }, () => backend.fingerprintKey({ create: true })));
    expect(new Set(keys.map((k) => fingerprint("v", "s", k)))).toHaveLength(1);
  });

  it("never prints itself", async () => {
    const key = (await backend.fingerprintKey({ create: true }))!;
    const secret = JSON.parse(readFileSync(keyFile(), "utf8")).key as string;
    for (const shown of [JSON.stringify({ key }), inspect(key), String(key), `${key}`, inspect({ nested: { key } })]) {
      expect(shown).toContain("[fingerprint key]");
      expect(shown).not.toContain(secret);
    }
  });

  it("refuses a damaged key file, naming it and not its content", async () => {
    mkdirSync(join(root, STATE), { recursive: true });
    writeFileSync(keyFile(), JSON.stringify({ version: 1, algorithm: "HMAC-SHA-256", key: "c2hvcnQ=" }));
    const e = await failure(backend.fingerprintKey({ create: true }));
    expect(e.message).toContain(`${STATE}/fingerprint-key.json is not a svc-iac fingerprint key`);
    expect(e.message).toContain("at least 32 bytes");
    expect(e.message).not.toContain("c2hvcnQ=");
  });
});

describe("matchesFingerprint", () => {
  it("accepts the keyed form under the key, and the key-less form of older inventories, both only for the same value", async () => {
    const key = (await backend.fingerprintKey({ create: true }))!;
    expect(matchesFingerprint(fingerprint("tok", "svc-iac:token", key), "tok", "svc-iac:token", key)).toBe(true);
    expect(matchesFingerprint(fingerprint("tok", "svc-iac:token"), "tok", "svc-iac:token", key)).toBe(true);
    expect(matchesFingerprint(fingerprint("old", "svc-iac:token"), "tok", "svc-iac:token", key)).toBe(false);
    expect(matchesFingerprint(fingerprint("tok", "svc-iac:token", key), "tok", "svc-iac:token", undefined)).toBe(false);
    expect(matchesFingerprint(undefined, "tok", "svc-iac:token", key)).toBe(false);
  });
});
