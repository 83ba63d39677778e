/**
 * Targets do not adopt each other's objects: two targets of one project on one team declare the
 * same names, so a plan for one must never take over (and with prune, delete) what the other's
 * inventory holds. It stops, naming the owning target and how to separate them. Objects no
 * inventory knows are still adopted, and the plan says so.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { renderPlanText } from "../../../src/reconcile/render";
import { actionsOf, messageOf, planOf } from "../../helpers/cli-run";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, platformView, stateDirOf } from "../../helpers/repo";
import { countingRequests } from "../../helpers/saved-plan";

/** A project with one canvas and two UDFs, targets `default` and `staging` (prune on) on the same credentials. */
function twoTargetRepo(state = ".svc-iac/state", staging = ""): string {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-repo-")), "repo");
  mkdirSync(join(dir, "canvases/listings"), { recursive: true });
  writeFileSync(
    join(dir, "svc.yaml"),
    `project: listings\nstate: ${state}\nvariables:\n  city: nyc\ntargets:\n  default: {}\n  staging:\n    prune: true\n    variables:\n      city: sf\n${staging}`,
  );
  writeFileSync(
    join(dir, "canvases/listings/canvas.yaml"),
    'access_scope: team\ndashboard_body: "Listings in ${var.city}"\n',
  );
  writeFileSync(join(dir, "canvases/listings/loader.py"), "@fused.udf\ndef udf():\n    return 1\n");
  writeFileSync(join(dir, "canvases/listings/stats.py"), "@fused.udf\ndef udf():\n    return 2\n");
  return dir;
}

describe("GIVEN target default applied on a team, and target staging of the same project on the same team", () => {
  const fx = useEmulator();
  let dir: string;
  let before: Awaited<ReturnType<typeof platformView>>;

  beforeAll(async () => {
    dir = twoTargetRepo();
    writeFileSync(join(dir, "service-accounts.yaml"), "service_accounts:\n  ci: {}\n");
    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode, messageOf(r)).toBe(0);
    before = await platformView(fx.user);
  });

  it("WHEN staging is planned THEN the plan fails: it names the objects, the owning target and how to separate the targets", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(r.exitCode).toBe(1);
    const canvas = before.canvases.find((c) => c.name === "listings")!;
    const loader = before.udfs.find((u) => u.slug === "loader")!;
    const account = before.serviceAccounts.find((a) => a.name.startsWith("ci ["))!;
    // The account's own rule (its token cannot be read) stops it too; the cross-target rule says whose it is.
    expect(planOf(r).blocks.map((b) => b.rule)).toEqual(["unreadable-token", "cross-target"]);
    const message = messageOf(r);
    expect(message).toContain(
      `Target "staging" would adopt 4 objects that target "default" of project listings manages (its inventory at .svc-iac/state/listings/default)`,
    );
    expect(message).toContain(`canvas.listings (id ${canvas.id})`);
    expect(message).toContain(`udf.listings/loader (id ${loader.id})`);
    expect(message).toContain(`service_account.ci (id ${account.id})`);
    expect(message).toContain('give "staging" its own names (name_prefix under targets.staging in svc.yaml');
    expect(message).toContain("or its own credentials (targets.staging.credentials");
    expect(renderPlanText(planOf(r))).toContain('Apply will stop: Target "staging" would adopt 4 objects');
  });

  it("WHEN staging is applied THEN it refuses, sends no write, and default's objects keep their state", async () => {
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { target: "staging" })),
    );
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain('target "default" of project listings manages');
    expect(writes).toBe(0);
    const after = await platformView(fx.user);
    expect(after.canvases.find((c) => c.name === "listings")!.dashboard_body).toBe("Listings in nyc");
    expect(after.udfs.map((u) => u.id).sort()).toEqual(before.udfs.map((u) => u.id).sort());
  });

  it("WHEN default plans again THEN it manages its objects as before (no block)", async () => {
    const r = await planCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual([]);
  });

  it("WHEN staging uses another team's credentials THEN the targets are separate: it creates its own objects, nothing is adopted", async () => {
    rmSync(join(dir, "service-accounts.yaml"));
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, `${readFileSync(svc, "utf8")}    credentials:\n      token_env: OTHER_TEAM_TOKEN\n`);
    const r = await planCommand(
      commandOptions(dir, fx.emu, {
        target: "staging",
        env: { ...commandOptions(dir, fx.emu).env, OTHER_TEAM_TOKEN: fx.emu.tokens.other_user_token },
      }),
    );
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["create canvas.listings", "create udf.listings/loader", "create udf.listings/stats"]);
  });
});

describe("GIVEN default applied and staging given its own names (name_prefix)", () => {
  const fx = useEmulator();

  it("WHEN staging is planned and applied THEN nothing is adopted: it makes its own prefixed objects, and default's stay as they were", async () => {
    const dir = twoTargetRepo(".svc-iac/state", '    name_prefix: "staging_"\n');
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const before = await platformView(fx.user);
    const r = await applyCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["create canvas.listings", "create udf.listings/loader", "create udf.listings/stats"]);
    const after = await platformView(fx.user);
    expect(after.canvases.map((c) => c.name).sort()).toEqual(["listings", "staging_listings"]);
    const listings = after.canvases.find((c) => c.name === "listings")!;
    expect(listings.dashboard_body).toBe("Listings in nyc");
    expect(
      after.udfs
        .filter((u) => u.collection_id === listings.id)
        .map((u) => u.id)
        .sort(),
    ).toEqual(before.udfs.map((u) => u.id).sort());
  });
});

describe("GIVEN two targets whose state lives in the team's bucket, default applied", () => {
  const fx = useEmulator();

  it("WHEN staging is planned THEN it finds default's inventory beside its own in the bucket and stops", async () => {
    const dir = twoTargetRepo("s3://demo-bucket/iac");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const r = await planCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain(
      'target "default" of project listings manages (its inventory at s3://demo-bucket/iac/listings/default)',
    );
  });

  it("WHEN staging keeps its state elsewhere (its own state: setting) THEN default's inventory is still found where svc.yaml puts it", async () => {
    const dir = twoTargetRepo("s3://demo-bucket/iac-2", "    state: .svc-iac/state\n");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const r = await planCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("(its inventory at s3://demo-bucket/iac-2/listings/default)");
  });
});

describe("GIVEN a canvas made by hand that no target's inventory knows", () => {
  const fx = useEmulator();

  it("WHEN a target declaring it is planned and applied THEN it is adopted automatically, and the plan says so", async () => {
    const dir = twoTargetRepo();
    const hand = await fx.user.canvases.create({ name: "listings", access_scope: "team" });
    const r = await planCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["adopt canvas.listings", "create udf.listings/loader", "create udf.listings/stats"]);
    expect(renderPlanText(planOf(r))).toContain(`adopt    canvas.listings (id ${hand.id})`);
    const applied = await applyCommand(commandOptions(dir, fx.emu, { target: "staging" }));
    expect(applied.exitCode, messageOf(applied)).toBe(0);
    const inventory = JSON.parse(readFileSync(join(stateDirOf(dir, "listings", "staging"), "inventory.json"), "utf8"));
    expect(inventory.objects["canvas.listings"].id).toBe(hand.id);

    // From now on staging owns it: default may not take it.
    const other = await planCommand(commandOptions(dir, fx.emu));
    expect(other.exitCode).toBe(1);
    expect(messageOf(other)).toContain(
      'Target "default" would adopt 3 objects that target "staging" of project listings manages',
    );
  });
});
