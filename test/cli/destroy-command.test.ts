/** `svc-iac destroy` on the command line: confirmation as apply's, the lock, --allow-cascade, --json, and the built command. */
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { CliUsageError } from "../../src/cli/usage";
import { loadRepository } from "../../src/reconcile/load";
import { openStateBackend } from "../../src/reconcile/state/open-backend";
import { runInProcess as run } from "../helpers/cli-run";
import { useEmulator } from "../helpers/emulator";
import { appliedRepo, builtCli, copyRepo, emulatorEnv, platformView, stateDirOf } from "../helpers/repo";
import { minimalEnv } from "../helpers/process-env";

describe("GIVEN an applied repository", () => {
  const fx = useEmulator();
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await appliedRepo(fx.emu);
    env = emulatorEnv(fx.emu);
  });

  it("WHEN destroy runs without --auto-approve and stdin is not a terminal THEN it is a usage error and nothing is deleted", async () => {
    const before = await platformView(fx.user);
    const e = await run("destroy", [dir], env).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliUsageError);
    expect((e as Error).message).toBe(
      "destroy needs --auto-approve when it cannot ask for confirmation (no terminal on stdin).",
    );
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("WHEN destroy asks on a terminal and the answer is not yes THEN it is cancelled with nothing changed", async () => {
    const before = await platformView(fx.user);
    const r = await run("destroy", [dir], env, { tty: true, input: "y\n" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("delete   canvas.listings");
    expect(r.stderr).toContain("Destroy these 13 objects of listings (default)? There is no undo.");
    expect(r.stderr).toContain("Destroy cancelled: nothing was changed.");
    expect(await platformView(fx.user)).toEqual(before);
  });

  it("WHEN the lock is held THEN destroy exits 1 naming the holder", async () => {
    const loaded = await loadRepository(dir, { env });
    if (!loaded.ok) throw new Error("fixture does not load");
    const p = loaded.project;
    const backend = openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });
    const held = await backend.acquireLock({ owner: "carol@ci pid 9", operation: "apply", ttlMs: 600_000 });
    try {
      const r = await run("destroy", [dir, "--auto-approve"], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("carol@ci pid 9");
      expect((await platformView(fx.user)).canvases.map((c) => c.name)).toContain("listings");
    } finally {
      await held.release();
    }
  });

  it("WHEN the lock is held THEN destroy --force-unlock ID removes it and goes on, as apply's; with no lock left, the same ID stops it saying so", async () => {
    const loaded = await loadRepository(dir, { env });
    if (!loaded.ok) throw new Error("fixture does not load");
    const p = loaded.project;
    const backend = openStateBackend(p.settings.state, { root: p.root, project: p.project, target: p.target });
    const held = await backend.acquireLock({ owner: "dave@ci pid 3", operation: "apply", ttlMs: 600_000 });
    const blocked = await run("destroy", [dir, "--auto-approve"], env);
    expect(blocked.stderr).toContain(`--force-unlock ${held.info.id}`);

    // "n" is not "yes": the lock is removed, then nothing is destroyed.
    const forced = await run("destroy", [dir, "--force-unlock", held.info.id], env, { tty: true, input: "n\n" });
    expect(forced.stderr).toContain(`Removed the lock ${held.info.id} held by dave@ci pid 3`);
    expect(forced.stderr).toContain("Destroy cancelled: nothing was changed.");

    const again = await run("destroy", [dir, "--auto-approve", "--force-unlock", held.info.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `No lock to remove: state ${backend.location} is not locked, so there is no lock ${held.info.id}; nothing was changed.`,
    );
    expect((await platformView(fx.user)).canvases.map((c) => c.name)).toContain("listings");
  });

  it("WHEN a hand-made UDF sits on a managed canvas THEN destroy stops naming it, and --allow-cascade lets it go", async () => {
    const listings = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!.id;
    const hand = await fx.user.udfs.create({
      collection_id: listings,
      slug: "by_hand",
      udf_type: "auto",
      udf_body: JSON.stringify({ name: "by_hand", code: "x = 1" }),
    });
    const stopped = await run("destroy", [dir, "--auto-approve"], env);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(`udf.listings/by_hand (id ${hand.id}, deleted with canvas.listings)`);
    expect(stopped.stderr).toContain("--allow-cascade");

    const r = await run("destroy", [dir, "--auto-approve", "--allow-cascade", "--json"], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.report.ok).toBe(true);
    expect(doc.plan.cascade).toEqual([
      expect.objectContaining({ address: "udf.listings/by_hand", id: hand.id, managed: false }),
    ]);
    expect(doc.plan.actions.every((a: { action: string }) => a.action === "delete" || a.action === "unshare")).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).objects).toEqual({});
    expect((await platformView(fx.user)).canvases).toEqual([]);
  });
});

describe("GIVEN the built svc-iac command and a repository applied on its embedded emulator", () => {
  let main: string;
  beforeAll(() => {
    main = builtCli();
  }, 120_000);

  it("WHEN destroy --auto-approve runs twice THEN the first deletes everything and the second has nothing to destroy", async () => {
    const dir = copyRepo("valid-full");
    rmSync(join(dir, "service-accounts.yaml"));
    const env = {
      ...minimalEnv(),
      MAPBOX_TOKEN: "mapbox-x-1234",
      LISTINGS_PASSCODE: "pass-x-1234",
      NO_COLOR: "1",
    };
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, [main, ...args], { env }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    expect((await cli(["apply", dir, "--auto-approve"])).code).toBe(0);
    const first = await cli(["destroy", dir, "--auto-approve"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("using the embedded emulator");
    expect(first.stdout).toContain("Destroy complete: 11 done, 0 failed, 0 skipped.");
    const second = await cli(["destroy", dir, "--auto-approve"]);
    expect(second).toMatchObject({
      code: 0,
      stdout:
        "Nothing to destroy: the inventory of listings (default) records nothing that is still on the platform.\n",
    });
  }, 60_000);
});
