/** Apply under faults (error answers, lost answers, resets): it may fail, and running it again converges with nothing duplicated. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "../../../src/api/client";
import type { CommandOptions, CommandResult } from "../../../src/reconcile/commands/command-types";
import { applyCommand, driftCommand, planCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { useEmulator, type EmulatorFixture } from "../../helpers/emulator";
import {
  commandOptions,
  copyRepo,
  outputsFileOf,
  platformDuplicates,
  platformView,
  serviceTokenWorks,
  writeUdfs,
} from "../../helpers/repo";

const MAX_RUNS = 5;

/**
 * The retries' back-off of these tests: the client's own attempts (4), from 5 ms instead of 200 ms.
 * What is tested is that the retried and re-run applies converge, not how long the client waits.
 */
const FAST_RETRY = { retry: { baseDelayMs: 5, maxDelayMs: 40 } };

const optionsOf = (dir: string, fx: EmulatorFixture, extra: Partial<CommandOptions> = {}) =>
  commandOptions(dir, fx.emu, { client: FAST_RETRY, ...extra });

/** Applied valid-full, then `rotation: "2"` for listings-deployer; returns the repo and the old account's id and token. */
async function rotationPending(fx: EmulatorFixture): Promise<{ dir: string; oldId: string; oldToken: string }> {
  const dir = copyRepo("valid-full");
  const first = await applyCommand(optionsOf(dir, fx));
  if (first.exitCode !== 0) throw new Error(describeRun(first));
  const oldToken = (await readOutputsFile(outputsFileOf(dir)))!.tokens["service_account.listings-deployer"]!.token;
  const oldId = (await platformView(fx.user)).serviceAccounts.find((s) => s.name.startsWith("listings-deployer "))!.id;
  const file = join(dir, "service-accounts.yaml");
  writeFileSync(file, readFileSync(file, "utf8").replace('rotation: "1"', 'rotation: "2"'));
  return { dir, oldId, oldToken };
}

const deployerAccounts = async (fx: EmulatorFixture) =>
  (await platformView(fx.user)).serviceAccounts.filter((s) => s.name.startsWith("listings-deployer "));

/** Runs apply until it succeeds, at most {@link MAX_RUNS} times; returns every result. */
async function applyUntilOk(fx: EmulatorFixture, dir: string): Promise<CommandResult[]> {
  const results: CommandResult[] = [];
  for (let i = 0; i < MAX_RUNS; i++) {
    const r = await applyCommand(optionsOf(dir, fx));
    results.push(r);
    if (r.exitCode === 0) break;
  }
  return results;
}

const describeRun = (r: CommandResult) =>
  r.command === "apply"
    ? (r.message ??
      r.report?.results
        .filter((x) => x.status !== "done")
        .map((x) => `${x.address}: ${x.status} ${x.message ?? ""}`)
        .join("\n"))
    : "";

/** Converged: the last run succeeded, no duplicates, nothing left to do, and every published service-account token works. */
async function expectConverged(fx: EmulatorFixture, dir: string, results: CommandResult[]): Promise<void> {
  fx.emu.setFaults(undefined);
  const last = results.at(-1)!;
  expect(last.exitCode, describeRun(last)).toBe(0);
  const view = await platformView(fx.user);
  expect(platformDuplicates(view)).toEqual([]);
  expect(view.serviceAccounts.filter((s) => s.name.includes("[svc-iac ")).length).toBe(2);
  const plan = await planCommand(optionsOf(dir, fx));
  expect(plan.command === "plan" && plan.plan?.actions.map((a) => `${a.action} ${a.address}`)).toEqual([]);
  expect(plan.command === "plan" && plan.plan?.unmanaged).toEqual([]);
  const outputs = await readOutputsFile(outputsFileOf(dir));
  for (const address of ["service_account.listings-deployer", "service_account.reader"]) {
    const client = createClient({
      baseUrl: fx.emu.baseUrl,
      serviceToken: outputs!.tokens[address]!.token,
      retry: { maxAttempts: 1 },
    });
    try {
      await expect(client.environment.getSelf(), address).resolves.toBeDefined();
    } finally {
      await client.close();
    }
  }
}

/** valid-full with 20 more UDFs on the listings canvas, so many creates are in flight. */
function biggerRepo(): string {
  const dir = copyRepo("valid-full");
  writeUdfs(dir, "listings", 20);
  return dir;
}

