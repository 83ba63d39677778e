/** Token rotation: shares and service accounts get new tokens on a trigger change, on schedule, and (shares) on a scope change; old tokens stop working. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { applyCommand, driftCommand, planCommand } from "../../../src/reconcile/commands";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { renderPlanText } from "../../../src/reconcile/render";
import type { Plan } from "../../../src/reconcile/plan/plan-model";
import { accountName } from "../../../src/kinds/service-account/resource";
import { failure, useEmulator, type EmulatorFixture } from "../../helpers/emulator";
import {
  commandOptions,
  copyRepo,
  FIXTURE_SECRETS,
  outputsFileOf,
  platformView,
  serviceTokenWorks,
} from "../../helpers/repo";

const DAY = 86_400_000;

function planOf(r: CommandResult): Plan {
  if ((r.command !== "plan" && r.command !== "apply") || !r.plan)
    throw new Error(`expected a plan, got ${JSON.stringify(r)}`);
  return r.plan;
}

function expectApplied(r: CommandResult): void {
  expect(r.command === "apply" && r.message).toBeUndefined();
  expect(r.command === "apply" && r.report?.results.filter((x) => x.status !== "done")).toEqual([]);
  expect(r.exitCode).toBe(0);
}

const shareToken = async (fx: EmulatorFixture, canvas: string) =>
  (await platformView(fx.user)).canvases.find((c) => c.name === canvas)!.share_token!;

const editFile = (file: string, from: string | RegExp, to: string) => {
  const text = readFileSync(file, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file} does not contain ${from}`);
  writeFileSync(file, next);
};

describe("GIVEN an applied repository with a shared public canvas and a shared team canvas", () => {
  const fx = useEmulator();
  let dir: string;
  const reportsYaml = () => join(dir, "canvases/reports/canvas.yaml");

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    writeFileSync(join(dir, "canvases/reports/canvas.yaml"), 'access_scope: team\nshare:\n  rotation: "1"\n');
    expectApplied(await applyCommand(commandOptions(dir, fx.emu)));
  });

  it("WHEN the share's rotation trigger changes THEN plan rotates it with a note, and apply mints a token that voids the old one and its session tokens", async () => {
    const oldToken = await shareToken(fx, "reports");
    const session = await fx.user.sessionTokens.create(oldToken, { ttl: 600 });
    expect((await fx.anon.sharing.getByToken(oldToken, { sessionToken: session.session_token })).name).toBe("reports");
    editFile(reportsYaml(), 'rotation: "1"', 'rotation: "2"');

    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["rotate share.reports"]);
    expect(plan.actions[0]!.notes.join(" ")).toMatch(/session tokens/);
    // Said once: the rotation field carries no copy of the action's note.
    expect(renderPlanText(plan).match(/stop working/g)).toHaveLength(1);

    const r = await applyCommand(commandOptions(dir, fx.emu));
    expectApplied(r);
    const newToken = await shareToken(fx, "reports");
    expect(newToken).not.toBe(oldToken);
    expect((await readOutputsFile(outputsFileOf(dir)))!.tokens["share.reports"]!.token).toBe(newToken);
    expect((await failure(fx.anon.sharing.getByToken(oldToken, { sessionToken: session.session_token }))).status).toBe(
      404,
    );
    expect((await failure(fx.anon.sharing.getByToken(newToken, { sessionToken: session.session_token }))).status).toBe(
      401,
    );
    expect((await failure(fx.user.sessionTokens.create(oldToken))).status).toBe(404);
    const fresh = await fx.user.sessionTokens.create(newToken);
    expect((await fx.anon.sharing.getByToken(newToken, { sessionToken: fresh.session_token })).name).toBe("reports");
    expect(planOf(await planCommand(commandOptions(dir, fx.emu))).actions).toEqual([]);
  });

  it("WHEN rotate_every has elapsed THEN plan rotates with the reason, drift does not report it, and apply rotates once", async () => {
    const later = new Date(Date.now() + 31 * DAY);
    const oldToken = await shareToken(fx, "listings");
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu, { now: () => later })));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["rotate share.listings"]);
    expect(plan.actions[0]!.reason).toMatch(/rotate_every 30d/);

    const drift = await driftCommand(commandOptions(dir, fx.emu, { now: () => later }));
    expect(drift.exitCode).toBe(0);
    expect(drift.command === "drift" && drift.drift?.items).toEqual([]);

    expectApplied(await applyCommand(commandOptions(dir, fx.emu, { now: () => later })));
    const newToken = await shareToken(fx, "listings");
    expect(newToken).not.toBe(oldToken);
    expect(
      (await failure(fx.anon.sharing.getByToken(oldToken, { passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE }))).status,
    ).toBe(404);
    expect((await fx.anon.sharing.getByToken(newToken, { passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE })).name).toBe(
      "listings",
    );
    // Within the new period nothing is due, at that time or a day later.
    expect(planOf(await planCommand(commandOptions(dir, fx.emu, { now: () => later }))).actions).toEqual([]);
    expect(
      planOf(await planCommand(commandOptions(dir, fx.emu, { now: () => new Date(later.getTime() + DAY) }))).actions,
    ).toEqual([]);
  });

  it("WHEN a shared team canvas becomes public THEN the canvas is updated and its share rotated", async () => {
    const oldToken = await shareToken(fx, "reports");
    editFile(reportsYaml(), "access_scope: team", "access_scope: public");
    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual([
      "update canvas.reports",
      "rotate share.reports",
    ]);
    expect(plan.actions[1]!.fields.map((f) => f.field)).toEqual(["accessScope"]);

    expectApplied(await applyCommand(commandOptions(dir, fx.emu)));
    const reports = (await platformView(fx.user)).canvases.find((c) => c.name === "reports")!;
    expect(reports.access_scope).toBe("public");
    expect(reports.share_token).not.toBe(oldToken);
    expect((await failure(fx.anon.sharing.getByToken(oldToken))).status).toBe(404);
    expect((await fx.anon.sharing.getByToken(reports.share_token!)).name).toBe("reports");
    expect(planOf(await planCommand(commandOptions(dir, fx.emu))).actions).toEqual([]);
  });

  it("WHEN a service account's rotation trigger changes THEN a new account is made and published, the old one deleted, and only the new token works", async () => {
    const outputs = outputsFileOf(dir);
    const oldToken = (await readOutputsFile(outputs))!.tokens["service_account.listings-deployer"]!.token;
    const before = (await platformView(fx.user)).serviceAccounts;
    const oldAccount = before.find((s) => s.name === accountName({ name: "listings-deployer", rotation: "1" }))!;
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(true);
    editFile(join(dir, "service-accounts.yaml"), 'rotation: "1"', 'rotation: "2"');

    const plan = planOf(await planCommand(commandOptions(dir, fx.emu)));
    expect(plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["rotate service_account.listings-deployer"]);

    const r = await applyCommand(commandOptions(dir, fx.emu));
    expectApplied(r);
    expect(r.command === "apply" && r.report?.published).toEqual([
      { address: "service_account.listings-deployer", to: [`outputs file ${outputs}`] },
    ]);
    const after = (await platformView(fx.user)).serviceAccounts;
    expect(after.map((s) => s.id)).not.toContain(oldAccount.id);
    expect(after.filter((s) => s.name.startsWith("listings-deployer ")).map((s) => s.name)).toEqual([
      accountName({ name: "listings-deployer", rotation: "2" }),
    ]);
    const newToken = (await readOutputsFile(outputs))!.tokens["service_account.listings-deployer"]!.token;
    expect(newToken).not.toBe(oldToken);
    expect(await serviceTokenWorks(fx.emu, newToken)).toBe(true);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(false);
    expect(planOf(await planCommand(commandOptions(dir, fx.emu))).actions).toEqual([]);
  });
});

describe("GIVEN a repository declaring service accounts and no destination for their tokens", () => {
  const fx = useEmulator();

  it("WHEN apply runs without outputs THEN the tokens-without-outputs rule stops it and nothing is created", async () => {
    const dir = copyRepo("valid-full");
    const r = await applyCommand(commandOptions(dir, fx.emu, { outputs: undefined }));
    expect(r.exitCode).toBe(1);
    expect(planOf(r).blocks.map((b) => b.rule)).toEqual(["tokens-without-outputs"]);
    expect(r.command === "apply" && r.message).toMatch(/--outputs FILE/);
    const view = await platformView(fx.user);
    expect(view.canvases).toEqual([]);
    expect(view.secrets).toEqual([]);
    expect(view.serviceAccounts.filter((s) => s.name.includes("[svc-iac "))).toEqual([]);
  });

  it("WHEN apply runs with discardTokens THEN the accounts are created anyway", async () => {
    const dir = copyRepo("valid-full");
    const r = await applyCommand(commandOptions(dir, fx.emu, { outputs: undefined, discardTokens: true }));
    expectApplied(r);
    expect((await platformView(fx.user)).serviceAccounts.filter((s) => s.name.includes("[svc-iac ")).length).toBe(2);
  });
});

describe("GIVEN a share rotation whose new token cannot be handed over", () => {
  const fx = useEmulator();

  it("THEN apply fails, the next plan mints another token and says why, and once it is published nothing is left to do", async () => {
    const dir = copyRepo("valid-full");
    expectApplied(await applyCommand(commandOptions(dir, fx.emu)));
    const first = await shareToken(fx, "listings");
    const failing = {
      name: "secret store",
      publish: async () => {
        throw new Error("secret store: connection reset");
      },
    };

    // WHEN the rotation's publish fails
    const failed = await applyCommand(
      commandOptions(dir, fx.emu, { replace: ["share.listings"], publishers: [failing] }),
    );
    expect(failed.exitCode).toBe(1);
    const result =
      failed.command === "apply" ? failed.report?.results.find((x) => x.address === "share.listings") : undefined;
    expect(result).toMatchObject({
      status: "failed",
      message: expect.stringContaining(
        "a new token was minted (the old one no longer works) but could not be handed over: secret store: connection reset",
      ),
    });
    const minted = await shareToken(fx, "listings");
    expect(JSON.stringify(failed)).not.toContain(minted);
    expect(minted).not.toBe(first);

    // THEN the next plan does not say "no changes": it rotates again, saying why
    const next = planOf(await planCommand(commandOptions(dir, fx.emu)));
    const rotate = next.actions.find((x) => x.address === "share.listings");
    expect(rotate).toMatchObject({ action: "rotate", reason: expect.stringContaining("never reached its outputs") });

    // WHEN apply runs with a working outputs file THEN the platform's token is the one handed over
    expectApplied(await applyCommand(commandOptions(dir, fx.emu)));
    const delivered = (await readOutputsFile(outputsFileOf(dir)))?.tokens["share.listings"]?.token;
    expect(delivered).toBe(await shareToken(fx, "listings"));
    expect(delivered).not.toBe(minted);
    expect(planOf(await planCommand(commandOptions(dir, fx.emu))).actions).toEqual([]);
  });
});
