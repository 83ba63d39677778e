/**
 * The restore history of `drift --remediate` (`restore-history.json` beside the inventory): the
 * same in a local folder and in remote state, empty when absent, refused when it is not one.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import type { RestoreHistory } from "../../../src/reconcile/state/types";
import { KEPT_PER_ADDRESS } from "../../../src/reconcile/state/restore-history";
import { useEmulator } from "../../helpers/emulator";

const fx = useEmulator();

const history: RestoreHistory = {
  version: 1,
  project: "listings",
  target: "prod",
  restores: { "canvas.sales": [{ at: "2026-03-01T10:00:00.000Z", declared: "hmac-sha256:abc" }] },
};

describe("GIVEN the state backends", () => {
  it("WHEN a remote state has no history THEN it reads empty; written, it reads back beside the inventory's prefix", async () => {
    const backend = openStateBackend(
      { kind: "remote", url: "s3://demo-bucket/state/listings/history-1" },
      { root: "/unused", client: fx.user, project: "listings", target: "prod", settleMs: 0 },
    );
    expect((await backend.readRestoreHistory()).restores).toEqual({});
    await backend.writeRestoreHistory(history);
    expect(await backend.readRestoreHistory()).toEqual(history);
    const raw = await fx.user.files.download("s3://demo-bucket/state/listings/history-1/restore-history.json");
    expect(JSON.parse(raw.toString("utf8"))).toEqual(history);
  });

  it("WHEN a local state is written THEN the file is beside the inventory, and keeps the last restores of each address only", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-iac-history-"));
    mkdirSync(join(root, ".svc-iac/state/listings/prod"), { recursive: true });
    const backend = openStateBackend(
      { kind: "local", path: ".svc-iac/state/listings/prod" },
      { root, client: fx.user, project: "listings", target: "prod" },
    );
    const many = Array.from({ length: KEPT_PER_ADDRESS + 5 }, (_, i) => ({
      at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      declared: "hmac-sha256:abc",
    }));
    await backend.writeRestoreHistory({ ...history, restores: { "canvas.sales": many } });
    const read = await backend.readRestoreHistory();
    expect(read.restores["canvas.sales"]).toEqual(many.slice(-KEPT_PER_ADDRESS));
    expect(
      JSON.parse(readFileSync(join(root, ".svc-iac/state/listings/prod/restore-history.json"), "utf8")).version,
    ).toBe(1);
  });

  it("WHEN the local history is not one THEN reading it stops with where it is and what to do", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-iac-history-"));
    mkdirSync(join(root, "st/listings/prod"), { recursive: true });
    writeFileSync(join(root, "st/listings/prod/restore-history.json"), "not json");
    const backend = openStateBackend(
      { kind: "local", path: "st/listings/prod" },
      { root, client: fx.user, project: "listings", target: "prod" },
    );
    await expect(backend.readRestoreHistory()).rejects.toThrow(
      "st/listings/prod/restore-history.json is not a restore history: it is not JSON. Move it away to start a new history (flapping is then counted afresh).",
    );
  });
});
