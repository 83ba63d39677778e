/**
 * `svc-iac drift --remediate`: each drifted object settled as its `on_drift` says (restore, keep,
 * report; the most specific setting wins), a webhook told `drift_found` and `drift_restored`, and
 * an object restored three times within a week left as contested on the fourth run (a manual
 * clock given through the command options), until `--force-restore`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyCommand, remediateCommand } from "../../../src/reconcile/commands";
import type { CommandOptions, CommandResult } from "../../../src/reconcile/commands/command-types";
import { historyCommand } from "../../../src/reconcile/commands/history";
import type { RemediationReport } from "../../../src/reconcile/plan/plan-model";
import { useEmulator } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS, platformView, stateDirOf } from "../../helpers/repo";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";

const DAY = 86_400_000;

function remediationOf(r: CommandResult): RemediationReport {
  if (r.command !== "drift" || !r.remediation) throw new Error(`expected a remediation, got ${JSON.stringify(r)}`);
  return r.remediation;
}

const addresses = (entries: { address: string }[]) => entries.map((e) => e.address);

describe("GIVEN a repository with one object of each on_drift policy, applied, and a webhook for drift events", () => {
  const fx = useEmulator();
  let dir: string;
  let hook: WebhookReceiver;
  let clock = new Date("2026-03-02T09:00:00Z");
  const opts = (extra: Partial<CommandOptions> = {}): CommandOptions => ({
    ...commandOptions(dir, fx.emu, { now: () => clock, ...extra }),
    env: { ...commandOptions(dir, fx.emu).env, CHAT_WEBHOOK_URL: hook.url },
  });

  async function canvasOf(name: string) {
    return (await platformView(fx.user)).canvases.find((c) => c.name === name)!;
  }

  /** Edits a canvas's dashboard body on the platform, as a person would. */
  async function editDashboard(name: string, body: string, passcode?: string) {
    const c = await canvasOf(name);
    await fx.user.canvases.update(c.id, {
      name,
      access_scope: c.access_scope,
      allow_public_read: c.allow_public_read,
      ...(passcode ? { passcode } : {}),
      dashboard_body: body,
      preview_image_url: c.preview_image_url ?? undefined,
    } as never);
  }

  beforeAll(async () => {
    hook = await startWebhookReceiver();
    dir = copyRepo("valid-full");
    // restore: the reports canvas (canvas.yaml); keep: its UDF weekly, whose own settings win over
    // canvas.yaml; report: everything else (the project's default).
    writeFileSync(join(dir, "canvases/reports/canvas.yaml"), "on_drift: restore\n");
    writeFileSync(join(dir, "canvases/reports/weekly.yaml"), "on_drift: keep\n");
    writeFileSync(
      join(dir, "svc.yaml"),
      `${readFileSync(join(dir, "svc.yaml"), "utf8")}notify:\n  - name: chat\n    url_env: CHAT_WEBHOOK_URL\n    events: [drift_found, drift_restored, drift_contested]\n`,
    );
    const r = await applyCommand(opts());
    if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  });

  afterAll(async () => {
    await hook?.close();
  });

  describe("WHEN one object of each policy is changed by hand and drift --remediate runs", () => {
    let result: CommandResult;
    let report: RemediationReport;
    const weeklyCode = '@fused.udf\ndef udf():\n    return "weekly, as the platform has it"\n';

    beforeAll(async () => {
      await editDashboard("reports", "Edited by hand");
      await editDashboard("listings", "Listings, edited by hand", FIXTURE_SECRETS.LISTINGS_PASSCODE);
      const weekly = (await platformView(fx.user)).udfs.find(
        (u) => u.collection_name === "reports" && u.slug === "weekly",
      )!;
      const body = JSON.parse(weekly.udf_body) as { code: string };
      await fx.user.udfs.update(weekly.id, { udf_body: JSON.stringify({ ...body, code: weeklyCode }) });
      result = await remediateCommand(opts());
      report = remediationOf(result);
    });

    it("THEN the restore object is restored on the platform", async () => {
      expect(addresses(report.restored)).toEqual(["canvas.reports"]);
      expect(report.restored[0]).toMatchObject({
        policy: "restore",
        policy_from: "on_drift in canvases/reports/canvas.yaml",
      });
      expect((await canvasOf("reports")).dashboard_body ?? "").not.toBe("Edited by hand");
    });

    it("THEN the keep object's platform version is written into its file, and the platform keeps it", async () => {
      expect(addresses(report.kept)).toEqual(["udf.reports/weekly"]);
      expect(report.kept[0]).toMatchObject({ policy: "keep", files: ["canvases/reports/weekly.py"] });
      expect(readFileSync(join(dir, "canvases/reports/weekly.py"), "utf8")).toContain("weekly, as the platform has it");
    });

    it("THEN the report object is only reported, and left as it is", async () => {
      expect(addresses(report.reported)).toEqual(["canvas.listings"]);
      expect(report.reported[0]).toMatchObject({ policy: "report", policy_from: "the default on_drift" });
      expect((await canvasOf("listings")).dashboard_body).toBe("Listings, edited by hand");
      expect(report.contested).toEqual([]);
    });

    it("THEN it exits 2: drift remains (the reported object)", () => {
      expect(result.exitCode).toBe(2);
      expect(report.remaining).toBe(1);
    });

    it("THEN the webhook got one drift_found and one drift_restored, with a text field and no secret or URL", () => {
      expect(hook.received.map((b) => b.event)).toEqual(["drift_found", "drift_restored"]);
      expect(hook.received[1]).toMatchObject({ project: "listings", target: "default", addresses: ["canvas.reports"] });
      for (const body of hook.received) {
        expect(body.text).toEqual(expect.stringContaining("listings (default)"));
        const text = JSON.stringify(body);
        for (const secret of Object.values(FIXTURE_SECRETS)) expect(text).not.toContain(secret);
        expect(text).not.toContain(fx.emu.tokens.user_token);
        expect(text).not.toContain("secret-path");
      }
    });

    it("THEN the restore is recorded beside the inventory", () => {
      const history = JSON.parse(readFileSync(join(stateDirOf(dir), "restore-history.json"), "utf8"));
      expect(history.restores["canvas.reports"]).toEqual([
        { at: clock.toISOString(), declared: expect.stringMatching(/^hmac-sha256:/) },
      ]);
    });

    it("THEN the restore is a deployment of the history, after the apply", async () => {
      const listed = await historyCommand({ dir, env: opts().env });
      expect(listed.report?.deployments.map((d) => [d.id, d.action, d.objects])).toEqual([
        ["2", "remediate", [{ address: "canvas.reports", action: "update" }]],
        ["1", "apply", expect.any(Array)],
      ]);
    });
  });

  describe("WHEN the restore object is changed by hand again and again within a week", () => {
    const runs: RemediationReport[] = [];

    beforeAll(async () => {
      hook.received.length = 0;
      // Restored once above; twice more, a day apart, then a fourth run.
      for (let day = 1; day <= 3; day++) {
        clock = new Date(clock.getTime() + DAY);
        await editDashboard("reports", `Edited by hand, day ${day}`);
        runs.push(remediationOf(await remediateCommand(opts())));
      }
    });

    it("THEN the second and third are restored, and the fourth run reports it contested with the three times", async () => {
      expect(runs.map((r) => addresses(r.restored))).toEqual([["canvas.reports"], ["canvas.reports"], []]);
      const last = runs[2]!;
      expect(addresses(last.contested)).toEqual(["canvas.reports"]);
      expect(last.contested[0]!.restores).toHaveLength(3);
      expect(last.contested[0]!.detail).toContain("--force-restore canvas.reports");
      expect((await canvasOf("reports")).dashboard_body).toBe("Edited by hand, day 3");
    });

    it("THEN the webhook is told drift_contested", () => {
      expect(hook.received.map((b) => b.event).slice(-2)).toEqual(["drift_found", "drift_contested"]);
    });

    it("THEN --force-restore ADDRESS restores it once more", async () => {
      const forced = remediationOf(await remediateCommand(opts({ forceRestore: ["canvas.reports"] })));
      expect(addresses(forced.restored)).toEqual(["canvas.reports"]);
      expect(forced.restored[0]!.forced).toBe(true);
      expect((await canvasOf("reports")).dashboard_body ?? "").not.toContain("Edited by hand");
    });

    it("THEN a week later the old restores no longer count and it is restored again", async () => {
      clock = new Date(clock.getTime() + 8 * DAY);
      await editDashboard("reports", "Edited by hand, a week later");
      const later = remediationOf(await remediateCommand(opts()));
      expect(addresses(later.restored)).toEqual(["canvas.reports"]);
    });
  });
});
