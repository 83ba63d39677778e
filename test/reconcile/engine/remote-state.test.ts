/** State kept on the platform: `state: s3://…` in svc.yaml keeps the inventory and the lock in the team's bucket, through the files API. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommand, driftCommand, planCommand } from "../../../src/reconcile/commands";
import { openStateBackend } from "../../../src/reconcile/state/open-backend";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS } from "../../helpers/repo";

const PREFIX = "s3://demo-bucket/iac-state";

function remoteRepo(): string {
  const dir = copyRepo("valid-full");
  const svc = join(dir, "svc.yaml");
  writeFileSync(svc, readFileSync(svc, "utf8").replace("state: .svc-iac/state\n", `state: ${PREFIX}\n`));
  return dir;
}

describe("GIVEN a repository whose state lives in s3://demo-bucket", () => {
  const fx = useEmulator();

  it("WHEN it is applied THEN the inventory is in the bucket, nothing is kept locally, and the next plan and drift are empty", async () => {
    const dir = remoteRepo();
    const applied = await applyCommand(commandOptions(dir, fx.emu));
    expect(applied.exitCode).toBe(0);

    const inventory = JSON.parse(
      (await fx.user.files.download(`${PREFIX}/listings/default/inventory.json`)).toString("utf8"),
    );
    expect(inventory).toMatchObject({ version: 1, project: "listings", target: "default" });
    expect(Object.keys(inventory.objects)).toContain("canvas.listings");
    expect(existsSync(join(dir, ".svc-iac", "state"))).toBe(false);
    const text = JSON.stringify(inventory);
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text).not.toContain(secret);
    // The fingerprint key lives beside it, and the inventory's fingerprints are keyed with it.
    const key = JSON.parse(
      (await fx.user.files.download(`${PREFIX}/listings/default/fingerprint-key.json`)).toString("utf8"),
    );
    expect(key).toMatchObject({ version: 1, algorithm: "HMAC-SHA-256" });
    expect(inventory.objects["share.listings"].kept.tokenFingerprint).toMatch(/^hmac-sha256:[0-9a-f]{12}$/);

    const plan = await planCommand(commandOptions(dir, fx.emu));
    expect(plan.command === "plan" && plan.plan?.actions).toEqual([]);
    expect((await driftCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
  });

  it("WHEN another run holds the lock in the bucket THEN apply exits 1 naming it, and --force-unlock lets it through", async () => {
    const dir = remoteRepo();
    const backend = openStateBackend(
      { kind: "remote", url: `${PREFIX}/listings/default` },
      { root: dir, client: fx.user, project: "listings", target: "default", settleMs: 0 },
    );
    const held = await backend.acquireLock({ owner: "ci run 77", operation: "apply", ttlMs: 600_000 });

    const blocked = await applyCommand(commandOptions(dir, fx.emu));
    expect(blocked.exitCode).toBe(1);
    expect(blocked.command === "apply" && blocked.message).toContain("ci run 77");
    expect(blocked.command === "apply" && blocked.message).toContain(`--force-unlock ${held.info.id}`);

    const forced = await applyCommand(commandOptions(dir, fx.emu, { forceUnlock: held.info.id }));
    expect(forced.exitCode).toBe(0);
    expect(await backend.readLock()).toBeUndefined();
  });
});
