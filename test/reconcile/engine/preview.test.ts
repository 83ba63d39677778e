/** Preview environments: two pull-request targets with name prefixes beside the default target on one team; each destroys only its own objects. */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandOptions } from "../../../src/reconcile/commands/command-types";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import { destroyCommand } from "../../../src/reconcile/commands/destroy";
import { useEmulator } from "../../helpers/emulator";
import { renderPlanText, toJson } from "../../../src/reconcile/render";
import {
  commandOptions,
  copyRepo,
  FIXTURE_SECRETS,
  platformDuplicates,
  platformView,
  type PlatformView,
} from "../../helpers/repo";

/** Canvas, UDF, cronjob and service-account names of the team, sorted. */
function names(view: PlatformView) {
  const canvasName = new Map(view.canvases.map((c) => [c.id, c.name]));
  return {
    canvases: view.canvases.map((c) => c.name).sort(),
    udfs: view.udfs.map((u) => `${canvasName.get(u.collection_id!)}/${u.slug}`).sort(),
    cronjobs: view.cronjobs.map((c) => c.name).sort(),
    accounts: view.serviceAccounts.map((a) => a.name.replace(/ \[svc-iac [0-9a-f]{6}\]$/, "")).sort(),
  };
}

const ours = (prefix: string) => ({
  canvases: [`${prefix}listings`, `${prefix}reports`],
  udfs: [`${prefix}listings/loader`, `${prefix}listings/stats`, `${prefix}reports/weekly`],
  cronjobs: [`${prefix}daily-stats`, `${prefix}weekly_report`],
  accounts: [`${prefix}listings-deployer`, `${prefix}reader`],
});

describe("GIVEN a repository with a preview target (name_prefix pr_${env.PR_NUMBER}_, state per pull request)", () => {
  const fx = useEmulator();
  let dir: string;
  const opts = (pr?: number, extra: Partial<CommandOptions> = {}): CommandOptions => {
    const base = commandOptions(dir, fx.emu, extra);
    return pr === undefined
      ? base
      : {
          ...base,
          target: "preview",
          env: { ...base.env, PR_NUMBER: String(pr) },
          outputs: join(dir, "..", `outputs-pr${pr}.json`),
        };
  };

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    appendFileSync(
      join(dir, "svc.yaml"),
      "  preview:\n    name_prefix: pr_${env.PR_NUMBER}_\n    state: .svc-iac/state/pr-${env.PR_NUMBER}\n",
    );
    for (const pr of [undefined, 1, 2]) {
      const r = await applyCommand(opts(pr));
      if (r.exitCode !== 0) throw new Error(`apply ${pr ?? "default"} failed: ${JSON.stringify(r)}`);
    }
  });

  it("THEN each target deployed a full copy beside the others, with no duplicates, and the cronjobs run their own copy's UDFs", async () => {
    const view = await platformView(fx.user);
    const seen = names(view);
    for (const prefix of ["", "pr_1_", "pr_2_"]) {
      const want = ours(prefix);
      expect(seen.canvases).toEqual(expect.arrayContaining(want.canvases));
      expect(seen.udfs).toEqual(expect.arrayContaining(want.udfs));
      expect(seen.cronjobs).toEqual(expect.arrayContaining(want.cronjobs));
      expect(seen.accounts).toEqual(expect.arrayContaining(want.accounts));
    }
    expect(platformDuplicates(view)).toEqual([]);
    const canvasOf = new Map(view.udfs.map((u) => [u.id, view.canvases.find((c) => c.id === u.collection_id)!.name]));
    expect(canvasOf.get(view.cronjobs.find((c) => c.name === "pr_2_daily-stats")!.udf)).toBe("pr_2_listings");
    expect(canvasOf.get(view.cronjobs.find((c) => c.name === "daily-stats")!.udf)).toBe("listings");
  });

  it("THEN every target plans empty, and the previews say the team's secret is the default target's", async () => {
    for (const pr of [undefined, 1, 2]) {
      const r = await planCommand(opts(pr, { detailedExitCode: true }));
      expect(
        r.command === "plan" && r.plan!.actions.map((a) => `${a.action} ${a.address}`),
        `target ${pr ?? "default"}`,
      ).toEqual([]);
      expect(r.exitCode).toBe(0);
      const warned =
        r.command === "plan" &&
        r.plan!.warnings.some((w) => w.startsWith("secret.MAPBOX_TOKEN is not managed by target"));
      expect(warned).toBe(pr !== undefined);
    }
  });

  it("WHEN pull request 1 is destroyed THEN only its objects are gone, and the default target and pull request 2 still plan empty", async () => {
    const before = names(await platformView(fx.user));
    const r = await destroyCommand(opts(1));
    expect(r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    const after = names(await platformView(fx.user));
    const gone = ours("pr_1_");
    for (const k of Object.keys(gone) as (keyof typeof gone)[]) {
      expect(after[k]).toEqual(before[k].filter((n) => !gone[k].includes(n)));
    }
    for (const pr of [undefined, 2]) {
      const plan = await planCommand(opts(pr, { detailedExitCode: true }));
      expect(plan.exitCode, `target ${pr ?? "default"}`).toBe(0);
    }
  });

  it("WHEN pull request 2 is destroyed THEN only the default target's objects remain", async () => {
    expect((await destroyCommand(opts(2))).exitCode).toBe(0);
    const left = names(await platformView(fx.user));
    const main = ours("");
    expect(left.canvases).toEqual(main.canvases);
    expect(left.udfs).toEqual(main.udfs);
    expect(left.cronjobs).toEqual(main.cronjobs);
    expect(left.accounts.filter((a) => main.accounts.includes(a))).toEqual(main.accounts);
    expect(left.accounts.some((a) => a.startsWith("pr_"))).toBe(false);
    expect((await platformView(fx.user)).secrets).toEqual(["MAPBOX_TOKEN"]);
    expect((await planCommand(opts(undefined, { detailedExitCode: true }))).exitCode).toBe(0);
  });
});

describe("GIVEN a preview target not deployed yet", () => {
  const fx = useEmulator();

  it("THEN its plan shows what each create makes under the prefixed names, in text and JSON, and no secret", async () => {
    const dir = copyRepo("valid-full");
    appendFileSync(
      join(dir, "svc.yaml"),
      "  preview:\n    name_prefix: pr_${env.PR_NUMBER}_\n    state: .svc-iac/state/pr-${env.PR_NUMBER}\n",
    );
    const base = commandOptions(dir, fx.emu);
    const r = await planCommand({ ...base, target: "preview", env: { ...base.env, PR_NUMBER: "7" } });
    if (r.command !== "plan" || !r.plan) throw new Error(JSON.stringify(r));
    const to = (address: string, field: string) =>
      r.plan!.actions.find((a) => a.address === address)?.fields.find((f) => f.field === field)?.to;
    expect(to("canvas.listings", "name")).toBe("pr_7_listings");
    expect(to("cronjob.daily-stats", "name")).toBe("pr_7_daily-stats");
    expect(to("service_account.reader", "name")).toBe("pr_7_reader");
    expect(to("udf.listings/stats", "slug")).toBe("stats");
    const text = renderPlanText(r.plan);
    expect(text).toContain('  + create   canvas.listings\n      accessScope: "public"');
    expect(text).toContain('      name: "pr_7_listings"\n      passcode: (sensitive value)\n');
    expect(text).toMatch(/\+ create {3}udf\.listings\/stats\n {6}code: \d+ lines\n/);
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text + toJson(r.plan)).not.toContain(secret);
  });
});