describe("GIVEN 503 answers on a share of POST requests", () => {
  const fx = useEmulator();

  it("WHEN apply runs until it succeeds THEN it converges with no duplicate", async () => {
    const dir = biggerRepo();
    fx.emu.setFaults("seed=11,503=0.3,methods=POST,count=12");
    const results = await applyUntilOk(fx, dir);
    expect(fx.emu.faults!.count).toBeGreaterThan(0);
    expect(results[0]!.exitCode).toBe(1);
    await expectConverged(fx, dir, results);
  });
});

describe("GIVEN lost answers on creates and updates (the platform does the work, the caller never hears)", () => {
  const fx = useEmulator();

  it("WHEN apply runs until it succeeds THEN every object lost in flight is adopted, not duplicated", async () => {
    const dir = biggerRepo();
    fx.emu.setFaults("seed=5,lost=0.35,methods=POST|PUT,count=10");
    const results = await applyUntilOk(fx, dir);
    expect(fx.emu.faults!.count).toBeGreaterThan(0);
    expect(results[0]!.exitCode).toBe(1);
    await expectConverged(fx, dir, results);
  });
});

describe("GIVEN connection resets and latency on every kind of request", () => {
  const fx = useEmulator();

  it("WHEN apply runs until it succeeds THEN it converges with no duplicate", async () => {
    const dir = biggerRepo();
    fx.emu.setFaults("seed=23,reset=0.15,503=0.1,latency=0-5,count=15");
    const results = await applyUntilOk(fx, dir);
    expect(fx.emu.faults!.count).toBeGreaterThan(0);
    await expectConverged(fx, dir, results);
  });
});

describe("GIVEN the answer to a service-account create is lost", () => {
  const fx = useEmulator();

  it("WHEN apply runs again THEN the orphan account is rotated away and deleted, and the published token works", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults("lost=1,methods=POST,paths=/execution-env/self/service-account,count=1");
    const first = await applyCommand(optionsOf(dir, fx));
    expect(first.exitCode).toBe(1);
    expect(fx.emu.faults!.count).toBe(1);
    const failed = first.command === "apply" ? first.report!.results.filter((r) => r.status === "failed") : [];
    expect(failed.map((r) => r.kind)).toEqual(["ServiceAccount"]);
    const orphanAddress = failed[0]!.address;
    const orphanName = orphanAddress.replace("service_account.", "");
    // The account exists on the platform although its creator never learnt its token.
    const orphan = (await platformView(fx.user)).serviceAccounts.find((s) =>
      s.name.startsWith(`${orphanName} [svc-iac `),
    )!;
    expect(orphan).toBeDefined();

    const plan = await planCommand(optionsOf(dir, fx));
    const action = plan.command === "plan" ? plan.plan!.actions.find((a) => a.address === orphanAddress) : undefined;
    expect(action).toMatchObject({ action: "rotate", id: orphan.id });
    expect(action?.reason).toMatch(/earlier apply stopped/);

    const results = [first, ...(await applyUntilOk(fx, dir))];
    await expectConverged(fx, dir, results);
    const accounts = (await platformView(fx.user)).serviceAccounts;
    expect(accounts.map((s) => s.id)).not.toContain(orphan.id);
    expect(accounts.filter((s) => s.name.startsWith(`${orphanName} [svc-iac `)).length).toBe(1);
  });
});

describe("GIVEN the answer to the create of a rotation's new service account is lost", () => {
  const fx = useEmulator();

  it("WHEN apply runs again THEN it converges to one new account with a working token, the orphan and the old account deleted", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    fx.emu.setFaults("lost=1,methods=POST,paths=/execution-env/self/service-account,count=1");
    const first = await applyCommand(optionsOf(dir, fx));
    expect(first.exitCode).toBe(1);
    const orphan = (await deployerAccounts(fx)).find((s) => s.id !== oldId)!;
    expect(orphan).toBeDefined();

    const results = [first, ...(await applyUntilOk(fx, dir))];
    expect(results.length).toBe(2);
    await expectConverged(fx, dir, results);
    const accounts = await deployerAccounts(fx);
    expect(accounts.length).toBe(1);
    expect([oldId, orphan.id]).not.toContain(accounts[0]!.id);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(false);
  });
});

