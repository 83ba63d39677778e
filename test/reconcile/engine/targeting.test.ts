/**
 * Targeted changes: `--only PATTERN` plans and applies the matching objects and what they need,
 * and says the plan is partial; `--replace PATTERN` forces a replacement (a new share token, a new
 * service account, a re-created UDF whose cronjob follows). Bad patterns stop before anything is sent.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { renderPlanMarkdown, renderPlanText, toJson } from "../../../src/reconcile/render";
import { patternRegExp } from "../../../src/reconcile/plan/targeting";
import { actionsOf, messageOf, planOf } from "../../helpers/cli-run";
import { failure, useEmulator } from "../../helpers/emulator";
import {
  commandOptions,
  copyRepo,
  FIXTURE_SECRETS,
  outputsFileOf,
  platformView,
  serviceTokenWorks,
  stateDirOf,
} from "../../helpers/repo";
import { countingRequests, readValidSavedPlan } from "../../helpers/saved-plan";

/** valid-full, with the loader UDF reading the MAPBOX_TOKEN secret. */
function repoReadingSecret(): string {
  const dir = copyRepo("valid-full");
  appendFileSync(
    join(dir, "canvases/listings/loader.py"),
    '\ndef token():\n    return fused.secrets["MAPBOX_TOKEN"]\n',
  );
  return dir;
}

describe("a pattern", () => {
  it("matches addresses, * standing for any text and nothing else being special", () => {
    expect(patternRegExp("udf.listings/*").test("udf.listings/loader")).toBe(true);
    expect(patternRegExp("udf.listings/*").test("udf.reports/weekly")).toBe(false);
    expect(patternRegExp("*.listings").test("share.listings")).toBe(true);
    expect(patternRegExp("canvas.list.ngs").test("canvas.listings")).toBe(false);
  });
});

describe("GIVEN an empty platform and a repository whose loader UDF reads a secret", () => {
  const fx = useEmulator();
  let dir: string;

  beforeAll(() => {
    dir = repoReadingSecret();
  });

  it("WHEN planned with --only udf.listings/loader THEN the plan holds the UDF and what it needs (its canvas, the secret it reads), and says it is partial", async () => {
    const file = join(dir, "..", "partial.json");
    const r = await planCommand(commandOptions(dir, fx.emu, { only: ["udf.listings/loader"], planOut: file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual([
      "create secret.MAPBOX_TOKEN",
      "create canvas.listings",
      "create udf.listings/loader",
    ]);
    const plan = planOf(r);
    expect(plan.partial).toEqual({ only: ["udf.listings/loader"], replace: [] });
    expect(renderPlanText(plan)).toContain(
      "Partial plan (--only): only udf.listings/loader and what they need. Other objects were not planned; run plan without --only to see every change.",
    );
    expect(renderPlanMarkdown(plan)).toContain(
      "> [!WARNING]\n> Partial plan (--only): only `udf.listings/loader` and what they need.",
    );
    expect(JSON.parse(toJson(plan)).partial).toEqual({ only: ["udf.listings/loader"], replace: [] });
    const saved = readValidSavedPlan(file);
    expect(saved.options.only).toEqual(["udf.listings/loader"]);
    expect(saved.plan.partial).toEqual({ only: ["udf.listings/loader"], replace: [] });
  });

  it("WHEN the saved partial plan is applied THEN exactly those objects exist, and a full plan shows the rest", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: join(dir, "..", "partial.json") }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.name)).toEqual(["listings"]);
    expect(view.udfs.map((u) => u.slug)).toEqual(["loader"]);
    expect(view.secrets).toEqual(["MAPBOX_TOKEN"]);
    expect(view.cronjobs).toEqual([]);
    expect(view.canvases[0]!.share_token ?? null).toBeNull();
    const full = await planCommand(commandOptions(dir, fx.emu));
    expect(planOf(full).partial).toBeUndefined();
    expect(actionsOf(full)).not.toContain("create udf.listings/loader");
    expect(actionsOf(full)).toEqual(
      expect.arrayContaining([
        "create canvas.reports",
        "create udf.listings/stats",
        "share share.listings",
        "create cronjob.daily-stats",
      ]),
    );
  });

  it('WHEN applied with --only "udf.listings/*" THEN the other UDF of the canvas comes, the other canvas and the cronjobs do not', async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { only: ["udf.listings/*"] }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["create udf.listings/stats"]);
    const view = await platformView(fx.user);
    expect(view.udfs.map((u) => u.slug).sort()).toEqual(["loader", "stats"]);
    expect(view.canvases.map((c) => c.name)).toEqual(["listings"]);
    expect(view.cronjobs).toEqual([]);
  });

  it("WHEN --only or --replace names nothing THEN the run stops with exit 1 naming it, and sends no write", async () => {
    const before = readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8");
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { only: ["udf.listings/lodaer"], prune: true })),
    );
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toMatch(
      /^--only udf\.listings\/lodaer matches no object in the repository or the inventory of listings \(default\); did you mean udf\.listings\/loader\?/,
    );
    expect(messageOf(r)).toContain("Nothing was sent to the platform.");
    expect(writes).toBe(0);
    expect(existsSync(join(stateDirOf(dir), "lock.json"))).toBe(false);
    expect(readFileSync(join(stateDirOf(dir), "inventory.json"), "utf8")).toBe(before);

    const glob = await planCommand(commandOptions(dir, fx.emu, { only: ["cronjob.*", "udf.nowhere/*"] }));
    expect(glob.exitCode).toBe(1);
    expect(messageOf(glob)).toMatch(/^--only udf\.nowhere\/\* matches no object/);

    const replace = await planCommand(commandOptions(dir, fx.emu, { replace: ["share.nowhere"] }));
    expect(replace.exitCode).toBe(1);
    expect(messageOf(replace)).toMatch(
      /^--replace share\.nowhere matches no object declared in the repository of listings \(default\)/,
    );
  });

  it("WHEN --replace names a canvas or a bucket policy THEN it is refused, saying why, and nothing is sent", async () => {
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { replace: ["canvas.listings"] })),
    );
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain(
      "--replace canvas.listings: canvas.listings cannot be replaced on request: deleting a canvas deletes every UDF on it",
    );
    expect(writes).toBe(0);
    const policy = await planCommand(commandOptions(dir, fx.emu, { replace: ["bucket_policy.*"] }));
    expect(messageOf(policy)).toContain("cannot be replaced on request: it always exists on the platform");
  });
});

