/** Apply converges: a fixture repository becomes real objects on the platform, and running again does nothing. */
import { readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createClient } from "../../../src/api/client";
import { applyCommand, driftCommand, planCommand } from "../../../src/reconcile/commands";
import { readOutputsFile } from "../../../src/reconcile/apply/outputs-file";
import { accountName } from "../../../src/kinds/service-account/resource";
import { useEmulator } from "../../helpers/emulator";
import {
  commandOptions,
  copyRepo,
  FIXTURE_SECRETS,
  outputsFileOf,
  platformDuplicates,
  platformView,
} from "../../helpers/repo";

const udfCode = (body: string) => JSON.parse(body).code as string;
const headerModules = (body: string) =>
  (JSON.parse(body).headers as { module_name: string }[]).map((h) => h.module_name);

describe("GIVEN the valid-full repository and an empty platform", () => {
  const fx = useEmulator();
  let dir: string;

  it("WHEN apply runs THEN it reports every action done and every declared object exists on the platform", async () => {
    dir = copyRepo("valid-full");
    const result = await applyCommand(commandOptions(dir, fx.emu));
    expect(result.command).toBe("apply");
    if (result.command !== "apply") return;
    expect(result.message).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect(result.report?.ok).toBe(true);
    expect(result.report?.counts).toEqual({ done: 13, failed: 0, skipped: 0 });

    const view = await platformView(fx.user);
    expect(view.canvases.map((c) => c.name).sort()).toEqual(["listings", "reports"]);
    const listings = view.canvases.find((c) => c.name === "listings")!;
    const reports = view.canvases.find((c) => c.name === "reports")!;
    expect(listings).toMatchObject({
      access_scope: "public",
      allow_public_read: true,
      dashboard_body: "Listings in nyc",
      preview_image_url: "https://example.com/listings.png",
    });
    expect(reports).toMatchObject({ access_scope: "team", share_token: null });

    const udf = (canvas: string, slug: string) =>
      view.udfs.find((u) => u.collection_name === canvas && u.slug === slug);
    expect(udfCode(udf("listings", "stats")!.udf_body)).toBe(readFileSync(`${dir}/canvases/listings/stats.py`, "utf8"));
    expect(udfCode(udf("listings", "loader")!.udf_body)).toBe(
      readFileSync(`${dir}/canvases/listings/loader.py`, "utf8"),
    );
    expect(headerModules(udf("listings", "loader")!.udf_body).sort()).toEqual(["geo", "utils"]);
    expect(udfCode(udf("reports", "weekly")!.udf_body)).toBe(readFileSync(`${dir}/canvases/reports/weekly.py`, "utf8"));

    // The share: a canvas token on the highest-ranked instance, readable with the passcode.
    expect(listings.share_token).toEqual(expect.any(String));
    expect(listings.share_client_id).toBe("rt-demo-primary");
    const shared = await fx.anon.sharing.getByToken(listings.share_token!, {
      passcode: FIXTURE_SECRETS.LISTINGS_PASSCODE,
    });
    expect(shared.name).toBe("listings");

    const daily = view.cronjobs.find((c) => c.name === "daily-stats")!;
    expect(daily).toMatchObject({
      minute: [0],
      hour: [6],
      day_of_week: [1, 2, 3, 4, 5],
      enabled: true,
      udf: udf("listings", "stats")!.id,
    });
    expect(daily.udf_args).toEqual({ city: "nyc", limit: 100 });
    const weekly = view.cronjobs.find((c) => c.name === "weekly_report")!;
    expect(weekly).toMatchObject({
      minute: [30],
      hour: [7, 19],
      day_of_week: [1],
      enabled: false,
      udf: udf("reports", "weekly")!.id,
    });

    expect(view.secrets).toContain("MAPBOX_TOKEN");
    expect((await fx.user.secrets.get("MAPBOX_TOKEN")).value).toBe(FIXTURE_SECRETS.MAPBOX_TOKEN);

    const names = view.serviceAccounts.map((s) => s.name);
    expect(names).toContain(accountName({ name: "listings-deployer", rotation: "1" }));
    expect(names).toContain(accountName({ name: "reader" }));
    expect(platformDuplicates(view)).toEqual([]);
  });

  it("THEN the outputs file holds both service-account tokens, readable by its owner only, and the tokens work", async () => {
    const file = outputsFileOf(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const outputs = await readOutputsFile(file);
    // New tokens of every kind: service accounts, the share's canvas token, the loader's shared token.
    expect(Object.keys(outputs!.tokens).sort()).toEqual([
      "service_account.listings-deployer",
      "service_account.reader",
      "share.listings",
      "udf.listings/loader",
    ]);
    expect(outputs!.tokens["service_account.reader"]!.name).toBe("SVC_SERVICE_ACCOUNT_READER_TOKEN");
    const view = await platformView(fx.user);
    expect(outputs!.tokens["share.listings"]!.token).toBe(
      view.canvases.find((c) => c.name === "listings")!.share_token,
    );
    for (const entry of Object.values(outputs!.tokens).filter((e) => e.kind === "ServiceAccount")) {
      const client = createClient({ baseUrl: fx.emu.baseUrl, serviceToken: entry.token });
      try {
        expect((await client.environment.getSelf()).id).toEqual(expect.any(String));
      } finally {
        await client.close();
      }
    }
  });

  it("WHEN plan runs again THEN it has no action, drift exits 0, and a second apply does nothing", async () => {
    const plan = await planCommand(commandOptions(dir, fx.emu, { detailedExitCode: true }));
    expect(plan.command === "plan" && plan.plan?.actions).toEqual([]);
    expect(plan.exitCode).toBe(0);
    const drift = await driftCommand(commandOptions(dir, fx.emu));
    expect(drift.exitCode).toBe(0);
    const before = await platformView(fx.user);
    const again = await applyCommand(commandOptions(dir, fx.emu));
    expect(again.exitCode).toBe(0);
    expect(again.command === "apply" && again.report?.results).toEqual([]);
    const after = await platformView(fx.user);
    expect(after.canvases.map((c) => [c.id, c.last_updated])).toEqual(
      before.canvases.map((c) => [c.id, c.last_updated]),
    );
    expect(after.serviceAccounts.map((s) => s.id).sort()).toEqual(before.serviceAccounts.map((s) => s.id).sort());
  });

  it("WHEN every object is deleted by hand THEN apply makes them again and converges", async () => {
    const view = await platformView(fx.user);
    for (const c of view.cronjobs) await fx.user.cronjobs.delete(c.id);
    for (const c of view.canvases) await fx.user.canvases.delete(c.id);
    for (const k of view.secrets) await fx.user.secrets.delete(k);
    for (const s of view.serviceAccounts.filter((s) => s.name.includes("[svc-iac ")))
      await fx.user.environment.deleteServiceAccount(s.id);
    const emptied = await platformView(fx.user);
    expect(emptied.canvases).toEqual([]);
    expect(emptied.udfs).toEqual([]);

    const plan = await planCommand(commandOptions(dir, fx.emu));
    if (plan.command !== "plan") throw new Error("unexpected");
    const creates = plan.plan!.actions.filter((a) => a.action === "create" || a.action === "share");
    expect(creates.length).toBe(11);
    expect(creates.every((a) => /out of band/.test(a.reason ?? ""))).toBe(true);

    const result = await applyCommand(commandOptions(dir, fx.emu));
    expect(result.exitCode).toBe(0);
    const refilled = await platformView(fx.user);
    expect(refilled.canvases.map((c) => c.name).sort()).toEqual(["listings", "reports"]);
    expect(refilled.udfs.length).toBe(3);
    expect(refilled.cronjobs.length).toBe(2);
    expect(refilled.secrets).toContain("MAPBOX_TOKEN");
    expect(platformDuplicates(refilled)).toEqual([]);
    const replan = await planCommand(commandOptions(dir, fx.emu));
    expect(replan.command === "plan" && replan.plan?.actions).toEqual([]);
  });
});

describe("GIVEN objects made by hand with the names the repository declares", () => {
  const fx = useEmulator();

  it("WHEN apply runs THEN it adopts them instead of making duplicates", async () => {
    const listings = await fx.user.canvases.create({ name: "listings", access_scope: "team" });
    await fx.user.canvases.create({ name: "reports" });
    await fx.user.udfs.create({
      collection_id: listings.id,
      slug: "stats",
      udf_body: JSON.stringify({ name: "stats", code: "old" }),
    });
    const dir = copyRepo("valid-full");

    const plan = await planCommand(commandOptions(dir, fx.emu));
    if (plan.command !== "plan") throw new Error("unexpected");
    const adopted = plan.plan!.actions.filter((a) => a.action === "adopt").map((a) => a.address);
    expect(adopted).toEqual(expect.arrayContaining(["canvas.listings", "canvas.reports", "udf.listings/stats"]));

    const result = await applyCommand(commandOptions(dir, fx.emu));
    expect(result.exitCode).toBe(0);
    const view = await platformView(fx.user);
    expect(view.canvases.filter((c) => c.name === "listings").map((c) => c.id)).toEqual([listings.id]);
    expect(view.canvases.filter((c) => c.name === "reports").length).toBe(1);
    const stats = view.udfs.filter((u) => u.collection_id === listings.id && u.slug === "stats");
    expect(stats.length).toBe(1);
    expect(udfCode(stats[0]!.udf_body)).toBe(readFileSync(`${dir}/canvases/listings/stats.py`, "utf8"));
    expect(view.canvases.find((c) => c.name === "listings")!.access_scope).toBe("public");
    expect(platformDuplicates(view)).toEqual([]);
    const replan = await planCommand(commandOptions(dir, fx.emu));
    expect(replan.command === "plan" && replan.plan?.actions).toEqual([]);
  });
});
