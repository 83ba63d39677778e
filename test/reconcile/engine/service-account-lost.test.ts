/**
 * A service account's token is readable only in its create answer. Whatever answer is lost or
 * refused, and at whichever step of a rotation, applies run as a CI job would (again until one
 * succeeds) end with exactly one account per address, its token in the outputs, and no account
 * left whose token nobody holds.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandResult, PublishedToken, TokenPublisher } from "../../../src/reconcile/commands/command-types";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { accountName } from "../../../src/kinds/service-account/resource";
import { useEmulator, type EmulatorFixture } from "../../helpers/emulator";
import { startInjectingProxy } from "../../helpers/injecting-proxy";
import {
  commandOptions,
  copyRepo,
  emulatorEnv,
  outputsFileOf,
  platformView,
  serviceTokenWorks,
} from "../../helpers/repo";

const ADDRESS = "service_account.listings-deployer";
const SA_PATH = "paths=/execution-env/self/service-account";
const MAX_RUNS = 5;

const deployerAccounts = async (fx: EmulatorFixture) =>
  (await platformView(fx.user)).serviceAccounts.filter((s) => s.name.startsWith("listings-deployer "));
const outputToken = async (dir: string) => (await readOutputsFile(outputsFileOf(dir)))?.tokens[ADDRESS]?.token;

const failures = (r: CommandResult) =>
  r.command === "apply"
    ? (r.message ?? "") +
      (r.report?.results ?? [])
        .filter((x) => x.status !== "done")
        .map((x) => `${x.address}: ${x.status} ${x.message ?? ""}`)
        .join("\n")
    : "";

/** Runs apply, fault free, until it exits 0 (at most {@link MAX_RUNS} times). */
async function applyUntilOk(fx: EmulatorFixture, dir: string, extra = {}): Promise<CommandResult[]> {
  fx.emu.setFaults(undefined);
  const results: CommandResult[] = [];
  for (let i = 0; i < MAX_RUNS; i++) {
    const r = await applyCommand(commandOptions(dir, fx.emu, extra));
    results.push(r);
    if (r.exitCode === 0) break;
  }
  return results;
}

/** The end state every sequence must reach: exit 0, one account, its token in the outputs and working, nothing left to plan. */
async function expectOneWorkingAccount(fx: EmulatorFixture, dir: string, results: CommandResult[]): Promise<string> {
  const last = results.at(-1)!;
  expect(last.exitCode, failures(last)).toBe(0);
  const accounts = await deployerAccounts(fx);
  expect(accounts.map((a) => a.name)).toHaveLength(1);
  const token = await outputToken(dir);
  expect(token).toBeDefined();
  expect(await serviceTokenWorks(fx.emu, token!)).toBe(true);
  const plan = await planCommand(commandOptions(dir, fx.emu));
  expect(plan.command === "plan" && plan.plan!.actions.map((a) => `${a.action} ${a.address}`)).toEqual([]);
  expect(plan.command === "plan" && plan.plan!.blocks).toEqual([]);
  return accounts[0]!.id;
}

/** A publisher that fails the first `n` times, as a GitHub secrets write whose answer is lost would. */
function failingPublisher(n: number): TokenPublisher & { calls: PublishedToken[] } {
  let left = n;
  const calls: PublishedToken[] = [];
  return {
    name: "flaky secret store",
    calls,
    async publish(t) {
      calls.push(t);
      if (left-- > 0) throw new Error("secret store: connection reset");
    },
  };
}

describe("GIVEN a service-account create whose answer is lost, then a retry refused with 503", () => {
  const fx = useEmulator();

  it("WHEN fault-free applies follow THEN the project converges to one account with a working token", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    fx.emu.setFaults(`503=1,methods=POST,${SA_PATH},count=1`);
    const second = await applyCommand(commandOptions(dir, fx.emu));
    expect(second.exitCode).toBe(1);
    expect(fx.emu.faults!.count).toBe(1);
    const orphans = await deployerAccounts(fx);
    expect(orphans).toHaveLength(1);

    const results = await applyUntilOk(fx, dir);
    expect(results).toHaveLength(1);
    const id = await expectOneWorkingAccount(fx, dir, results);
    expect(id).not.toBe(orphans[0]!.id);
  });
});