describe("GIVEN an applied repository", () => {
  const fx = useEmulator();
  let dir: string;
  let before: Awaited<ReturnType<typeof platformView>>;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    const r = await applyCommand(commandOptions(dir, fx.emu));
    expect(r.exitCode, messageOf(r)).toBe(0);
    before = await platformView(fx.user);
  });

  it("WHEN applied with --replace share.listings THEN the canvas gets a new share token now (the old link stops working), and keeps its id", async () => {
    const old = before.canvases.find((c) => c.name === "listings")!;
    const r = await applyCommand(commandOptions(dir, fx.emu, { replace: ["share.listings"] }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["rotate share.listings"]);
    expect(planOf(r).actions[0]!.reason).toBe("replacement asked for with --replace");
    const now = (await platformView(fx.user)).canvases.find((c) => c.name === "listings")!;
    expect(now.id).toBe(old.id);
    expect(now.share_token).toBeTruthy();
    expect(now.share_token).not.toBe(old.share_token);
    expect(
      (await failure(fx.anon.sharing.getByToken(old.share_token!, { passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE })))
        .status,
    ).toBe(404);
    expect(
      (await fx.anon.sharing.getByToken(now.share_token!, { passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE })).name,
    ).toBe("listings");
    expect((await readOutputsFile(outputsFileOf(dir)))!.tokens["share.listings"]!.token).toBe(now.share_token);
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu)))).toEqual([]);
  });

  it("WHEN applied with --replace service_account.reader THEN a new account is made now, its token published, the old one deleted", async () => {
    const name = "reader [svc-iac ";
    const old = before.serviceAccounts.find((a) => a.name.startsWith(name))!;
    const oldToken = (await readOutputsFile(outputsFileOf(dir)))!.tokens["service_account.reader"]!.token;
    const r = await applyCommand(commandOptions(dir, fx.emu, { replace: ["service_account.reader"] }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["rotate service_account.reader"]);
    const accounts = (await platformView(fx.user)).serviceAccounts.filter((a) => a.name.startsWith(name));
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.id).not.toBe(old.id);
    const newToken = (await readOutputsFile(outputsFileOf(dir)))!.tokens["service_account.reader"]!.token;
    expect(newToken).not.toBe(oldToken);
    expect(await serviceTokenWorks(fx.emu, newToken)).toBe(true);
    expect(await serviceTokenWorks(fx.emu, oldToken)).toBe(false);
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu)))).toEqual([]);
  });

  it("WHEN applied with --only and --replace udf.listings/stats THEN the UDF is re-created (new id) and the cronjob that runs it follows to the new id", async () => {
    const old = before.udfs.find((u) => u.slug === "stats")!;
    const r = await applyCommand(
      commandOptions(dir, fx.emu, { only: ["udf.listings/stats"], replace: ["udf.listings/stats"] }),
    );
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(r)).toEqual(["replace udf.listings/stats", "update cronjob.daily-stats"]);
    expect(planOf(r).partial).toEqual({ only: ["udf.listings/stats"], replace: ["udf.listings/stats"] });
    const view = await platformView(fx.user);
    const stats = view.udfs.filter((u) => u.slug === "stats");
    expect(stats).toHaveLength(1);
    expect(stats[0]!.id).not.toBe(old.id);
    expect(view.cronjobs.find((c) => c.name === "daily-stats")!.udf).toBe(stats[0]!.id);
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu)))).toEqual([]);
  });

  it("WHEN a protected UDF is named by --replace THEN the plan fails, naming it", async () => {
    appendFileSync(join(dir, "canvases/listings/loader.yaml"), "protect: true\n");
    expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
    const r = await planCommand(commandOptions(dir, fx.emu, { replace: ["udf.listings/loader"] }));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("udf.listings/loader");
    expect(messageOf(r)).toContain("is protected");
    expect(messageOf(r)).toContain("replacement asked for with --replace");
  });
});
