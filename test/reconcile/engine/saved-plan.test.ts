/**
 * Saved plans: `plan --out FILE` then `apply --plan FILE` executes exactly the reviewed plan, and
 * refuses (writing nothing) when the repository or an object the plan touches changed since.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { applyCommand, planCommand } from "../../../src/reconcile/commands";
import type { CommandResult } from "../../../src/reconcile/commands/command-types";
import { useEmulator, type EmulatorFixture } from "../../helpers/emulator";
import { commandOptions, copyRepo, FIXTURE_SECRETS, platformView } from "../../helpers/repo";
import { countingRequests, readValidSavedPlan } from "../../helpers/saved-plan";

const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");
const actionsOf = (r: CommandResult) => (r.command === "plan" || r.command === "apply" ? (r.plan?.actions ?? []).map((a) => `${a.action} ${a.address}`) : []);

/** An applied valid-full repository with a code change to the loader UDF and a new dashboard for listings. */
async function editedRepo(fx: EmulatorFixture): Promise<string> {
  const dir = copyRepo("valid-full");
  expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
  writeFileSync(join(dir, "canvases/listings/loader.py"), "@fused.udf\ndef udf(limit: int = 5):\n    return limit * 2\n");
  const canvas = join(dir, "canvases/listings/canvas.yaml");
  writeFileSync(canvas, readFileSync(canvas, "utf8").replace('dashboard_body: "Listings in ${var.city}"', 'dashboard_body: "Listings of ${var.city}"'));
  return dir;
}

async function savePlan(fx: EmulatorFixture, dir: string, file = join(dir, "plan.json")) {
  const r = await planCommand(commandOptions(dir, fx.emu, { planOut: file }));
  expect(r.exitCode, messageOf(r)).toBe(0);
  return { file, saved: readValidSavedPlan(file), planned: r };
}

const udfByslug = async (fx: EmulatorFixture, slug: string) => (await platformView(fx.user)).udfs.find((u) => u.slug === slug)!;
const canvasByName = async (fx: EmulatorFixture, name: string) => (await platformView(fx.user)).canvases.find((c) => c.name === name)!;

describe("GIVEN a plan saved with plan --out", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await editedRepo(fx);
    file = (await savePlan(fx, dir)).file;
  });

  it("THEN the file is a versioned artifact: actions, the repository digest and what each action was planned against, no secret", () => {
    const saved = readValidSavedPlan(file);
    expect(saved.format_version).toBe(1);
    expect(saved.plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual(["update canvas.listings", "update udf.listings/loader"]);
    expect(saved.repository.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(saved.repository.files)).toContain("canvases/listings/loader.py");
    expect(saved.repository.excluded).toContain("plan.json");
    expect(Object.keys(saved.observed).sort()).toEqual(["canvas.listings", "udf.listings/loader"]);
    expect(saved.observed["udf.listings/loader"]!.state).toMatch(/^sha256:/);
    const text = readFileSync(file, "utf8");
    for (const secret of Object.values(FIXTURE_SECRETS)) expect(text).not.toContain(secret);
  });

  it("WHEN applied THEN exactly its actions run, and the next plan is empty", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    if (r.command !== "apply") throw new Error("apply expected");
    expect(r.report!.results.map((x) => `${x.action} ${x.address} ${x.status}`)).toEqual(["update canvas.listings done", "update udf.listings/loader done"]);
    expect((await canvasByName(fx, "listings")).dashboard_body).toBe("Listings of nyc");
    const after = await planCommand(commandOptions(dir, fx.emu));
    expect(actionsOf(after)).toEqual([]);
  });

  it("WHEN applied a second time THEN it is stale: its objects changed since (by its own apply)", async () => {
    const { result: r, writes } = await countingRequests(() => applyCommand(commandOptions(dir, fx.emu, { planFile: file })));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("Saved plan is stale");
    expect(writes).toBe(0);
  });
});

describe("GIVEN a saved plan and a hand change, on the platform, to an object it updates", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;
  let loaderId: string;

  beforeAll(async () => {
    dir = await editedRepo(fx);
    file = (await savePlan(fx, dir)).file;
    const loader = await udfByslug(fx, "loader");
    loaderId = loader.id;
    await fx.user.udfs.update(loader.id, { udf_body: loader.udf_body.replace("return", "return  ") });
  });

  it("WHEN applied THEN apply refuses with exit 1, names the changed object, and sends no write", async () => {
    const before = (await udfByslug(fx, "loader")).udf_body;
    const { result: r, writes } = await countingRequests(() => applyCommand(commandOptions(dir, fx.emu, { planFile: file })));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toMatch(/^Saved plan is stale: /);
    expect(messageOf(r)).toContain(`udf.listings/loader: it (id ${loaderId}) changed on the platform since the plan.`);
    expect(messageOf(r)).not.toContain("canvas.listings:");
    expect(writes).toBe(0);
    expect((await udfByslug(fx, "loader")).udf_body).toBe(before);
    expect((await canvasByName(fx, "listings")).dashboard_body).toBe("Listings in nyc");
  });

  it("WHEN planned again and that plan applied THEN it succeeds", async () => {
    const again = await savePlan(fx, dir);
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: again.file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu)))).toEqual([]);
  });
});

describe("GIVEN a saved plan and a hand change to an object it does not touch", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await editedRepo(fx);
    file = (await savePlan(fx, dir)).file;
    const reports = await canvasByName(fx, "reports");
    await fx.user.canvases.update(reports.id, { name: "reports", dashboard_body: "edited by hand" });
  });

  it("WHEN applied THEN the plan runs, and the untouched object keeps the hand change", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    if (r.command !== "apply") throw new Error("apply expected");
    expect(r.report!.results.map((x) => x.address)).toEqual(["canvas.listings", "udf.listings/loader"]);
    expect((await canvasByName(fx, "reports")).dashboard_body).toBe("edited by hand");
    expect(actionsOf(await planCommand(commandOptions(dir, fx.emu)))).toEqual(["update canvas.reports"]);
  });
});

describe("GIVEN a saved plan and an edit of the repository after it", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await editedRepo(fx);
    file = (await savePlan(fx, dir, join(dir, "..", "reviewed-plan.json"))).file;
    writeFileSync(join(dir, "canvases/reports/weekly.py"), '@fused.udf\ndef udf():\n    return "weekly, edited"\n');
  });

  it("WHEN applied THEN apply refuses, naming the file that changed, and sends no write", async () => {
    const { result: r, writes } = await countingRequests(() => applyCommand(commandOptions(dir, fx.emu, { planFile: file })));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toContain("Saved plan is stale");
    expect(messageOf(r)).toContain("The repository changed since the plan: canvases/reports/weekly.py (changed).");
    expect(writes).toBe(0);
  });

  it("WHEN the file is not a saved plan or has another format_version THEN apply says so and changes nothing", async () => {
    const other = join(dir, "..", "other.json");
    writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), format_version: 7 }));
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: other }));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r)).toBe(`${other} has format_version 7; this svc-iac reads format_version 1. Plan again with this version.`);
    writeFileSync(other, "{}");
    expect(messageOf(await applyCommand(commandOptions(dir, fx.emu, { planFile: other })))).toContain("is not a svc-iac saved plan: format_version is missing");
  });
});
