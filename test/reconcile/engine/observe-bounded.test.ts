/**
 * Observation through bounded answers: the team's canvases are read one canvas per answer (the
 * spec's team listing has no paging and carries every UDF body at once), and one failed or cut
 * answer is read again alone: the plan survives it. A read that keeps failing stops the plan with
 * the request named; a canvas deleted between the listing and its read is seen as deleted.
 * `svc-iac import` reads the team the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planCommand } from "../../../src/reconcile/commands";
import { useEmulator } from "../../helpers/emulator";
import { startInjectingProxy, type InjectingProxy } from "../../helpers/injecting-proxy";
import { appliedRepo, commandOptions, emulatorEnv, writeUdfs } from "../../helpers/repo";
import { applyCommand } from "../../../src/reconcile/commands";
import { importCommand } from "../../../src/reconcile/commands/import";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fx = useEmulator();
let proxy: InjectingProxy;
let dir: string;
const EXTRA_UDFS = 30;

/** Plan through the proxy; the action list as `action address` lines. */
async function planViaProxy() {
  const r = await planCommand(commandOptions(dir, fx.emu, { env: emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url }) }));
  const actions = r.command === "plan" ? r.plan?.actions.map((a) => `${a.action} ${a.address}`) : undefined;
  return { r, actions, message: "message" in r ? r.message : undefined };
}

const canvasId = async (name: string) => (await fx.user.canvases.listExecEnvLite()).find((c) => c.name === name)!.id;

beforeAll(async () => {
  dir = await appliedRepo(fx.emu);
  writeUdfs(dir, "listings", EXTRA_UDFS);
  const r = await applyCommand(commandOptions(dir, fx.emu));
  if (r.exitCode !== 0) throw new Error(`apply failed: ${JSON.stringify(r)}`);
  proxy = await startInjectingProxy(fx.emu.baseUrl);
}, 120_000);
afterAll(async () => {
  fx.emu.setFaults(undefined);
  await proxy?.close();
});

describe("GIVEN an applied repository with two canvases (listings with 32 UDFs, reports with 1)", () => {
  it("WHEN plan runs THEN no answer carries the UDFs of more than one canvas, and the plan is empty", async () => {
    proxy.answers.length = 0;
    const { r, actions } = await planViaProxy();
    expect(r.exitCode).toBe(0);
    expect(actions).toEqual([]);
    const team = await fx.user.canvases.listExecEnv();
    const udfsOnTeam = team.reduce((n, c) => n + c.udfs.length, 0);
    const largestCanvas = Math.max(...team.map((c) => c.udfs.length));
    expect(largestCanvas).toBeLessThan(udfsOnTeam);
    const bodiesPerAnswer = proxy.answers.map((a) => a.body.split('"udf_body"').length - 1);
    expect(Math.max(...bodiesPerAnswer)).toBe(largestCanvas);
    // Every canvas of the team was read, each in its own answer.
    const reads = proxy.answers
      .filter((a) => /^GET \/collection\/by-id\/[^/]+$/.test(a.request))
      .map((a) => a.request.split("/").pop());
    expect(reads.sort()).toEqual(team.map((c) => c.id).sort());
  });

  it("WHEN one canvas read answers 500 once THEN that read alone is made again and the plan is empty", async () => {
    const listings = await canvasId("listings");
    fx.emu.setFaults(`500=1,count=1,methods=GET,paths=/collection/by-id/${listings}`);
    proxy.answers.length = 0;
    const { r, actions, message } = await planViaProxy();
    const injected = fx.emu.faults?.count;
    fx.emu.setFaults(undefined);
    expect(injected).toBe(1);
    expect(message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(actions).toEqual([]);
    const reads = proxy.answers.filter((a) => a.request.startsWith("GET /collection/"));
    // The listing once, the failed canvas twice (500, then its answer), the other canvas once.
    expect(reads.filter((a) => a.request === "GET /collection/exec-env/lite")).toHaveLength(1);
    expect(reads.filter((a) => a.request === `GET /collection/by-id/${listings}`).map((a) => a.status)).toEqual([
      500, 200,
    ]);
  });

  it("WHEN one canvas's answer is cut to half its length (a complete 200) THEN it is read again and the plan is empty", async () => {
    const listings = await canvasId("listings");
    proxy.cut(new RegExp(`^GET /collection/by-id/${listings}$`), 1);
    proxy.answers.length = 0;
    const { r, actions, message } = await planViaProxy();
    expect(message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(actions).toEqual([]);
    expect(proxy.answers.filter((a) => a.request === `GET /collection/by-id/${listings}`)).toHaveLength(2);
  });

  it("WHEN one canvas read fails every time THEN the plan stops with exit 1 naming the request, and plans nothing from a partial view", async () => {
    const reports = await canvasId("reports");
    fx.emu.setFaults(`500=1,methods=GET,paths=/collection/by-id/${reports}`);
    const { r, message } = await planViaProxy();
    fx.emu.setFaults(undefined);
    expect(r.exitCode).toBe(1);
    expect(r.command === "plan" && r.plan).toBeFalsy();
    expect(message).toContain(`/collection/by-id/${reports}`);
    expect(message).toMatch(/500/);
  });

  it("WHEN a canvas is deleted between the listing and its read THEN the plan sees it deleted and creates it again", async () => {
    const reports = await canvasId("reports");
    proxy.before(new RegExp(`^GET /collection/by-id/${reports}$`), 1, () => fx.user.canvases.delete(reports));
    const { r, actions } = await planViaProxy();
    expect(r.exitCode).toBe(0);
    expect(actions).toEqual(expect.arrayContaining(["create canvas.reports", "create udf.reports/weekly"]));
  });

  it("WHEN import reads the team and one canvas read answers 500 once THEN that read alone is made again, no answer carries more than one canvas's UDFs, and the canvas is imported", async () => {
    const listings = await canvasId("listings");
    fx.emu.setFaults(`500=1,count=1,methods=GET,paths=/collection/by-id/${listings}`);
    proxy.answers.length = 0;
    const target = join(mkdtempSync(join(tmpdir(), "svc-import-bounded-")), "repo");
    const r = await importCommand({
      dir: target,
      env: emulatorEnv(fx.emu, { SVC_BASE_URL: proxy.url }),
      select: { canvases: ["listings"], cronjobs: false, secrets: false, serviceAccounts: false },
    });
    const injected = fx.emu.faults?.count;
    fx.emu.setFaults(undefined);
    expect(injected).toBe(1);
    expect(r.message).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(
      r.report!.files.filter((f) => f.path.startsWith("canvases/listings/") && f.path.endsWith(".py")).length,
    ).toBeGreaterThan(EXTRA_UDFS);
    const reads = proxy.answers.filter((a) => a.request.startsWith("GET /collection/"));
    expect(reads.some((a) => a.request === "GET /collection/exec-env")).toBe(false);
    // The listing once; only the canvas asked for, twice (500, then its answer).
    expect(reads.map((a) => `${a.request} ${a.status}`)).toEqual([
      "GET /collection/exec-env/lite 200",
      `GET /collection/by-id/${listings} 500`,
      `GET /collection/by-id/${listings} 200`,
    ]);
  });
});