describe("GIVEN two service-account creates in a row whose answers are lost", () => {
  const fx = useEmulator();

  it("WHEN fault-free applies follow THEN both orphans are deleted and one account with a published token remains", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    const orphans = await deployerAccounts(fx);
    expect(orphans).toHaveLength(2);
    expect(await outputToken(dir)).toBeUndefined();

    const results = await applyUntilOk(fx, dir);
    const id = await expectOneWorkingAccount(fx, dir, results);
    expect(orphans.map((o) => o.id)).not.toContain(id);
  });
});

/** Applies valid-full, then asks for `rotation: "2"`; returns the old account's id and token. */
async function rotationPending(fx: EmulatorFixture): Promise<{ dir: string; oldId: string; oldToken: string }> {
  const dir = copyRepo("valid-full");
  const first = await applyCommand(commandOptions(dir, fx.emu));
  expect(first.exitCode, failures(first)).toBe(0);
  const oldToken = (await outputToken(dir))!;
  const oldId = (await deployerAccounts(fx))[0]!.id;
  const file = join(dir, "service-accounts.yaml");
  writeFileSync(file, readFileSync(file, "utf8").replace('rotation: "1"', 'rotation: "2"'));
  return { dir, oldId, oldToken };
}

/** After the sequence: exactly one new account, its token works, the old token is dead. */
async function expectRotated(
  fx: EmulatorFixture,
  dir: string,
  oldId: string,
  oldToken: string,
  results: CommandResult[],
): Promise<void> {
  const id = await expectOneWorkingAccount(fx, dir, results);
  expect(id).not.toBe(oldId);
  expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(false);
}

describe("GIVEN a rotation whose new account's create answer is lost twice", () => {
  const fx = useEmulator();

  it("WHEN fault-free applies follow THEN they end with one new account and the old token dead", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    for (let i = 0; i < 2; i++) {
      fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
      expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    }
    expect((await deployerAccounts(fx)).length).toBe(3);
    // Until the rotation completes, the old token still works: nothing was cut early.
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(true);
    await expectRotated(fx, dir, oldId, oldToken, await applyUntilOk(fx, dir));
  });
});