describe("GIVEN the delete of the old account after a service-account rotation fails", () => {
  const fx = useEmulator();

  it("WHEN plan and apply run again THEN the leftover account is named and deleted, and its token stops working", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    fx.emu.setFaults("500=1,methods=DELETE,paths=/execution-env/self/service-account,count=1");
    const first = await applyCommand(optionsOf(dir, fx));
    expect(first.exitCode).toBe(1);
    fx.emu.setFaults(undefined);
    expect((await deployerAccounts(fx)).map((s) => s.id)).toContain(oldId);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(true);

    const plan = await planCommand(optionsOf(dir, fx));
    const action =
      plan.command === "plan"
        ? plan.plan!.actions.find((a) => a.address === "service_account.listings-deployer")
        : undefined;
    expect(action?.fields.map((f) => f.field)).toEqual(["replacedAccounts"]);

    const results = [first, ...(await applyUntilOk(fx, dir))];
    await expectConverged(fx, dir, results);
    expect((await deployerAccounts(fx)).map((s) => s.id)).not.toContain(oldId);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(false);
  });
});

describe("GIVEN 2,000 UDFs on one canvas and lost answers, 503s and connection resets among their requests", () => {
  const fx = useEmulator();

  it("WHEN apply runs until it succeeds THEN it converges with no duplicate", async () => {
    const dir = copyRepo("valid-full");
    writeUdfs(dir, "listings", 2000);
    fx.emu.setFaults("seed=3,lost=0.01,503=0.01,reset=0.01,count=60");
    const results = await applyUntilOk(fx, dir);
    expect(fx.emu.faults!.count).toBeGreaterThan(0);
    await expectConverged(fx, dir, results);
    expect((await platformView(fx.user)).udfs.length).toBe(2003);
  }, 120_000);
});

describe("GIVEN a caller that sets how the client retries (client: in the command's options)", () => {
  const fx = useEmulator();

  it("WHEN a read answers 503 once THEN apply retries it after the back-off it was given, and succeeds in one run", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults("503=1,methods=GET,count=1");
    const retries: { reason: string; delayMs: number }[] = [];
    const r = await applyCommand(
      optionsOf(dir, fx, {
        client: { retry: { baseDelayMs: 7, maxDelayMs: 7 }, onRetry: (i) => retries.push(i) },
      }),
    );
    expect(r.exitCode, describeRun(r)).toBe(0);
    expect(retries).toEqual([expect.objectContaining({ reason: "status 503", delayMs: expect.any(Number) })]);
    // Equal jitter: half the 7 ms fixed, half random.
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(3);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(7);
  });

  it("WHEN it allows one attempt THEN the 503 fails the run at once, with no retry", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults("503=1,methods=GET,count=1");
    const retries: unknown[] = [];
    const r = await applyCommand(
      optionsOf(dir, fx, { client: { retry: { maxAttempts: 1 }, onRetry: (i) => retries.push(i) } }),
    );
    expect(r.exitCode).toBe(1);
    expect(JSON.stringify(r)).toContain("503");
    expect(retries).toEqual([]);
    expect(fx.emu.faults!.count).toBe(1);
  });
});

describe("GIVEN a caller's client options and an applied repository", () => {
  const fx = useEmulator();

  it("WHEN drift and destroy run THEN their requests go through the caller's client too", async () => {
    const dir = copyRepo("valid-full");
    expect((await applyCommand(optionsOf(dir, fx))).exitCode).toBe(0);
    const sent = { drift: [] as string[], destroy: [] as string[] };
    const drift = await driftCommand(
      optionsOf(dir, fx, { client: { onRequest: (r) => sent.drift.push(`${r.method} ${r.path}`) } }),
    );
    expect(drift.exitCode, JSON.stringify(drift).slice(0, 600)).toBe(0);
    expect(sent.drift.length).toBeGreaterThan(0);
    const destroyed = await destroyCommand({
      ...optionsOf(dir, fx, { client: { onRequest: (r) => sent.destroy.push(`${r.method} ${r.path}`) } }),
      confirm: async () => true,
    });
    expect(destroyed.exitCode, JSON.stringify(destroyed).slice(0, 600)).toBe(0);
    expect(sent.destroy.filter((r) => r.startsWith("DELETE ")).length).toBeGreaterThan(0);
  });
});