describe("GIVEN a rotation whose new account's create answer is lost and whose retry is refused", () => {
  const fx = useEmulator();

  it("WHEN fault-free applies follow THEN they end with one new account and the old token dead", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    fx.emu.setFaults(`503=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    await expectRotated(fx, dir, oldId, oldToken, await applyUntilOk(fx, dir));
  });
});

describe("GIVEN a rotation whose new token cannot be published", () => {
  const fx = useEmulator();

  it("WHEN fault-free applies follow THEN the undelivered account is replaced and deleted, and the outputs hold a working token", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    const flaky = failingPublisher(1);
    const first = await applyCommand(commandOptions(dir, fx.emu, { publishers: [flaky] }));
    expect(first.exitCode).toBe(1);
    expect(failures(first)).toMatch(/secret store: connection reset/);
    const undelivered = flaky.calls[0]!.token;
    expect(failures(first)).not.toContain(undelivered);
    // The old account was kept: its token is the only one anyone holds.
    expect((await deployerAccounts(fx)).map((a) => a.id)).toContain(oldId);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(true);

    const results = await applyUntilOk(fx, dir, { publishers: [flaky] });
    await expectRotated(fx, dir, oldId, oldToken, results);
    expect(await serviceTokenWorks(fx.emu, undelivered)).toBe(false);
    expect(flaky.calls.at(-1)!.token).toBe(await outputToken(dir));
  });
});

describe("GIVEN a rotation whose old account's delete answer is lost", () => {
  const fx = useEmulator();

  it("WHEN apply runs again THEN it converges and the old token is dead", async () => {
    const { dir, oldId, oldToken } = await rotationPending(fx);
    fx.emu.setFaults(`lost=1,methods=DELETE,${SA_PATH},count=1`);
    const first = await applyCommand(commandOptions(dir, fx.emu));
    expect(fx.emu.faults!.count).toBe(1);
    const results = [first, ...(first.exitCode === 0 ? [] : await applyUntilOk(fx, dir))];
    await expectRotated(fx, dir, oldId, oldToken, results);
  });
});

describe("GIVEN a lost service-account create, then a new rotation value in the repository", () => {
  const fx = useEmulator();

  it("WHEN apply runs again THEN the account is created under the new value and the orphan of the old one is deleted", async () => {
    const dir = copyRepo("valid-full");
    fx.emu.setFaults(`lost=1,methods=POST,${SA_PATH},count=1`);
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(1);
    const [orphan] = await deployerAccounts(fx);
    const file = join(dir, "service-accounts.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace('rotation: "1"', 'rotation: "2"'));
    fx.emu.setFaults(undefined);

    const plan = await planCommand(commandOptions(dir, fx.emu));
    const action = plan.command === "plan" ? plan.plan!.actions.find((a) => a.address === ADDRESS) : undefined;
    expect(action).toMatchObject({ action: "create" });
    expect(action!.fields.filter((f) => f.field === "replacedAccounts")).toEqual([
      expect.objectContaining({ field: "replacedAccounts", from: [orphan!.name] }),
    ]);
    expect(action!.fields.find((f) => f.field === "rotation")).toMatchObject({ to: "2" });

    const id = await expectOneWorkingAccount(fx, dir, await applyUntilOk(fx, dir));
    expect(id).not.toBe(orphan!.id);
  });
});

describe("GIVEN another stack creates the same tagged account between this apply's plan and its create", () => {
  const fx = useEmulator();

  it("THEN the create is refused before sending, naming the account and how to resolve it, and no duplicate is made; once resolved, apply converges", async () => {
    const dir = copyRepo("valid-full");
    const wanted = accountName({ name: "listings-deployer", rotation: "1" });
    const proxy = await startInjectingProxy(fx.emu.baseUrl);
    // The plan lists the accounts once; the create looks them up again just before it sends.
    proxy.before(/^GET \/execution-env\/self\/service-account$/, 2, async () => {
      await fx.user.environment.createServiceAccount(wanted);
    });
    let raced: CommandResult;
    try {
      raced = await applyCommand({
        ...commandOptions(dir, fx.emu),
        env: emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url }),
      });
    } finally {
      await proxy.close();
    }
    expect(raced.exitCode).toBe(1);
    const other = await deployerAccounts(fx);
    expect(other.map((a) => a.name)).toEqual([wanted]);
    expect(failures(raced)).toContain(`${ADDRESS}: failed Service account "${wanted}" (id ${other[0]!.id}`);
    expect(failures(raced)).toContain("change `rotation` (or `name`) to create a new one");
    expect(await outputToken(dir)).toBeUndefined();

    // The next plan stops on it too, with nothing to do for the address until the team decides.
    const meanwhile = await planCommand(commandOptions(dir, fx.emu));
    expect(meanwhile.command === "plan" && meanwhile.plan!.blocks.map((b) => b.rule)).toEqual(["unreadable-token"]);
    expect(meanwhile.command === "plan" && meanwhile.plan!.blocks[0]!.message).toContain(
      `"${wanted}" (id ${other[0]!.id}) already exists but this project did not create it`,
    );
    // The team deletes the other stack's account (nothing uses it): the next apply makes this one.
    await fx.user.environment.deleteServiceAccount(other[0]!.id);
    const id = await expectOneWorkingAccount(fx, dir, await applyUntilOk(fx, dir));
    expect(id).not.toBe(other[0]!.id);
  });
});

describe("GIVEN --outputs naming a folder, or a file that is not an outputs file", () => {
  const fx = useEmulator();

  it("THEN plan and apply stop before anything is created, naming the file, and no account is made", async () => {
    const dir = copyRepo("valid-full");
    const folder = join(dir, "..", "outputs-folder");
    mkdirSync(folder, { recursive: true });
    const notOutputs = join(dir, "..", "not-outputs.json");
    writeFileSync(notOutputs, "not json");
    for (const [outputs, says] of [
      [folder, `The outputs file ${folder} is a folder`],
      [notOutputs, `The outputs file ${notOutputs} is not valid JSON`],
    ] as const) {
      const plan = await planCommand(commandOptions(dir, fx.emu, { outputs }));
      expect(plan.command === "plan" && plan.plan!.blocks).toEqual([
        { rule: "outputs-unusable", message: expect.stringContaining(says) },
      ]);
      const apply = await applyCommand(commandOptions(dir, fx.emu, { outputs }));
      expect(apply.exitCode).toBe(1);
      expect(apply.command === "apply" && apply.message).toContain(says);
      expect(apply.command === "apply" && apply.report).toBeUndefined();
    }
    expect(await deployerAccounts(fx)).toEqual([]);
    expect((await platformView(fx.user)).canvases).toEqual([]);
  });
});
